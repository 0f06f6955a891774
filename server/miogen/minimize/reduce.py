"""Suite reduction by greedy set cover, then removal of statements that add no coverage."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from miogen.minimize.cost import CostOf, order, weight
from miogen.testcase.model import (
    CALLS,
    TestCase,
    canonical_key,
    drop_unused_values,
    remove_statements,
)


class CoverageCache:
    """Executions cached by the test's canonical key, so no identical test runs twice.

    ``checking`` (optional): the optional targets the runner checks now (None: all of them).
    A run is reused only where it checked at least those: a candidate that the search or the
    shrinking of another test ran while other mutants were in focus shows none of the kills now
    wanted, and would be refused for "losing" them (``setfirstweekday(0)`` for
    ``setfirstweekday(False)``, whose test is kept for three mutants that 0 kills too)."""

    def __init__(
        self,
        run: Callable[[TestCase], tuple[TestCase, frozenset[Hashable]]],
        checking: Callable[[], frozenset[Hashable] | None] | None = None,
    ) -> None:
        self._run = run
        self._checking = checking
        self._cache: dict[tuple[object, ...], tuple[TestCase, frozenset[Hashable]]] = {}
        self._checked: dict[tuple[object, ...], frozenset[Hashable] | None] = {}
        self.hits = 0
        self.misses = 0

    def __contains__(self, test: object) -> bool:
        """Whether ``test`` has run already (calling the cache with it runs nothing)."""
        return isinstance(test, tuple) and self._fresh(canonical_key(test))

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        key = canonical_key(test)
        if self._fresh(key):
            self.hits += 1
            return self._cache[key]
        self.misses += 1
        checked = self._checking() if self._checking is not None else None
        found = self._cache[key] = self._run(test)
        self._checked[key] = checked
        return found

    def _fresh(self, key: tuple[object, ...]) -> bool:
        if key not in self._cache:
            return False
        if self._checking is None:
            return True
        then, now = self._checked.get(key), self._checking()
        return then is None or (now is not None and now <= then)


@dataclass
class ReducedTest:
    test: TestCase
    targets: frozenset[Hashable]  # what the test is in the suite for
    # Where each part after the first starts, for a test joined from kept tests (suite.join_tests)
    parts: tuple[int, ...] = ()


def set_cover(
    candidates: Iterable[TestCase],
    coverage: CoverageCache,
    already: frozenset[Hashable] = frozenset(),
    optional: Callable[[Hashable], bool] | None = None,
    min_optional_gain: int = 1,
    optional_share: float | None = None,
    cost: CostOf | None = None,
) -> list[ReducedTest]:
    """Greedy set cover: the test that covers most still-uncovered targets first, shorter on ties.

    With ``cost`` (the cost-aware minimisation, ``minimize.cost``) it is the weighted greedy
    cover: most uncovered targets *per unit of cost* first (cheaper by Eq. 1, then shorter, on
    ties), and a test whose targets the others cover between them is dropped afterwards,
    costliest first: the suite covers the same goals at a lower cost.

    Targets in ``already`` are covered by tests chosen before and are not covered again.
    Targets for which ``optional`` is true (killed mutants) pay for a test of their own only
    in numbers: a test whose gain is optional targets alone joins the suite only if it gains
    at least ``min_optional_gain`` of them per call, and such tests number at most
    ``optional_share`` of the others (at least one; the ones that gain most stay). Required
    targets (branches) are always covered.
    """
    pool = []
    for test in candidates:
        executed, covered = coverage(test)
        if covered:
            pool.append((executed, covered))
    chosen: list[ReducedTest] = []
    remaining = (frozenset().union(*(c for _, c in pool)) if pool else frozenset()) - already

    def worth(gain: frozenset[Hashable], test: TestCase) -> bool:
        if not gain or optional is None or any(not optional(target) for target in gain):
            return bool(gain)
        # Per call: two calls that gain one each are two weak tests, not one good one.
        calls = sum(1 for statement in test if statement.kind in CALLS)
        return len(gain) >= min_optional_gain * max(1, calls)

    def rank(gain: frozenset[Hashable], test: TestCase) -> tuple[float, ...]:
        if cost is None:
            return (len(gain), -len(test))
        proxies = cost(test)
        return (len(gain) / weight(proxies), -order(proxies)[1], -len(test))

    while remaining:
        best, best_key = None, None
        for executed, covered in pool:
            gain = covered & remaining
            if not worth(gain, executed):
                continue
            key = rank(gain, executed)
            if best_key is None or key > best_key:
                best, best_key = (executed, gain), key
        if best is None:
            break
        chosen.append(ReducedTest(best[0], best[1]))
        remaining -= best[1]
    covers = {id(test): covered for test, covered in pool}
    if cost is not None:
        chosen = _drop_redundant(chosen, covers, worth, lambda r: (-order(cost(r.test))[0], 0))
    if optional is None:
        return chosen
    chosen = _drop_redundant(chosen, covers, worth)
    if optional_share is None:
        return chosen
    required = [r for r in chosen if not all(optional(t) for t in r.targets)]
    extra = [r for r in chosen if all(optional(t) for t in r.targets)]
    limit = max(1, int(len(required) * optional_share))
    if len(extra) <= limit:
        return chosen
    keep = {id(r) for r in required}
    keep.update(id(r) for r in sorted(extra, key=lambda r: -len(r.targets))[:limit])
    return [r for r in chosen if id(r) in keep]


def _drop_redundant(
    chosen: list[ReducedTest],
    covers: dict[int, frozenset[Hashable]],
    worth: Callable[[frozenset[Hashable], TestCase], bool],
    first: Callable[[ReducedTest], tuple[float, int]] | None = None,
) -> list[ReducedTest]:
    """Greedy's second look: tests picked early can become not worth keeping by later picks.

    A test goes if what only it covers is no longer worth a test of its own (the same rule
    as when it was picked); the targets are then handed out again, first test first. Tests
    are looked at in the order of ``first`` (default: fewest targets first).
    """
    kept = list(chosen)
    for candidate in sorted(chosen, key=first or (lambda r: (0.0, len(r.targets)))):
        others = frozenset().union(*(covers[id(r.test)] for r in kept if r is not candidate))
        needed = frozenset().union(*(r.targets for r in kept))
        if not worth((covers[id(candidate.test)] & needed) - others, candidate.test):
            kept.remove(candidate)
    if len(kept) == len(chosen):
        return chosen
    wanted = frozenset().union(*(r.targets for r in chosen))
    handed = frozenset().union(*(covers[id(r.test)] for r in kept)) & wanted
    result = []
    for reduced in kept:
        gain = covers[id(reduced.test)] & handed
        handed -= gain
        if gain:
            result.append(ReducedTest(reduced.test, gain))
    return result


def remove_statements_pass(
    reduced: ReducedTest, coverage: CoverageCache, deadline: float
) -> ReducedTest:
    """Drop call statements (last first) while the test still covers what it is kept for."""
    test = reduced.test
    index = len(test) - 1
    while index >= 0 and time.monotonic() < deadline:
        if test[index].kind in CALLS:
            candidate = remove_statements(test, {index})
            if candidate is not None:
                candidate = drop_unused_values(candidate)
                executed, covered = coverage(candidate)
                if reduced.targets <= covered and len(executed) == len(candidate):
                    test = candidate
        index = min(index - 1, len(test) - 1)
    return ReducedTest(test, reduced.targets)


def split_independent(test: TestCase) -> list[TestCase]:
    """The test's calls that share no object, each as a test of its own (with what it needs).

    A test that calls ``classify`` three times reads better as three tests; calls on the same
    object stay together because the later ones depend on the state the earlier ones left.
    """
    groups: list[set[int]] = []
    for index, statement in enumerate(test):
        if statement.kind not in CALLS:
            continue
        needed = closure(test, index)
        objects = {i for i in needed if test[i].kind in CALLS and i != index}
        for group in groups:
            if group & objects or any(index in test[j].references() for j in group):
                group |= needed
                break
        else:
            groups.append(needed)
    if len(groups) <= 1:
        return [test]
    pieces = []
    for group in groups:
        piece = remove_statements(test, set(range(len(test))) - group)
        if piece:
            pieces.append(piece)
    return pieces


def single_calls(test: TestCase) -> list[TestCase]:
    """Each call of a test that makes several, as a test of its own with only what it is built
    from: its receiver, its arguments and what made them (``closure``), no other call on them.

    ``c.getfirstweekday(); c.monthdatescalendar(0, 0)`` gives ``c.getfirstweekday()`` and
    ``c.monthdatescalendar(0, 0)`` alone: where a call covers the same without the calls before
    it, one behaviour per test. A call that needs what an earlier one left (``pop`` after
    ``push``) covers less alone, and the cover keeps the longer test for it.
    """
    calls = [index for index, statement in enumerate(test) if statement.kind in CALLS]
    if len(calls) < 2:
        return []
    pieces = []
    for index in calls:
        piece = remove_statements(test, set(range(len(test))) - closure(test, index))
        if piece and piece != test:
            pieces.append(piece)
    return list(dict.fromkeys(pieces))


def closure(test: TestCase, index: int) -> set[int]:
    """The indices of statement ``index`` and of every statement it is built from."""
    needed, pending = set(), [index]
    while pending:
        current = pending.pop()
        if current not in needed:
            needed.add(current)
            pending.extend(test[current].references())
    return needed
