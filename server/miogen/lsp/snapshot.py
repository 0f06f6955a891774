"""One parseable version of a module as the server needs it: units, fingerprints, lines, conditions.

Everything here is static analysis (invariant 1: the server never imports the user's code).
"""

from __future__ import annotations

import ast
import bisect
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from miogen.analysis.model import ModuleModel, Target, Unit
from miogen.analysis.module import (
    analyze_source,
    ast_hash,
    definitions,
    parse_module,
    unit_headers,
)
from miogen.analysis.survey import statement_walk
from miogen.analysis.targets import parse_code

# (start line, start character, end line, end character): 0-based lines, str indices.
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class UnitShape:
    """A unit in one version of the file, with what stale checks and line mapping need."""

    unit: Unit
    fingerprint: str  # changes when the unit's code (or a private helper it calls) changes
    statements: tuple[int, ...]  # coverage.py's statement lines in the unit's ranges (1-based)
    helpers: tuple[str, ...] = ()  # the private helpers counted in the fingerprint

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
    imports: frozenset[str] = frozenset()  # dotted names the module may import (and packages)

    def statement_span(self, line: int) -> Span:
        """The text of a (1-based) line without its indentation and line ending."""
        return line_span(self.lines, line)

    def span_of(self, line: int) -> Span:
        return self.conditions.get(line) or self.statement_span(line)


def line_span(lines: Sequence[str], line: int) -> Span:
    """The text of a (1-based) line without its indentation and line ending."""
    text = lines[line - 1].rstrip("\r\n") if 0 < line <= len(lines) else ""
    start = len(text) - len(text.lstrip())
    return (line - 1, start, line - 1, len(text))


@dataclass(frozen=True)
class Outline:
    """A text's public units from a parse alone: where lenses go before the analysis is done."""

    lines: list[str]
    units: tuple[tuple[str, int], ...]  # (name, first line, 1-based, decorators included)


def outline(source: str) -> Outline | None:
    """The units of ``source`` without its analysis (a parse and a walk of the top level, linear
    in the text; a fifth of the analysis, whose coverage.py arcs, bytecode and hashes take the
    rest). None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return Outline(source.splitlines(keepends=True), tuple(unit_headers(tree)))


def take(source: str, path: str, module_name: str) -> Snapshot:
    """Analyse ``source``; raises ``miogen.common.errors.SourceSyntaxError``."""
    model = analyze_source(source, path, module_name)
    code = parse_code(source)  # cached: the analysis parsed it already
    tree = code.tree if code.tree is not None else parse_module(source, path)
    lines = source.splitlines(keepends=True)
    top_level = {_first_line(node): node for node in tree.body}
    statements = sorted(code.statements)
    units = {}
    # The private units' hashes, by name and first line: most helpers are private units, whose
    # hashes the analysis has (hashing them again was a tenth of a long module's snapshot).
    hashed = {(u.name, u.line): u.ast_hash for u in model.private_units}
    for unit in model.units:
        helpers = _helpers(unit, top_level)
        helper_hashes = [
            hashed.get((name, start)) or ast_hash(top_level[start])
            for name, start in helpers.items()
        ]
        units[unit.name] = UnitShape(
            unit,
            fingerprint(unit.ast_hash, helper_hashes),
            _lines_in(statements, unit.ranges),
            tuple(helpers),
        )
    successors: dict[int, list[int]] = {}
    predecessors: dict[int, list[int]] = {}
    for start, end in sorted(code.parser.arcs()):  # a set: one order for every run
        if start > 0 and end > 0:
            successors.setdefault(start, []).append(end)
            predecessors.setdefault(end, []).append(start)
    conditions, imports = _walk(tree, lines, module_name)
    return Snapshot(
        source,
        model,
        units,
        lines,
        conditions,
        frozenset(_import_time_lines(tree) & code.statements),
        {line: tuple(ends) for line, ends in successors.items()},
        {line: tuple(starts) for line, starts in predecessors.items()},
        imports,
    )


def fingerprint(unit_hash: str, helper_hashes: Sequence[str]) -> str:
    """A unit's fingerprint: its AST hash and those of the private helpers that count as its own."""
    return hashlib.sha256("/".join([unit_hash, *helper_hashes]).encode()).hexdigest()[:16]


def quick_fingerprints(source: str, units: Mapping[str, Sequence[str]]) -> dict[str, str] | None:
    """The fingerprints of ``units`` (name -> its helpers' names, from an earlier analysis) in
    ``source``: a parse and a few hashes, a fraction of an analysis. None when it does not parse;
    a unit no longer defined is left out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    by_name = {
        node.name: node
        for node in definitions(tree.body)
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    }
    return {
        name: fingerprint(
            ast_hash(by_name[name]), [ast_hash(by_name[h]) for h in helpers if h in by_name]
        )
        for name, helpers in units.items()
        if name in by_name
    }


def _lines_in(lines: list[int], ranges: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """The sorted ``lines`` within ``ranges``, found by bisection: a scan of every statement per
    unit made the analysis quadratic in the number of functions."""
    found: set[int] = set()
    for first, last in ranges:
        found.update(lines[bisect.bisect_left(lines, first) : bisect.bisect_right(lines, last)])
    return tuple(sorted(found))


def _helpers(unit: Unit, top_level: dict[int, ast.stmt]) -> dict[str, int]:
    """The private helpers whose lines count as the unit's: name -> first line."""
    found = {}
    for start, _ in unit.ranges:
        node = top_level.get(start)
        name = getattr(node, "name", None)
        if node is not None and name != unit.name:
            found[str(name)] = start
    return found


def _walk(
    tree: ast.Module, lines: list[str], module_name: str
) -> tuple[dict[int, Span], frozenset[str]]:
    """One walk of the tree: the condition spans of branching statements and the imports."""
    spans: dict[int, Span] = {}
    imports: set[str] = set()
    package = module_name.split(".")[:-1]
    for node in statement_walk(tree):  # ast.walk's order; branches and imports are statements
        if isinstance(node, ast.If | ast.While):
            spans[node.lineno] = _span(lines, node.test, node.test)
        elif isinstance(node, ast.For | ast.AsyncFor):
            spans[node.lineno] = _span(lines, node.target, node.iter)
        elif isinstance(node, ast.Match):
            spans[node.lineno] = _span(lines, node.subject, node.subject)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imports.update(_imported(node, package))
    return spans, frozenset(imports)


def imported_names(tree: ast.Module, module_name: str) -> frozenset[str]:
    """Every module the source may import, anywhere in it: ``import a.b`` gives a and a.b,
    ``from .c import d`` (in package p) gives p.c and p.c.d (d may be a module)."""
    return _walk(tree, [], module_name)[1]


def _imported(node: ast.Import | ast.ImportFrom, package: list[str]) -> set[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = package[: len(package) - node.level + 1] if node.level else []
        start = ".".join(base + ([node.module] if node.module else []))
        names = [start] + [f"{start}.{a.name}" if start else a.name for a in node.names]
    found: set[str] = set()
    for name in names:
        parts = [part for part in name.split(".") if part]
        found.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return found


def _first_line(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


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
