"""How a test's calls are written for a reader: as the project's own code would call them.

The rule: required parameters go by position, in order, as long as every parameter before
them went by position too; optional ones (those with a default) go by keyword; positional-only
parameters ("/x", also PEP 484's ``__x``) and ``*items`` always by position; keyword-only ones
always by keyword. A literal ``True``/``False`` goes by keyword wherever it may (``f(flag=True)``,
not the "boolean trap" ``f(True)`` that linters flag, ruff's FBT003), and so does what follows it. An argument whose value is the parameter's own literal default, of the same
type, is left out when it goes by keyword (``Stack(3)``, not ``Stack(capacity=3, strict=False)``).

Only the spelling changes: the call passes the same values to the same parameters, so what
the test ran and observed still holds. The stored test (its JSON) keeps its parameter names.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from miogen.analysis.model import NO_DEFAULT, Parameter, Signature
from miogen.analysis.typespec import TypeSpec
from miogen.testcase.model import Statement, TestCase

_WRITTEN = frozenset({"construct", "call", "method"})
# Defaults that are one shared object only if mutable: these are safe to leave out.
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)


def as_written(test: TestCase, signature_of: Callable[[Statement], Signature | None]) -> TestCase:
    """The test with each call's arguments named for rendering: "/name" for those written by
    position, default-valued keyword arguments left out (see the module's docstring)."""
    written = []
    for statement in test:
        signature = signature_of(statement) if statement.kind in _WRITTEN else None
        if signature is None:
            written.append(statement)
            continue
        args = _spelled(statement.args, signature, test)
        written.append(
            Statement(statement.kind, statement.name, args, statement.value, statement.receiver)
        )
    return tuple(written)


def _spelled(
    args: tuple[tuple[str, int], ...], signature: Signature, test: TestCase
) -> tuple[tuple[str, int], ...]:
    by_name = {p.name: p for p in signature.params}
    order = [p.name for p in signature.params]
    spelled: list[tuple[str, int]] = []
    expected = 0  # the index in ``order`` of the parameter a positional argument would fill
    positional = True
    for name, index in args:
        parameter = by_name.get(name)
        if name[:1] in "/*" or parameter is None:
            spelled.append((name, index))
            if name[:1] == "/" and name in order:
                expected = order.index(name) + 1
            elif name[:1] == "*" and name in order:
                expected = order.index(name)
            continue
        in_place = expected < len(order) and order[expected] == name
        boolean = _is_bool(test[index])
        positional = positional and in_place and _by_position(parameter) and not boolean
        if positional:
            spelled.append((f"/{name}", index))
            expected += 1
            continue
        positional = False
        if _is_default(parameter, test[index]):
            continue
        spelled.append((name, index))
    return tuple(_trailing_defaults_dropped(spelled, by_name, test))


def _is_bool(statement: Statement) -> bool:
    return statement.kind == "value" and isinstance(statement.value, bool)


def _by_position(parameter: Parameter) -> bool:
    return not parameter.keyword_only and not parameter.has_default


def _trailing_defaults_dropped(
    spelled: list[tuple[str, int]], by_name: dict[str, Parameter], test: TestCase
) -> list[tuple[str, int]]:
    """A positional-only argument equal to its default goes too, when nothing positional follows."""
    while True:
        last = max((i for i, (n, _) in enumerate(spelled) if n[:1] in "/*"), default=-1)
        if last < 0:
            return spelled
        name, index = spelled[last]
        parameter = by_name.get(name)
        if parameter is None or not _is_default(parameter, test[index]):
            return spelled
        del spelled[last]


def _is_default(parameter: Parameter, statement: Statement) -> bool:
    """Whether the value is the parameter's literal, immutable default (``0`` is not ``False``,
    nor ``0.0``; a nan is never its default)."""
    default = parameter.default
    if not parameter.has_default or default is NO_DEFAULT or statement.kind != "value":
        return False
    value = statement.value
    if type(value) is not type(default) or not isinstance(default, _IMMUTABLE):
        return False
    if isinstance(value, float) and math.isnan(value):
        return False
    try:
        return bool(value == default)
    except Exception:  # noqa: BLE001 - an odd value's comparison: keep the argument
        return False


def mistyped(
    test: TestCase, signature_of: Callable[[Statement], Signature | None]
) -> dict[int, str]:
    """The calls that pass a plain value of another type than a parameter's annotation says,
    with the error code a type checker gives them: on purpose (the sampler does so only where
    the code checks the type, analysis.guards), so the emitted line tells type checkers so
    (``# type: ignore[arg-type]``). ``round(x, 1.5)`` and ``format(x, 3)`` are checked against
    the builtin's own parameters (``ndigits`` an int, ``format_spec`` a str), whatever the
    class's ``__round__`` takes. A call that passes no set of keyword-only parameters an
    ``@overload`` stub requires matches none (call-overload)."""
    found: dict[int, str] = {}
    for position, statement in enumerate(test):
        if statement.kind == "operator" and statement.name in _BUILTIN_OPERANDS:
            kinds, code = _BUILTIN_OPERANDS[statement.name]
            operands = [test[index] for _, index in statement.args]
            if any(_refused_by_builtin(operand, kinds) for operand in operands[:1]):
                found[position] = code
            continue
        signature = signature_of(statement) if statement.kind in _WRITTEN else None
        if signature is None:
            continue
        if not _matches_a_stub(statement, signature):
            found[position] = "call-overload"
            continue
        by_name = {p.name: p for p in signature.params}
        for name, index in statement.args:
            parameter = by_name.get(name)
            if parameter is None or not parameter.annotated:
                continue
            argument = test[index]
            if argument.kind == "value" and not _fits(argument.value, parameter.type):
                found[position] = "arg-type"
            elif argument.kind in _OBJECTS and parameter.type.kind in _NOT_AN_OBJECT:
                # an instance of the module's class, or a list, for an int, a str...
                found[position] = "arg-type"
    return found


def _matches_a_stub(statement: Statement, signature: Signature) -> bool:
    """Whether the call passes the keyword-only parameters one of the function's ``@overload``
    stubs requires (``Signature.overload_keywords``): ``split_by(items)`` with neither
    ``criterion`` nor ``separator`` matches none, and raises on purpose."""
    if not signature.overload_keywords:
        return True
    keywords = frozenset().union(*signature.overload_keywords)
    passed = {name for name, _ in statement.args} & keywords
    return passed in signature.overload_keywords


def off_type(statement: Statement, test: TestCase, signature: Signature) -> bool:
    """Whether the call passes a plain value, or an object, of none of the types the project
    means for a parameter: its annotation, else the types its inference names (``any``, the
    "not sure" an unannotated parameter keeps, left aside; a parameter whose inference names
    nothing is not judged, one whose inference names only its default's None only for objects
    of the module's classes). ``samples(seed=normal_dist)`` for ``seed=None`` handed to
    ``random.Random`` is such a call; so is ``isleap("")`` where ``year`` is only counted with."""
    by_name = {p.name: p for p in signature.params}
    for name, index in statement.args:
        parameter = by_name.get(name) or by_name.get(name.lstrip("/"))
        if parameter is None or name[:1] == "*":
            continue
        meant = _meant(parameter)
        if meant is None:
            continue
        argument = test[index]
        if meant.kind == "none" and not parameter.annotated:
            # Only the default names a type (``x=None``: an optional something): plain values
            # and collections may be what it means; an object of the module's own classes,
            # which the sampler offers to any parameter, nothing says it means.
            if argument.kind == "construct":
                return True
            continue
        if argument.kind == "value" and not _fits(argument.value, meant):
            return True
        if argument.kind in _OBJECTS and all(
            member.kind in _NOT_AN_OBJECT for member in _members(meant)
        ):
            return True
    return False


def _meant(parameter: Parameter) -> TypeSpec | None:
    """The parameter's annotation, else its inferred type without ``any`` (None: nothing named)."""
    if parameter.annotated:
        return parameter.type
    named = [member for member in _members(parameter.type) if member.kind != "any"]
    if not named:
        return None
    return named[0] if len(named) == 1 else TypeSpec("union", tuple(named))


def _members(spec: TypeSpec) -> tuple[TypeSpec, ...]:
    return spec.args if spec.kind == "union" else (spec,)


# Special methods written as builtins whose second operand the builtin types itself (typeshed):
# the plain types it takes, and mypy's error code for another (round is overloaded).
_BUILTIN_OPERANDS = {
    "__round__": ((int, type(None)), "call-overload"),
    "__format__": ((str,), "arg-type"),
}


def _refused_by_builtin(operand: Statement, kinds: tuple[type, ...]) -> bool:
    """A plain value of none of ``kinds``, or an object of the module's classes."""
    if operand.kind == "value":
        return not isinstance(operand.value, kinds)
    return operand.kind == "construct"


_OBJECTS = frozenset({"construct", "list", "tuple", "set", "dict"})
_NOT_AN_OBJECT = frozenset({"int", "float", "complex", "bool", "str", "bytes", "none"})


_PLAIN = {"int": (int,), "float": (int, float), "complex": (int, float, complex)}


def _fits(value: object, spec: TypeSpec) -> bool:
    """Whether a type checker accepts a plain literal for ``spec`` (True when unsure)."""
    if spec.kind == "union":
        return any(_fits(value, member) for member in spec.args)
    if spec.kind == "literal":
        return value in spec.values
    plain = isinstance(value, int | float | complex | str | bytes) or value is None
    if spec.kind in _PLAIN:
        return not plain or isinstance(value, _PLAIN[spec.kind])  # bool is an int to them
    if spec.kind == "bool":
        return not plain or isinstance(value, bool)
    if spec.kind in ("str", "bytes"):
        return not plain or type(value).__name__ == spec.kind
    if spec.kind == "none":
        return value is None
    if spec.kind in ("list", "set", "dict", "tuple", "class", "callable", "iterator"):
        return not plain
    return True
