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
    """What the kept tests add to the project's suite, for one unit (or a module: summed)."""

    name: str
    total: int  # targets
    suite: frozenset[int] = field(default_factory=frozenset)  # covered by the project's tests
    combined: frozenset[int] = field(default_factory=frozenset)  # ... and the kept tests
    # Mutants the kept tests kill that the project's suite leaves alive (with mutation on).
    mutants: int = 0

    @property
    def added(self) -> int:
        return len(self.combined - self.suite)

    def percent(self, covered: frozenset[int]) -> float:
        return 100.0 * len(covered) / self.total if self.total else 100.0

    def describe(self) -> str:
        """ "+N branches over your suite (X% → Y%)" (and "+M mutants killed over your suite"),
        or that there was nothing to add."""
        before, after = self.percent(self.suite), self.percent(self.combined)
        killed = f"+{self.mutants} mutants killed over your suite" if self.mutants else ""
        if self.added:
            return (f"{self.name}: +{self.added} branches over your suite "
                    f"({before:.1f}% → {after:.1f}%)" + (f", {killed}" if killed else ""))  # fmt: skip
        if len(self.suite) >= self.total:
            if killed:
                return f"your suite already covers every branch of {self.name}; {killed}"
            return f"your suite already covers every branch of {self.name}; nothing added"
        if killed:
            return f"{self.name}: no branch added to your suite ({before:.1f}%), {killed}"
        return f"{self.name}: nothing added to your suite ({before:.1f}%)"


def module_gain(name: str, gains: Sequence[Gain]) -> Gain:
    """The units' gains as one (their target ids made distinct per unit)."""
    suite = {(g.name, t) for g in gains for t in g.suite}
    combined = {(g.name, t) for g in gains for t in g.combined}
    index = {key: i for i, key in enumerate(sorted(combined | suite))}
    return Gain(
        name, sum(g.total for g in gains), frozenset(index[k] for k in suite),
        frozenset(index[k] for k in combined), sum(g.mutants for g in gains),
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
