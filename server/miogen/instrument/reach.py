"""Which top-level statements of a module a job's tests can run: the part worth instrumenting.

A job searches one unit (or a few) of a module that may hold hundreds of functions; rewriting
them all costs most of a long module's import. Its tests run the unit's own code, the private
helpers that are part of its goals, whatever the code they call names (module functions and
classes, transitively), and the objects and functions the test itself builds or passes (the
classes its parameters ask for). ``Scope`` names the starting points: line ranges (the units'
``ranges``) and names (what a test may call directly); ``reachable`` follows, from the tree
about to be instrumented, every module-level name those statements load to the statements that
bind it. The rest of the module runs un-instrumented: its code holds none of the job's goals,
and no test of the job calls it by any name the module's code or the test uses.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from miogen.analysis.survey import walk

Lines = tuple[int, int]  # first and last line, decorators included


@dataclass(frozen=True)
class Scope:
    """Where the code a job's tests can run starts: line ranges, and names a test may call."""

    ranges: tuple[Lines, ...]
    names: frozenset[str] = frozenset()


def reachable(tree: ast.Module, scope: Scope) -> list[int]:
    """Indices in ``tree.body`` of the statements ``scope`` reaches, in order.

    Starting points: the statements overlapping ``scope.ranges``, and those binding one of
    ``scope.names``; then every statement binding a name a reached statement loads (its
    decorators, base classes, default values and bodies alike).
    """
    bindings = _bindings(tree.body)
    pending = [i for i, statement in enumerate(tree.body) if _overlaps(statement, scope.ranges)]
    pending += [i for name in scope.names for i in bindings.get(name, ())]
    reached: set[int] = set()
    while pending:
        index = pending.pop()
        if index in reached:
            continue
        reached.add(index)
        for name in _loaded_names(tree.body[index]):
            pending.extend(i for i in bindings.get(name, ()) if i not in reached)
    return sorted(reached)


def part(tree: ast.Module, indices: Sequence[int]) -> ast.Module:
    """A module of the statements at ``indices`` (the same nodes, not copies)."""
    return ast.Module(body=[tree.body[i] for i in indices], type_ignores=[])


def _overlaps(statement: ast.stmt, ranges: Iterable[Lines]) -> bool:
    decorators = getattr(statement, "decorator_list", [])
    start = min([statement.lineno, *(d.lineno for d in decorators)])
    end = statement.end_lineno or statement.lineno
    return any(first <= end and start <= last for first, last in ranges)


def _bindings(body: list[ast.stmt]) -> dict[str, list[int]]:
    """Module-level name -> the top-level statements binding it (definitions and assignments,
    also inside a top-level ``if``/``try``/``with``; imports bind other modules' code)."""
    found: dict[str, list[int]] = {}
    for index, statement in enumerate(body):
        for name in _bound(statement):
            found.setdefault(name, []).append(index)
    return found


def _bound(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {statement.name}
    if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {
            node.id
            for target in targets
            for node in ast.walk(target)
            if isinstance(node, ast.Name)
        }  # fmt: skip
    names: set[str] = set()
    if isinstance(statement, ast.If | ast.Try | ast.TryStar | ast.With | ast.AsyncWith):
        for field in ("body", "orelse", "finalbody"):
            for inner in getattr(statement, field, []):
                names |= _bound(inner)
        for handler in getattr(statement, "handlers", []):
            for inner in handler.body:
                names |= _bound(inner)
    return names


def _loaded_names(statement: ast.stmt) -> set[str]:
    """Every name the statement mentions (a superset of the module-level names it loads)."""
    return {node.id for node in walk(statement) if isinstance(node, ast.Name)}
