"""Coverage goals from coverage.py's own parser, so that target ids are exactly coverage.py's arcs."""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from coverage.config import DEFAULT_EXCLUDE
from coverage.misc import join_regex
from coverage.parser import PythonParser

from miogen.analysis.model import Target, Unit
from miogen.analysis.survey import Survey, is_abstract, survey

# Words in coverage.py's arc descriptions that mark the "condition false" side of a branch.
_NEGATIVE_MARKERS = ("always true", "didn't complete", "always matched", "was never false")


@dataclass(frozen=True)
class CodeMap:
    """coverage.py's view of the file: statements, branch arcs and the multi-line statement map."""

    statements: frozenset[int]
    branch_arcs: tuple[tuple[int, int], ...]
    parser: PythonParser
    # coverage.py's syntax tree of the source (read-only: the analysis reads it, never changes it).
    tree: ast.Module | None = field(default=None, compare=False, repr=False)

    def first_line(self, line: int) -> int:
        return self.parser.first_line(line)


@functools.lru_cache(maxsize=8)
def parse_code(source: str) -> CodeMap:
    """Parse the way coverage.py does, with its default exclusions (``# pragma: no cover``).

    Cached by source text: the analysis, the engine, the verification and the language server
    each ask for the same module's map; a CodeMap is never changed after it is built.
    """
    # coverage.py's parser takes "" for "no text given": an empty file is one empty line to it.
    parser = PythonParser(text=source or "\n", exclude=join_regex(DEFAULT_EXCLUDE))
    parser.parse_source()
    tree = getattr(parser, "_ast_root", None)  # coverage.py drops it once the arcs are known
    exits = parser.exit_counts()
    arcs = tuple(sorted(a for a in parser.arcs() if exits.get(a[0], 0) > 1 and a[0] > 0))
    shared = tree if isinstance(tree, ast.Module) and source else None
    return CodeMap(frozenset(parser.statements), arcs, parser, shared)


def find_targets(
    source: str, tree: ast.Module, units: Iterable[Unit], walked: Survey | None = None
) -> dict[str, list[Target]]:
    code = parse_code(source)
    conditions = _conditions(source, walked or survey(tree))
    targets: dict[str, list[Target]] = {}
    next_id = 0
    starts = [arc[0] for arc in code.branch_arcs]  # sorted: the arcs are
    body_lines = [node.lineno for node in tree.body]  # sorted: the body is in source order
    for unit in units:
        found: list[Target] = []
        arcs = [arc for start, end in unit.ranges for arc in _arcs_from(code, starts, start, end)]
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
        for line in _branchless_function_lines(tree, body_lines, unit, code, starts):
            found.append(
                Target(next_id, unit.name, "line", line, None, f"line {line} was never executed")
            )
            next_id += 1
        targets[unit.name] = found
    return targets


def _conditions(source: str, walked: Survey) -> dict[int, str]:
    """Source text of each branching statement's condition, by line."""
    segment = SourceSegments(source)
    found: dict[int, str] = {}
    for node in walked.of_type(ast.If, ast.While, ast.For, ast.AsyncFor):
        if isinstance(node, ast.If | ast.While):
            found[node.lineno] = segment(node.test)
        elif isinstance(node, ast.For | ast.AsyncFor):
            found[node.lineno] = f"for {segment(node.target) or '_'} in {segment(node.iter)}"
    return {line: " ".join(text.split()) for line, text in found.items()}


class SourceSegments:
    """``ast.get_source_segment`` over a source split once (it splits the whole source per call,
    which made the analysis of a 2,500-line module quadratic: seconds instead of milliseconds)."""

    def __init__(self, source: str) -> None:
        # The same line breaks as the parser's (form feeds and other separators stay inside).
        self.lines = _LINE_BREAKS.split(source)
        self.encoded: dict[int, bytes] = {}

    def _line(self, index: int) -> bytes:
        encoded = self.encoded.get(index)
        if encoded is None:
            encoded = self.encoded[index] = self.lines[index].encode()
        return encoded

    def __call__(self, node: ast.AST) -> str:
        """The node's source text ('' when it has no complete position)."""
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None or end_line > len(self.lines):
            return ""
        first, last = node.lineno - 1, end_line - 1  # type: ignore[attr-defined]
        start = node.col_offset  # type: ignore[attr-defined]  # UTF-8 byte offsets, as the parser's
        if first == last:
            return self._line(first)[start:end_col].decode()
        parts = [self._line(first)[start:], *map(self._line, range(first + 1, last))]
        parts.append(self._line(last)[:end_col])
        return b"\n".join(parts).decode()


_LINE_BREAKS = re.compile(r"\r\n|\r|\n")


def _functions_of(
    tree: ast.Module, body_lines: list[int], unit: Unit
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions and methods defined in the unit's ranges (``body_lines``: the first lines
    of the module's statements). Found by bisection: a scan of the whole module per unit made
    the analysis quadratic in the number of functions."""
    functions = []
    for node in _top_level_in(tree, body_lines, unit.ranges):
        if isinstance(node, ast.ClassDef):
            functions += [
                n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.append(node)
    return functions


def _top_level_in(
    tree: ast.Module, body_lines: list[int], ranges: Iterable[tuple[int, int]]
) -> list[ast.stmt]:
    """The module's statements whose first line lies in one of ``ranges``, in source order."""
    indices: set[int] = set()
    for first, last in ranges:
        indices.update(
            range(bisect.bisect_left(body_lines, first), bisect.bisect_right(body_lines, last))
        )
    return [tree.body[index] for index in sorted(indices)]


def _arcs_from(
    code: CodeMap, starts: list[int], first: int, last: int
) -> tuple[tuple[int, int], ...]:
    """The branch arcs leaving lines ``first``..``last`` (``starts``: their sorted first lines)."""
    return code.branch_arcs[bisect.bisect_left(starts, first) : bisect.bisect_right(starts, last)]


def _branchless_function_lines(
    tree: ast.Module, body_lines: list[int], unit: Unit, code: CodeMap, starts: list[int]
) -> list[int]:
    """One line goal per function that has no branch of its own: its first body statement."""
    lines = []
    for function in _functions_of(tree, body_lines, unit):
        if is_abstract(function):
            continue  # an interface method: subclasses run their own code, never this
        body = function.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        if not body:
            continue
        start, end = function.lineno, function.end_lineno or function.lineno
        if _arcs_from(code, starts, start, end):
            continue
        line = code.first_line(body[0].lineno)
        if line in code.statements:
            lines.append(line)
    return lines
