"""Where a parameter stops holding the caller's value: ``tz = groups[tz]``, ``x = f(x)``.

After such an assignment the name holds a value made *from* the parameter, so what the body
does with it afterwards (``tz.strip()``, ``tz[0]``) tells the type of the converted value, not
the parameter's: in ``tz = groups[tz]`` the parameter is an index, and a string sampled for it
never gets past the subscript. ``converted_at`` gives the last line of the first such assignment;
inference reads only the uses up to it (the assignment's value included). A value that may pass
the parameter through unchanged (``data = data or {}``, ``x = x if x else []``) converts
nothing: the uses after it still describe the parameter. Nor does a builtin type's constructor
(``data = list(data)``, ``n = int(n)``, ``items = sorted(items)``): a parameter of that type
comes out of it as an equal value, so the uses after it tell a type the parameter may have
(statistics' ``data = list(data)`` then ``data[0]``: without them ``data`` was ``any``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

# Builtins that, given a value of the type they make, make an equal one (``sorted``: reordered).
SAME_TYPE_CONVERSIONS = frozenset(
    {"list", "tuple", "set", "frozenset", "dict", "str", "bytes", "int", "float", "bool", "sorted"}
)


def converted_at(nodes: Iterable[ast.AST], name: str) -> int | None:
    """The last line of the first assignment of a value read from ``name`` to ``name`` among
    ``nodes`` (a function's nodes), or None where there is none."""
    first: int | None = None
    for node in nodes:
        if not isinstance(node, ast.Assign) or not any(_binds(t, name) for t in node.targets):
            continue
        if _reads(node.value, name) and not _passes_through(node.value, name):
            end = node.end_lineno or node.lineno
            first = end if first is None else min(first, end)
    return first


def _binds(target: ast.expr, name: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, ast.Tuple | ast.List):
        return any(_binds(t, name) for t in target.elts)
    return False


def _reads(value: ast.expr, name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        for n in ast.walk(value)
    )


def _passes_through(value: ast.expr, name: str) -> bool:
    """Whether ``value`` may be the parameter itself, or equal to it where the parameter has
    the type it is converted to: ``p or default``, ``p if c else d``, ``list(p)``."""
    if isinstance(value, ast.Name):
        return value.id == name
    if isinstance(value, ast.BoolOp):
        return any(_passes_through(v, name) for v in value.values)
    if isinstance(value, ast.IfExp):
        return _passes_through(value.body, name) or _passes_through(value.orelse, name)
    if isinstance(value, ast.NamedExpr):
        return _passes_through(value.value, name)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return (
            value.func.id in SAME_TYPE_CONVERSIONS
            and len(value.args) == 1
            and not value.keywords
            and _passes_through(value.args[0], name)
        )
    return False
