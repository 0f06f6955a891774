"""Integer parameters that index a sequence parameter of the same function.

``def valid_contextj(label: str, pos: int)`` reads ``label[pos]`` first: a random ``pos``
is past the end of a short label (an IndexError before any branch) or points at a character
the code does not look for. ``pairs_of`` finds, per function (by the line of its ``def``), the
(index, sequence) parameter pairs its body subscripts with: ``seq[i]``, ``seq[i - 1]``,
``seq[i + 1]`` (an integer literal added or taken away). The sampler (testcase.indexing) then
gives the index a position inside the string or list passed for the sequence.
"""

from __future__ import annotations

import ast
import functools

from miogen.analysis.source import FunctionNode, functions_in, parameter_names


@functools.lru_cache(maxsize=16)
def pairs_of(source: str) -> dict[int, tuple[tuple[str, str], ...]]:
    """(index parameter, sequence parameter) pairs per function's ``def`` line; functions
    without any are left out."""
    found: dict[int, tuple[tuple[str, str], ...]] = {}
    for node in functions_in(source):
        pairs = _pairs(node)
        if pairs:
            found[node.lineno] = pairs
    return found


def _pairs(function: FunctionNode) -> tuple[tuple[str, str], ...]:
    names = set(parameter_names(function))
    assigned = _rebound(function)
    pairs: dict[tuple[str, str], None] = {}
    for node in _own_nodes(function):
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
            continue
        sequence = node.value.id
        index = _index_name(node.slice)
        if (
            index is not None
            and index != sequence
            and {index, sequence} <= names
            and not {index, sequence} & assigned
        ):
            pairs[(index, sequence)] = None
    return tuple(pairs)


def _index_name(node: ast.expr) -> str | None:
    """``i``, ``i - K`` and ``i + K`` (K an integer literal): the name ``i``."""
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Add | ast.Sub)
        and isinstance(node.left, ast.Name)
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) is int
    ):
        return node.left.id
    return None


def _own_nodes(function: FunctionNode) -> list[ast.AST]:
    """The nodes of ``function``'s body, not those of functions and classes nested in it."""
    nested = FunctionNode | ast.ClassDef | ast.Lambda
    nodes: list[ast.AST] = []
    pending: list[ast.AST] = [s for s in function.body if not isinstance(s, nested)]
    while pending:
        node = pending.pop()
        nodes.append(node)
        pending.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, nested))
    return nodes


def _rebound(function: FunctionNode) -> set[str]:
    """Names the body assigns (then a subscript no longer reads the argument)."""
    names: set[str] = set()
    for node in _own_nodes(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.comprehension):
            targets = [node.target]
        for target in targets:
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names
