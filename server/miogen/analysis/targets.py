"""Coverage goals from coverage.py's own parser, so that target ids are exactly coverage.py's arcs."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from coverage.config import DEFAULT_EXCLUDE
from coverage.misc import join_regex
from coverage.parser import PythonParser

from miogen.analysis.model import Target, Unit

# Words in coverage.py's arc descriptions that mark the "condition false" side of a branch.
_NEGATIVE_MARKERS = ("always true", "didn't complete", "always matched", "was never false")


@dataclass(frozen=True)
class CodeMap:
    """coverage.py's view of the file: statements, branch arcs and the multi-line statement map."""

    statements: frozenset[int]
    branch_arcs: tuple[tuple[int, int], ...]
    parser: PythonParser

    def first_line(self, line: int) -> int:
        return self.parser.first_line(line)


def parse_code(source: str) -> CodeMap:
    """Parse the way coverage.py does, with its default exclusions (``# pragma: no cover``)."""
    # coverage.py's parser takes "" for "no text given": an empty file is one empty line to it.
    parser = PythonParser(text=source or "\n", exclude=join_regex(DEFAULT_EXCLUDE))
    parser.parse_source()
    exits = parser.exit_counts()
    arcs = tuple(sorted(a for a in parser.arcs() if exits.get(a[0], 0) > 1 and a[0] > 0))
    return CodeMap(frozenset(parser.statements), arcs, parser)


def find_targets(source: str, tree: ast.Module, units: Iterable[Unit]) -> dict[str, list[Target]]:
    code = parse_code(source)
    conditions = _conditions(source, tree)
    targets: dict[str, list[Target]] = {}
    next_id = 0
    for unit in units:
        found: list[Target] = []
        arcs = [a for a in code.branch_arcs if unit.contains(a[0])]
        for arc in arcs:
            description = code.parser.missing_arc_description(arc[0], arc[1])
            positive = not any(m in description for m in _NEGATIVE_MARKERS)
            found.append(
                Target(
                    next_id,
                    unit.name,
                    "branch",
                    arc[0],
                    arc,
                    description,
                    positive,
                    conditions.get(arc[0], ""),
                )
            )
            next_id += 1
        for line in _branchless_function_lines(tree, unit, code):
            found.append(
                Target(next_id, unit.name, "line", line, None, f"line {line} was never executed")
            )
            next_id += 1
        targets[unit.name] = found
    return targets


def _conditions(source: str, tree: ast.Module) -> dict[int, str]:
    """Source text of each branching statement's condition, by line."""
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While):
            found[node.lineno] = ast.get_source_segment(source, node.test) or ""
        elif isinstance(node, ast.For | ast.AsyncFor):
            target = ast.get_source_segment(source, node.target) or "_"
            iterable = ast.get_source_segment(source, node.iter) or ""
            found[node.lineno] = f"for {target} in {iterable}"
    return {line: " ".join(text.split()) for line, text in found.items()}


def _functions_of(tree: ast.Module, unit: Unit) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    functions = []
    for node in tree.body:
        if not unit.contains(node.lineno):
            continue
        if isinstance(node, ast.ClassDef):
            functions += [
                n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.append(node)
    return functions


def _branchless_function_lines(tree: ast.Module, unit: Unit, code: CodeMap) -> list[int]:
    """One line goal per function that has no branch of its own: its first body statement."""
    lines = []
    for function in _functions_of(tree, unit):
        body = function.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        if not body:
            continue
        start, end = function.lineno, function.end_lineno or function.lineno
        if any(start <= arc[0] <= end for arc in code.branch_arcs):
            continue
        line = code.first_line(body[0].lineno)
        if line in code.statements:
            lines.append(line)
    return lines
