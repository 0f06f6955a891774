"""Untyped parameters the body uses as numbers.

A parameter without annotation and without default takes values of any kind in the search,
bools among them; where the body uses it as a number (``if width >= 9``, ``names[day]``,
``range(n)``, ``n * 2``) a ``True``/``False`` there stands for ``1``/``0`` and reads as a flag
that the code does not have (``formatweekday(day=True, width=False)``). This finds such
parameters from the source alone, so that the readable pass turns those bools into numbers.

A use counts as numeric when the parameter (its bare name) is:

- an operand of an ordering comparison (``<``, ``<=``, ``>``, ``>=``), or of ``==``/``!=``
  with a number literal (not a bool);
- an operand of arithmetic (``+ - * / // % **``, unary ``-``, ``y -= 1``), but not the right
  side of ``"..." % p`` (string formatting);
- the index of a subscript (``names[day]``) or a slice bound (``text[:width]``);
- an argument of ``range(...)``.

A parameter also compared with ``True``/``False`` or by ``is`` with them is a flag, never
numeric. Nested functions and classes are not looked into (their names are their own).

Some of those uses take a whole number (``whole_number_uses``): an operand of ``//`` or ``%``,
an index, a slice bound, an argument of ``range()``. There a float the search passed that is a
whole number (``leapdays(179375.0, ...)``, whose body reads ``y1 // 4``) stands for the int it
equals: the code floors it anyway, or would refuse a fraction.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping

from miogen.analysis.source import functions_in, parsed

# (line of the ``def``, function name) -> names of its parameters used as numbers. Read only:
# the readers below are cached per source, and every unit of the module shares their answer.
NumericUses = Mapping[tuple[int, str], frozenset[str]]

_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


# Cached by the source, as the module's other readers: every unit's ``TestFactory`` asks, and
# a module of 35 units paid 35 walks (0.7 s of a 1 s budget, before its search). Read only.
@functools.lru_cache(maxsize=16)
def numeric_uses(source: str) -> NumericUses:
    """Each function's and method's unannotated parameters without default that its body uses
    as a number, keyed by the ``def``'s line and the function's name (as ``Signature.line``
    and ``Signature.name``); functions with none are left out. An unparsable source: none.
    A method's parameter it only passes on to ``super().name(...)`` counts as that method's
    (``_forwarded``)."""
    found: dict[tuple[int, str], frozenset[str]] = {}
    for node in functions_in(source):
        names = _numeric_parameters(node)
        if names:
            found[(node.lineno, node.name)] = names
    return _forwarded(source, found)


@functools.lru_cache(maxsize=16)
def whole_number_uses(source: str) -> NumericUses:
    """Of ``numeric_uses``, the parameters the body uses as whole numbers: with ``//`` or
    ``%``, as an index or a slice bound, in ``range()``; keyed as ``numeric_uses``."""
    found: dict[tuple[int, str], frozenset[str]] = {}
    for node in functions_in(source):
        names = _numeric_parameters(node, whole=True)
        if names:
            found[(node.lineno, node.name)] = names
    return _forwarded(source, found)


MAX_FORWARDS = 4  # a chain of overrides each passing a parameter on to the next


def _forwarded(source: str, found: NumericUses) -> NumericUses:
    """``found`` with the parameters a method passes to ``super().name(...)`` (by position or
    keyword, as a bare name) where the overridden method of a base class of the module uses
    the matching parameter as a number: ``LocaleTextCalendar.formatweekday(self, day, width)``
    only forwards both to ``TextCalendar.formatweekday``, which reads ``names[day]``."""
    tree = parsed(source)
    if tree is None:
        return found
    classes = {c.name: c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)}
    found = dict(found)
    for _ in range(MAX_FORWARDS):
        added = False
        for cls in classes.values():
            for method in cls.body:
                if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                names = _passed_on(method, cls, classes, found)
                key = (method.lineno, method.name)
                if names - found.get(key, frozenset()):
                    found[key] = found.get(key, frozenset()) | names
                    added = True
        if not added:
            break
    return found


def _passed_on(
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    cls: ast.ClassDef,
    classes: dict[str, ast.ClassDef],
    found: NumericUses,
) -> frozenset[str]:
    candidates = _untyped_without_default(method.args)
    flags: set[str] = set()
    passed: set[str] = set()
    for node in _own_nodes(method):
        flags |= _flag_names(node)
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        if not (
            isinstance(receiver, ast.Call)
            and isinstance(receiver.func, ast.Name)
            and receiver.func.id == "super"
        ):
            continue
        overridden = _overridden(cls, node.func.attr, classes)
        if overridden is None:
            continue
        numeric = found.get((overridden.lineno, overridden.name), frozenset())
        positional = [a.arg for a in [*overridden.args.posonlyargs, *overridden.args.args]]
        positional = positional[1:] if positional[:1] in (["self"], ["cls"]) else positional
        pairs = [(_name(a), p) for a, p in zip(node.args, positional, strict=False)]
        pairs += [(_name(k.value), k.arg or "") for k in node.keywords]
        passed |= {mine for mine, theirs in pairs if mine in candidates and theirs in numeric}
    return frozenset(passed - flags)


def _overridden(
    cls: ast.ClassDef, name: str, classes: dict[str, ast.ClassDef]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method ``name`` of the first base class of the module (depth first) defining it."""
    pending = [b.id for b in cls.bases if isinstance(b, ast.Name)]
    seen: set[str] = set()
    while pending:
        base = pending.pop(0)
        if base in seen or base not in classes:
            continue
        seen.add(base)
        for node in classes[base].body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                return node
        pending = [b.id for b in classes[base].bases if isinstance(b, ast.Name)] + pending
    return None


