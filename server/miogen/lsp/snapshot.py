"""One parseable version of a module as the server needs it: units, fingerprints, lines, conditions.

Everything here is static analysis (invariant 1: the server never imports the user's code).
"""

from __future__ import annotations

import ast
import bisect
import copy
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from miogen.analysis.model import ModuleModel, Target, Unit
from miogen.analysis.module import (
    analyze_source,
    ast_hash,
    definitions,
    outline_source,
    outline_tree,
    parse_module,
    unit_headers,
    unit_segment,
    unit_targets,
)
from miogen.analysis.survey import STATEMENT_FIELDS, statement_walk
from miogen.analysis.targets import parse_code
from miogen.common.syntax import parse

# (start line, start character, end line, end character): 0-based lines, str indices.
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class UnitShape:
    """A unit in one version of the file, with what stale checks and line mapping need."""

    unit: Unit
    fingerprint: str  # changes when the unit's code (or a private helper it calls) changes
    statements: tuple[int, ...]  # coverage.py's statement lines in the unit's ranges (1-based)
    helpers: tuple[str, ...] = ()  # the private helpers counted in the fingerprint
    # False: an outline (a long text's unit not asked for yet): no targets, no statements yet
    # (``Snapshot.detailed`` gives them); its name, lines, ranges and fingerprint are final.
    detailed: bool = True

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

    def undetailed(self, names: Iterable[str]) -> list[str]:
        """Those of ``names`` that are units of this text still without their targets."""
        return [n for n in names if n in self.units and not self.units[n].detailed]

    def add(self, details: Details) -> None:
        """Take the units' targets and lines (``details`` of this text): the shapes are replaced
        (a shape read before stays an outline), the model's units too; the lines and arcs are
        added to those of the units detailed before."""
        self.units.update(details.units)
        self.conditions.update(details.conditions)
        self.import_time = self.import_time | details.import_time
        self.successors = {**self.successors, **details.successors}
        self.predecessors = {**self.predecessors, **details.predecessors}
        done = {name: shape.unit for name, shape in details.units.items()}
        self.model.units = [done.get(u.name, u) for u in self.model.units]
        self.model.private_units = [done.get(u.name, u) for u in self.model.private_units]


@dataclass(frozen=True)
class Details:
    """Some units of one text with their targets and statements, and what the views read of the
    text (of the whole text, or of those units' lines: ``Snapshot.add`` takes them into the
    text's snapshot)."""

    units: dict[str, UnitShape]
    conditions: dict[int, Span]  # of the branching statements in those units
    import_time: frozenset[int]  # statement lines that run when the module loads
    successors: dict[int, tuple[int, ...]]  # coverage.py's arcs between lines
    predecessors: dict[int, tuple[int, ...]]


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
        tree = parse(source)
    except (SyntaxError, ValueError):
        return None
    return Outline(source.splitlines(keepends=True), tuple(unit_headers(tree)))


def take(source: str, path: str, module_name: str, *, outline: bool = False) -> Snapshot:
    """Analyse ``source``; raises ``miogen.common.errors.SourceSyntaxError``.

    ``outline``: only what the editor needs of every unit at once (names, lines, fingerprints:
    lenses, the coverage notification's units, what a save changed), from a parse and a walk of
    the tree; each unit stays an outline until ``details`` gives its targets and lines, exactly
    as the whole analysis has them. Otherwise every unit is detailed.
    """
    if outline:
        model, tree = (
            outline_source(source, path, module_name),
            outline_tree(source, path, module_name),
        )
    else:
        model = analyze_source(source, path, module_name)
        code = parse_code(source)  # cached: the analysis parsed it already
        tree = code.tree if code.tree is not None else parse_module(source, path)
    model = copy.copy(model)  # the analysis keeps its own: ``Snapshot.add`` changes this one
    lines = source.splitlines(keepends=True)
    units = _outlines(model, tree)
    if outline:
        return Snapshot(source, model, units, lines, imports=_imports(tree, module_name))
    conditions, imports = _walk(statement_walk(tree), lines, module_name)
    snapshot = Snapshot(source, model, units, lines, imports=imports)
    snapshot.add(_details(source, units, conditions))
    return snapshot


def details(source: str, path: str, module_name: str, names: Iterable[str]) -> Details:
    """The public units ``names`` of ``source`` with their targets and statement lines, and the
    views' facts of their lines (import-time lines, arcs) for ``Snapshot.add``: the same as
    ``take`` without ``outline`` gives, from coverage.py's parse of those units' lines alone
    (``unit_segment``: a long text's other units are neither parsed again nor counted)."""
    model, tree = outline_source(source, path, module_name), outline_tree(source, path, module_name)
    public = {u.name for u in model.units}
    wanted = [name for name in dict.fromkeys(names) if name in public]
    targets = unit_targets(source, path, module_name, wanted)
    outlines = _outlines(model, tree, set(wanted))
    shapes = {
        name: replace(shape, unit=replace(shape.unit, targets=targets[name]))
        for name, shape in outlines.items()
    }
    ranges = [r for shape in shapes.values() for r in shape.unit.ranges]
    lines = source.splitlines(keepends=True)
    conditions, _ = _walk(_statements_in(tree, ranges), lines, module_name)
    return _details(unit_segment(source, path, module_name, wanted), shapes, conditions, ranges)


