"""Keep only what adds: a generated test stays if it covers a target the suite does not.

The targets a test covers are coverage.py's, per test (``miogen.plugins.contexts`` names each
test's context by its pytest node id); the suite is the project's own (``host.baseline``).
Tests are taken greedily in their order in the file: one is kept when it covers a target that
neither the project's suite nor the tests kept before it cover. With mutation on, a test is
kept too when it kills a mutant that neither the suite (``host.suite_kills``) nor the tests
kept before it kill.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from miogen.analysis.model import Target
from miogen.emit.merge import GeneratedTest
from miogen.emit.parametrize import original_names


def keep_what_adds(
    order: Sequence[str],
    covers: Mapping[str, Iterable[int]],
    suite: Iterable[int],
    kills: Mapping[str, Iterable[Hashable]] | None = None,
    suite_kills: Iterable[Hashable] = (),
) -> list[str]:
    """The names in ``order`` that add a target (or, with mutation, a killed mutant).

    >>> keep_what_adds(["a", "b", "c"], {"a": [1], "b": [1, 2], "c": [2]}, suite=[1])
    ['b']
    """
    covered, killed = set(suite), set(suite_kills)
    kept = []
    for name in order:
        new = set(covers.get(name, ())) - covered
        dead = set((kills or {}).get(name, ())) - killed
        if new or dead:
            kept.append(name)
            covered |= new
            killed |= dead
    return kept


@dataclass(frozen=True)
class Gain:
    """What the kept tests add to the project's suite, for one unit (or a module: summed).

    A unit's targets are coverage.py's branch arcs and, for each function without a branch,
    a line goal (its first line: ``analysis.targets``). Every count and % shown is of the
    branches alone, as coverage.py counts them; a line goal covered is told apart, as lines
    of a function the suite never runs (issue 23: a private helper's first run was "+1
    branches" while coverage.py's branch count did not move).
    """

    name: str
    total: int  # targets
    suite: frozenset[int] = field(default_factory=frozenset)  # covered by the project's tests
    combined: frozenset[int] = field(default_factory=frozenset)  # ... and the kept tests
    # Mutants the kept tests kill that the project's suite leaves alive (with mutation on).
    mutants: int = 0
    lines: frozenset[int] = field(default_factory=frozenset)  # the line goals among the targets

    @property
    def branches(self) -> int:
        """coverage.py's branch arcs among the targets."""
        return self.total - len(self.lines)

    @property
    def added(self) -> int:
        """Branches the kept tests cover that the suite does not."""
        return len(self.combined - self.suite - self.lines)

    @property
    def lines_added(self) -> int:
        """Functions without a branch that the kept tests run and the suite does not."""
        return len((self.combined - self.suite) & self.lines)

    def percent(self, covered: frozenset[int]) -> float:
        """coverage.py's branch % of ``covered`` (100 for a unit without branches)."""
        branches = self.branches
        return 100.0 * len(covered - self.lines) / branches if branches else 100.0

    def describe(self) -> str:
        """ "+N branches over your suite (X% → Y%)" (and "+M mutants killed over your suite",
        and the lines of the functions without a branch that only the kept tests run), or that
        there was nothing to add. N, X and Y count coverage.py's branches."""
        before, after = self.percent(self.suite), self.percent(self.combined)
        extras = [f"+{self.mutants} mutants killed over your suite"] if self.mutants else []
        if self.lines_added:
            functions = "function" if self.lines_added == 1 else "functions"
            extras.append(
                f"its tests run the lines of {self.lines_added} {functions} your suite never runs"
            )
        extra = ", ".join(extras)
        if self.added:
            return (f"{self.name}: +{self.added} branches over your suite "
                    f"({before:.1f}% → {after:.1f}%)" + (f", {extra}" if extra else ""))  # fmt: skip
        shown = f"{before:.1f}%" if self.branches else "it has no branches"
        every_branch = len(self.suite - self.lines) >= self.branches
        if every_branch and (self.branches or self.lines <= self.suite):
            done = extra or "nothing added"
            return f"your suite already covers every branch of {self.name}; {done}"
        if extra:
            return f"{self.name}: no branch added to your suite ({shown}), {extra}"
        return f"{self.name}: nothing added to your suite ({shown})"


def line_goals(targets: Iterable[Target]) -> frozenset[int]:
    """The ids of the line goals among ``targets`` (the functions without a branch)."""
    return frozenset(target.id for target in targets if target.kind == "line")


def module_gain(name: str, gains: Sequence[Gain]) -> Gain:
    """The units' gains as one (their target ids made distinct per unit)."""
    suite = {(g.name, t) for g in gains for t in g.suite}
    combined = {(g.name, t) for g in gains for t in g.combined}
    lines = {(g.name, t) for g in gains for t in g.lines}
    index = {key: i for i, key in enumerate(sorted(combined | suite | lines))}
    return Gain(
        name, sum(g.total for g in gains), frozenset(index[k] for k in suite),
        frozenset(index[k] for k in combined), sum(g.mutants for g in gains),
        frozenset(index[k] for k in lines),
    )  # fmt: skip


def covers_by_test(
    per_test: Mapping[str, Iterable[int]], generated: Sequence[GeneratedTest]
) -> dict[str, set[int]]:
    """The targets each generated test covers, from coverage.py's per-test contexts (pytest
    node ids; a parametrized case is the test it was made of, see ``original_names``)."""
    covers: dict[str, set[int]] = {}
    for node, ids in per_test.items():
        name = node.rpartition("::")[2]
        for original in original_names([name], generated):
            covers.setdefault(original, set()).update(ids)
    return covers
