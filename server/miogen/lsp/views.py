"""What the editor is shown about one unit: coverage from a job, moved onto the current text.

A view is kept in the coordinates of the source its job ran on. Rendering pairs it with the unit as
the editor has it now: when their fingerprints differ the view is stale and shows nothing; when
they agree, targets pair up by position and statement lines by order, so results follow the code
when lines above it are added or removed, or when the unit is only reformatted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from miogen.analysis.model import Target
from miogen.common.records import CriterionCoverage, TestRecord, Uncovered
from miogen.emit.gate import Gated
from miogen.lsp.snapshot import Snapshot, UnitShape


@dataclass(frozen=True)
class UnitView:
    """Coverage of a unit from one job (streamed claims, or the verified final result)."""

    shape: UnitShape  # the unit as the job saw it
    covered: frozenset[int]  # target ids
    executed: frozenset[int]  # executed statement lines, in the job's coordinates
    closest: dict[int, str] = field(default_factory=dict)  # uncovered target id -> closest miss
    covering_test: dict[int, str] = field(default_factory=dict)  # target id -> test name
    tests: tuple[TestRecord, ...] = ()  # the rendered tests (final views only)
    final: bool = False
    module_state: bool = False  # the module keeps state: its tests need the fresh-state fixture
    # The other criteria on the emitted tests (final views): criterion -> covered of total.
    criteria: dict[str, CriterionCoverage] = field(default_factory=dict)
    # The project's checkers' gate on the tests (``run.gate``): its fixes, at the insertion.
    gated: Gated | None = None

    @property
    def fingerprint(self) -> str:
        return self.shape.fingerprint

    @property
    def total(self) -> int:
        return len(self.shape.targets)


@dataclass(frozen=True)
class Branch:
    """One target as rendered on the current text."""

    target: Target  # the current text's target (lines are current)
    covered: bool
    closest: str = ""
    test: str = ""  # the covering test's name, when known


@dataclass
class Rendered:
    """A unit's view on the current text: 1-based line sets and one entry per target."""

    covered: set[int] = field(default_factory=set)
    partial: set[int] = field(default_factory=set)
    uncovered: set[int] = field(default_factory=set)
    branches: list[Branch] = field(default_factory=list)


# --- building views -----------------------------------------------------------------------


def streamed_view(shape: UnitShape, snapshot: Snapshot, covered: Iterable[int]) -> UnitView:
    """The search's claims while it runs; executed lines are inferred from the covered targets."""
    covered = frozenset(covered) & {t.id for t in shape.targets}
    return UnitView(shape, covered, infer_executed(shape, snapshot, covered))


def final_view(
    shape: UnitShape,
    covered: Iterable[int],
    executed: Iterable[int],
    tests: Sequence[TestRecord],
    uncovered: Sequence[Uncovered],
    module_state: bool = False,
    criteria: Mapping[str, CriterionCoverage] | None = None,
    gated: Gated | None = None,
) -> UnitView:
    """The verified result: coverage.py's measured targets and lines, and the tests that stay."""
    ids = {t.id for t in shape.targets}
    covered = frozenset(covered) & ids
    covering: dict[int, str] = {}
    for test in tests:
        for target in test.targets:
            if target in covered:
                covering.setdefault(target, test.name)
    closest = {item.id: item.closest for item in uncovered if item.id in ids}
    lines = frozenset(executed) & set(shape.statements)
    return UnitView(
        shape, covered, lines, closest, covering, tuple(tests), final=True,
        module_state=module_state, criteria=dict(criteria or {}), gated=gated,
    )  # fmt: skip


def infer_executed(shape: UnitShape, snapshot: Snapshot, covered: frozenset[int]) -> frozenset[int]:
    """Lines that must have run for the covered targets to be covered (no exceptions assumed).

    Seeds: both ends of covered arcs, covered line targets, and lines that run on import. Then a
    line with a single successor passes execution forward, and a line with a single predecessor
    passes it backward.
    """
    statements = set(shape.statements)
    if not covered:
        return frozenset()
    seen: set[int] = set(snapshot.import_time & statements)
    for target in shape.targets:
        if target.id in covered:
            seen.update(target.arc if target.arc else (target.line,))
    pending = [line for line in seen if line > 0]
    while pending:
        line = pending.pop()
        after, before = snapshot.successors.get(line, ()), snapshot.predecessors.get(line, ())
        for neighbour in (after if len(after) == 1 else ()) + (before if len(before) == 1 else ()):
            if neighbour not in seen:
                seen.add(neighbour)
                pending.append(neighbour)
    return frozenset(seen & statements)


# --- rendering on the current text ----------------------------------------------------------


def render(view: UnitView, current: UnitShape) -> Rendered | None:
    """The view on the current text, or None when the unit changed since the view's job."""
    if view.fingerprint != current.fingerprint or view.total != len(current.targets):
        return None
    line_of = _line_map(view.shape, current)
    rendered = Rendered()
    by_line: dict[int, list[bool]] = {}
    for old, new in zip(view.shape.targets, current.targets, strict=True):
        covered = old.id in view.covered
        rendered.branches.append(
            Branch(new, covered, view.closest.get(old.id, ""), view.covering_test.get(old.id, ""))
        )
        if old.kind == "branch":
            by_line.setdefault(old.line, []).append(covered)
    for line in view.shape.statements:
        arcs = by_line.get(line)
        if arcs and all(arcs):
            bucket = rendered.covered
        elif arcs and (any(arcs) or line in view.executed):
            bucket = rendered.partial
        elif not arcs and line in view.executed:
            bucket = rendered.covered
        else:
            bucket = rendered.uncovered
        bucket.add(line_of(line))
    return rendered


def _line_map(old: UnitShape, new: UnitShape) -> Callable[[int], int]:
    """Old statement line -> current line: by order when the statements pair up, else by shift."""
    if len(old.statements) == len(new.statements):
        pairs = dict(zip(old.statements, new.statements, strict=True))
        return lambda line: pairs.get(line, line + new.unit.line - old.unit.line)
    return lambda line: line + new.unit.line - old.unit.line


def count(view: UnitView | None, current: UnitShape) -> tuple[int, int]:
    """(covered, total) targets for lenses, progress and the coverage notification."""
    if view is None or render(view, current) is None:
        return 0, len(current.targets)
    return len(view.covered), view.total