def _numeric_parameters(
    function: ast.FunctionDef | ast.AsyncFunctionDef, whole: bool = False
) -> frozenset[str]:
    candidates = _untyped_without_default(function.args)
    if not candidates:
        return frozenset()
    numeric: set[str] = set()
    flags: set[str] = set()
    for node in _own_nodes(function):
        found = _whole_names(node) if whole else _numeric_names(node)
        numeric |= found & candidates
        flags |= _flag_names(node) & candidates
    return frozenset(numeric - flags)


def _untyped_without_default(arguments: ast.arguments) -> set[str]:
    positional = [*arguments.posonlyargs, *arguments.args]
    without = positional[: len(positional) - len(arguments.defaults)]
    without += [
        a for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is None
    ]
    return {a.arg for a in without if a.annotation is None and a.arg not in ("self", "cls")}


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The nodes of the body, not those of nested functions, lambdas and classes."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = [s for s in function.body if not isinstance(s, _NESTED)]
    while pending:
        node = pending.pop()
        found.append(node)
        pending += [c for c in ast.iter_child_nodes(node) if not isinstance(c, _NESTED)]
    return found


def _numeric_names(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        found: set[str] = set()
        for position, operator in enumerate(node.ops):
            pair = sides[position], sides[position + 1]
            if isinstance(operator, _ORDERING):
                found |= {_name(side) for side in pair}
            elif isinstance(operator, ast.Eq | ast.NotEq):
                for side, other in (pair, pair[::-1]):
                    if _is_number(other):
                        found.add(_name(side))
        return found - {""}
    if isinstance(node, ast.AugAssign) and isinstance(node.op, _ARITHMETIC):  # y -= 1
        return {_name(node.target), _name(node.value)} - {""}
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        operands = [node.left, node.right]
        if isinstance(node.op, ast.Mod) and _is_text(node.left):
            operands = [node.left]  # "%s" % p formats p
        return {_name(side) for side in operands} - {""}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return {_name(node.operand)} - {""}
    if isinstance(node, ast.Subscript):
        index = node.slice
        parts = [index.lower, index.upper, index.step] if isinstance(index, ast.Slice) else [index]
        return {_name(part) for part in parts if part is not None} - {""}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return {_name(argument) for argument in node.args} - {""}
    return set()


def _whole_names(node: ast.AST) -> set[str]:
    """The names ``node`` uses as whole numbers: operands of ``//`` and ``%`` (not a text
    formatted by ``%``), indexes, slice bounds, arguments of ``range()``."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.FloorDiv | ast.Mod):
        return {_name(node.target), _name(node.value)} - {""}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv | ast.Mod):
        if isinstance(node.op, ast.Mod) and _is_text(node.left):
            return set()
        return {_name(node.left), _name(node.right)} - {""}
    if isinstance(node, ast.Subscript | ast.Call):
        return _numeric_names(node)
    return set()


def _flag_names(node: ast.AST) -> set[str]:
    """Names compared with ``True``/``False`` (``==``, ``!=``, ``is``, ``is not``)."""
    if not isinstance(node, ast.Compare):
        return set()
    sides = [node.left, *node.comparators]
    found: set[str] = set()
    for position in range(len(node.ops)):
        pair = sides[position], sides[position + 1]
        for side, other in (pair, pair[::-1]):
            if isinstance(other, ast.Constant) and isinstance(other.value, bool):
                found.add(_name(side))
    return found - {""}


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    )


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
    )
