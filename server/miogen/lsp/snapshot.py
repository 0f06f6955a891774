"""One parseable version of a module as the server needs it: units, fingerprints, lines, conditions.

Everything here is static analysis (invariant 1: the server never imports the user's code).
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field

from miogen.analysis.model import ModuleModel, Target, Unit
from miogen.analysis.module import analyze_source, ast_hash, parse_module
from miogen.analysis.targets import parse_code

# (start line, start character, end line, end character): 0-based lines, str indices.
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class UnitShape:
    """A unit in one version of the file, with what stale checks and line mapping need."""

    unit: Unit
    fingerprint: str  # changes when the unit's code (or a private helper it calls) changes
    statements: tuple[int, ...]  # coverage.py's statement lines in the unit's ranges (1-based)

    @property
    def name(self) -> str:
        return self.unit.name

    @property
    def targets(self) -> tuple[Target, ...]:
        return self.unit.targets


@dataclass
class Snapshot:
    """A parsed version of a module (raises SourceSyntaxError from ``take`` when it does not parse)."""

    source: str
    model: ModuleModel
    units: dict[str, UnitShape]
    lines: list[str]  # the source's lines with their endings (for position conversion)
    conditions: dict[int, Span] = field(default_factory=dict)  # branch line -> condition span
    import_time: frozenset[int] = frozenset()  # statement lines that run when the module loads
    successors: dict[int, tuple[int, ...]] = field(default_factory=dict)  # coverage.py arcs
    predecessors: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def statement_span(self, line: int) -> Span:
        """The text of a (1-based) line without its indentation and line ending."""
        text = self.lines[line - 1].rstrip("\r\n") if 0 < line <= len(self.lines) else ""
        start = len(text) - len(text.lstrip())
        return (line - 1, start, line - 1, len(text))

    def span_of(self, line: int) -> Span:
        return self.conditions.get(line) or self.statement_span(line)


def take(source: str, path: str, module_name: str) -> Snapshot:
    """Analyse ``source``; raises ``miogen.errors.SourceSyntaxError``."""
    tree = parse_module(source, path)
    model = analyze_source(source, path, module_name)
    code = parse_code(source)
    lines = source.splitlines(keepends=True)
    top_level = {_first_line(node): node for node in tree.body}
    units = {
        unit.name: UnitShape(
            unit,
            _fingerprint(unit, top_level),
            tuple(sorted(line for line in code.statements if unit.contains(line))),
        )
        for unit in model.units
    }
    successors: dict[int, list[int]] = {}
    predecessors: dict[int, list[int]] = {}
    for start, end in code.parser.arcs():
        if start > 0 and end > 0:
            successors.setdefault(start, []).append(end)
            predecessors.setdefault(end, []).append(start)
    return Snapshot(
        source,
        model,
        units,
        lines,
        _condition_spans(tree, lines),
        frozenset(_import_time_lines(tree) & code.statements),
        {line: tuple(ends) for line, ends in successors.items()},
        {line: tuple(starts) for line, starts in predecessors.items()},
    )


def _first_line(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def _fingerprint(unit: Unit, top_level: dict[int, ast.stmt]) -> str:
    """The unit's AST hash plus those of the helpers whose lines count as the unit's."""
    hashes = [unit.ast_hash]
    for start, _ in unit.ranges:
        node = top_level.get(start)
        if node is not None and getattr(node, "name", None) != unit.name:
            hashes.append(ast_hash(node))
    return hashlib.sha256("/".join(hashes).encode()).hexdigest()[:16]


def _character(lines: list[str], line: int, byte_offset: int) -> int:
    """AST column offsets count UTF-8 bytes; positions here count characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _span(lines: list[str], first: ast.expr | ast.stmt, last: ast.expr | ast.stmt) -> Span:
    end_line = last.end_lineno or last.lineno
    end_column = last.end_col_offset if last.end_col_offset is not None else last.col_offset
    return (
        first.lineno - 1,
        _character(lines, first.lineno, first.col_offset),
        end_line - 1,
        _character(lines, end_line, end_column),
    )


def _condition_spans(tree: ast.Module, lines: list[str]) -> dict[int, Span]:
    """Where the condition of each branching statement is, keyed by the statement's line."""
    spans: dict[int, Span] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While):
            spans[node.lineno] = _span(lines, node.test, node.test)
        elif isinstance(node, ast.For | ast.AsyncFor):
            spans[node.lineno] = _span(lines, node.target, node.iter)
        elif isinstance(node, ast.Match):
            spans[node.lineno] = _span(lines, node.subject, node.subject)
    return spans


def _import_time_lines(tree: ast.Module) -> set[int]:
    """Lines of statements in module and class bodies (def, class and decorator lines included)."""
    found: set[int] = set()
    pending: list[list[ast.stmt]] = [tree.body]
    while pending:
        for node in pending.pop():
            found.update((node.lineno, _first_line(node)))
            if isinstance(node, ast.ClassDef):
                pending.append(node.body)
    return found
