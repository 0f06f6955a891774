"""What a type checker sees of a decorated function: the type its decorator gives.

``@register("Act/360")`` over ``def dcfc(start, asof, end, freq=None)`` where ``register``
returns ``Callable[[DCFC], DCFC]`` and ``DCFC = Callable[[date, date, date, Decimal | None],
Decimal]``: the name is bound to a ``DCFC``, which takes four arguments, each by position and
none optional. Calls written from the ``def`` alone (three dates, ``freq`` left out) run, yet
mypy refuses them ("Too few arguments"). Only a decorator of the module whose result is a
``Callable`` with its parameters listed is read; one that keeps the function's own type (a
TypeVar, ``Callable[..., R]``, no annotation) changes nothing.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from miogen.analysis.bindings import ANNOTATED, ASSIGN, bound_once, resolved, top_level
from miogen.analysis.model import NO_DEFAULT, Signature

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def callable_arities(tree: ast.Module) -> dict[str, int]:
    """Module-level function name -> the number of parameters of the ``Callable[[...], R]``
    that its decorator binds the name to, for the functions whose decorator gives one."""
    aliases = _aliases(tree)
    functions = {n.name: n for n in tree.body if isinstance(n, FunctionNode)}
    found: dict[str, int] = {}
    for node in tree.body:
        if not isinstance(node, FunctionNode) or not node.decorator_list:
            continue
        # The outermost decorator gives the name its type.
        arity = _decorated_arity(node.decorator_list[0], functions, aliases)
        if arity is not None:
            found[node.name] = arity
    return found


def as_decorated(signature: Signature, arity: int | None) -> Signature:
    """``signature`` as called through a ``Callable`` of ``arity`` parameters: each by position
    and given (a default is not seen through the ``Callable``). Unchanged when the parameters
    do not line up with that many (keyword-only ones, ``*args``, another count)."""
    if arity is None:
        return signature
    params = signature.params
    if any(p.keyword_only or p.name.startswith("*") for p in params) or len(params) != arity:
        return signature
    positional = tuple(
        replace(p, name="/" + p.name.lstrip("/"), default=NO_DEFAULT, has_default=False)
        for p in params
    )
    return replace(signature, params=positional)


def _decorated_arity(
    decorator: ast.expr, functions: dict[str, FunctionNode], aliases: dict[str, ast.expr]
) -> int | None:
    called = isinstance(decorator, ast.Call)
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if not isinstance(target, ast.Name) or target.id not in functions:
        return None
    returns = resolved(functions[target.id].returns, aliases)
    if called:  # @factory(...): the factory returns the decorator, Callable[[F], G]
        parts = _callable_parts(returns)
        if parts is None:
            return None
        returns = resolved(parts[1], aliases)
    parts = _callable_parts(returns)
    if parts is None or not isinstance(parts[0], ast.List):
        return None
    return len(parts[0].elts)


def _callable_parts(node: ast.expr | None) -> tuple[ast.expr, ast.expr] | None:
    """(parameters, result) of ``Callable[parameters, result]``."""
    if not isinstance(node, ast.Subscript):
        return None
    name = node.value
    spelled = name.attr if isinstance(name, ast.Attribute) else getattr(name, "id", "")
    if spelled != "Callable" or not isinstance(node.slice, ast.Tuple):
        return None
    if len(node.slice.elts) != 2:
        return None
    return node.slice.elts[0], node.slice.elts[1]


def _aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``Name = Callable[...]`` (or ``Name: TypeAlias = ...``), bound once."""
    bindings = [
        b
        for b in top_level(tree, ASSIGN, ANNOTATED)
        if (b.sole if b.kind == ASSIGN else b.value is not None)
    ]
    return {b.name: b.value for b in bound_once(bindings) if b.value is not None}