def _outlines(
    model: ModuleModel, tree: ast.Module, names: set[str] | None = None
) -> dict[str, UnitShape]:
    """The public units (or those ``names``) as outlines, with their fingerprints."""
    top_level = {_first_line(node): node for node in tree.body}
    units = {}
    # The private units' hashes, by name and first line: most helpers are private units, whose
    # hashes the analysis has (hashing them again was a tenth of a long module's snapshot).
    hashed = {(u.name, u.line): u.ast_hash for u in model.private_units}
    for unit in model.units:
        if names is not None and unit.name not in names:
            continue
        helpers = _helpers(unit, top_level)
        helper_hashes = [
            hashed.get((name, start)) or ast_hash(top_level[start])
            for name, start in helpers.items()
        ]
        units[unit.name] = UnitShape(
            unit, fingerprint(unit.ast_hash, helper_hashes), (), tuple(helpers), detailed=False
        )
    return units


def _details(
    source: str,
    shapes: dict[str, UnitShape],
    conditions: dict[int, Span],
    ranges: Sequence[tuple[int, int]] | None = None,
) -> Details:
    """``shapes`` (with their targets) detailed: their statement lines from coverage.py's parse
    of ``source``, and the views' facts of the whole text; with ``ranges``, ``source`` is a
    segment of the text (``unit_segment``) and the facts are those of the lines in ``ranges``
    (a segment's arcs between its ranges are not the text's)."""
    code = parse_code(source)
    statements = sorted(code.statements)
    detailed = {
        name: replace(shape, statements=_lines_in(statements, shape.unit.ranges), detailed=True)
        for name, shape in shapes.items()
    }
    successors: dict[int, list[int]] = {}
    predecessors: dict[int, list[int]] = {}
    inside = (lambda line: True) if ranges is None else _within(ranges)
    for start, end in sorted(code.parser.arcs()):  # a set: one order for every run
        if start > 0 and end > 0 and inside(start) and inside(end):
            successors.setdefault(start, []).append(end)
            predecessors.setdefault(end, []).append(start)
    tree = code.tree if code.tree is not None else parse(source)
    import_time = _import_time_lines(tree) & code.statements
    return Details(
        detailed,
        conditions,
        frozenset(line for line in import_time if inside(line)),
        {line: tuple(ends) for line, ends in successors.items()},
        {line: tuple(starts) for line, starts in predecessors.items()},
    )


def _within(ranges: Sequence[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether a line lies in one of ``ranges``."""
    return lambda line: any(first <= line <= last for first, last in ranges)


def _statements_in(tree: ast.Module, ranges: Sequence[tuple[int, int]]) -> list[ast.AST]:
    """The statements (as ``statement_walk`` finds them) of the top-level statements that begin
    in ``ranges``."""
    found: list[ast.AST] = []
    for node in tree.body:
        if any(first <= _first_line(node) <= last for first, last in ranges):
            pending: list[ast.AST] = [node]
            while pending:
                current = pending.pop()
                found.append(current)
                for name in current._fields:
                    if name in STATEMENT_FIELDS:
                        pending.extend(getattr(current, name))
    return found


def fingerprint(unit_hash: str, helper_hashes: Sequence[str]) -> str:
    """A unit's fingerprint: its AST hash and those of the private helpers that count as its own."""
    return hashlib.sha256("/".join([unit_hash, *helper_hashes]).encode()).hexdigest()[:16]


def quick_fingerprints(source: str, units: Mapping[str, Sequence[str]]) -> dict[str, str] | None:
    """The fingerprints of ``units`` (name -> its helpers' names, from an earlier analysis) in
    ``source``: a parse and a few hashes, a fraction of an analysis. None when it does not parse;
    a unit no longer defined is left out."""
    try:
        tree = parse(source)
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
    statements: Iterable[ast.AST], lines: list[str], module_name: str
) -> tuple[dict[int, Span], frozenset[str]]:
    """One walk of the statements: the condition spans of branching statements and the imports."""
    spans: dict[int, Span] = {}
    imports: set[str] = set()
    package = module_name.split(".")[:-1]
    for node in statements:  # ast.walk's order; branches and imports are statements
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
    return _imports(tree, module_name)


def _imports(tree: ast.Module, module_name: str) -> frozenset[str]:
    package = module_name.split(".")[:-1]
    found: set[str] = set()
    for node in statement_walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(_imported(node, package))
    return frozenset(found)


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
