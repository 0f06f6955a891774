"""Annotations for empty collections a test names: ``items: list[int] = []``.

A type checker cannot tell the type of ``items = []`` (mypy: "Need type annotation"), so a test
that keeps an empty list, set or dict in a variable (it passes it twice, or asserts on it after
a call) writes the type of the parameter it is first passed to: the annotation's, an element
type a container asks for when it is passed inside one, ``Any`` for what the annotation does
not say in plain types (``list[Any]`` type-checks wherever a list is asked for).

An empty collection passed once, to a parameter whose annotation leaves its items open (a
``TypeVar``'s ``Iterable[T]``) of a call whose result's type is open too, is named and
annotated too when the call's result is kept:
mypy cannot infer ``result = take(0, [])`` ("Need type annotation for result").
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet

from miogen.analysis.model import Signature
from miogen.analysis.typespec import TypeSpec
from miogen.testcase.model import CALLS, Statement, TestCase

_EMPTY = {"list": "list", "set": "set", "dict": "dict"}
_PLAIN = {"int", "float", "str", "bool", "bytes", "complex"}
ANY_IMPORT = "from typing import Any"


def empty_collection_types(
    test: TestCase, signature_of: Callable[[Statement], Signature | None] | None
) -> dict[int, str]:
    """For each empty list, set or dict of ``test``, the annotation its variable gets."""
    found = {}
    for index, statement in enumerate(test):
        if statement.kind in _EMPTY and not statement.args:
            spec = _declared(test, index, signature_of, depth=0)
            kind = statement.kind
            member = next((m for m in _members(spec) if m.kind == kind), TypeSpec(kind))
            found[index] = annotation(member)
    return found


def open_empty_arguments(
    test: TestCase,
    signature_of: Callable[[Statement], Signature | None] | None,
    generic_classes: AbstractSet[str] = frozenset(),
) -> dict[int, str]:
    """The empty lists, sets and dicts of ``test`` passed straight to a parameter annotated
    with a type that leaves its items open (``Any`` in its spec: a ``TypeVar``) of a function
    or method whose result's type is open too, by index, with the parameter's name: a call of
    a generic function on one infers nothing for its result. A class of another module in
    the spec is open as well (``Set[Currency]``): a call whose result's type is closed infers
    its result whatever it is given, and so does a constructor, but of a class generic in a
    type parameter (``generic_classes``: ``LazyList(Generic[T])``, whose ``LazyList([])``
    mypy cannot type: "Need type annotation")."""
    found: dict[int, str] = {}
    if signature_of is None:
        return found
    for statement in test:
        if statement.kind == "construct":
            if statement.name not in generic_classes:
                continue
        elif statement.kind not in ("call", "method"):
            continue
        signature = signature_of(statement)
        if signature is None:
            continue
        if statement.kind != "construct" and not _open(signature.returns):
            continue
        for name, index in statement.args:
            argument = test[index]
            if argument.kind not in _EMPTY or argument.args:
                continue
            wanted = {name, name.lstrip("/")}
            parameter = next((p for p in signature.params if p.name in wanted), None)
            if parameter is not None and parameter.annotated and _open(parameter.type):
                found.setdefault(index, parameter.name.lstrip("/*"))
    return found


def _open(spec: TypeSpec) -> bool:
    """Whether the spec leaves a part open: ``any`` in it, at any depth."""
    return spec.kind == "any" or any(_open(arg) for arg in spec.args)


def annotation(spec: TypeSpec) -> str:
    """``list[int]``, ``dict[str, Any]``, ``int | None``: the spec in plain types, ``Any`` for
    the rest (classes, callables, values of the standard library)."""
    kind = spec.kind
    if kind in _PLAIN:
        return kind
    if kind == "none":
        return "None"
    if kind == "union":
        members = list(dict.fromkeys(annotation(m) for m in spec.args))
        return "Any" if "Any" in members else " | ".join(members)
    if kind in ("list", "set"):
        return f"{kind}[{annotation(spec.args[0]) if spec.args else 'Any'}]"
    if kind == "dict":
        key = annotation(spec.args[0]) if spec.args else "Any"
        value = annotation(spec.args[1]) if len(spec.args) > 1 else "Any"
        return f"dict[{key}, {value}]"
    if kind == "tuple" and spec.args:
        inner = ", ".join(annotation(a) for a in spec.args)
        return f"tuple[{inner}, ...]" if spec.variadic else f"tuple[{inner}]"
    return "Any"


def _declared(
    test: TestCase,
    index: int,
    signature_of: Callable[[Statement], Signature | None] | None,
    depth: int,
) -> TypeSpec:
    """The type the value at ``index`` is first passed as: a parameter's, or an element's of
    the collection it is put in (``TypeSpec("any")`` when nothing says)."""
    unknown = TypeSpec("any")
    for position, statement in enumerate(test[index + 1 :], start=index + 1):
        positions = [p for p, (_, i) in enumerate(statement.args) if i == index]
        if not positions:
            continue
        if statement.kind in CALLS:
            signature = signature_of(statement) if signature_of is not None else None
            if signature is None:
                return unknown
            name = statement.args[positions[0]][0]
            wanted = {name, name.lstrip("/")}
            return next((p.type for p in signature.params if p.name in wanted), unknown)
        if statement.kind in ("list", "set", "tuple", "dict") and depth < 4:
            outer = _declared(test, position, signature_of, depth + 1)
            member = next((m for m in _members(outer) if m.kind == statement.kind), None)
            if member is None or not member.args:
                return unknown
            if statement.kind == "dict":
                return member.args[positions[0] % 2] if len(member.args) > 1 else unknown
            if statement.kind == "tuple" and not member.variadic:
                return member.args[positions[0]] if positions[0] < len(member.args) else unknown
            return member.args[0]
        return unknown
    return unknown


def _members(spec: TypeSpec) -> tuple[TypeSpec, ...]:
    return spec.args if spec.kind == "union" else (spec,)
