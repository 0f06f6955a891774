"""Suite reduction by greedy set cover, then removal of statements that add no coverage."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from miogen.testcase.model import (
    CALLS,
    TestCase,
    canonical_key,
    drop_unused_values,
    remove_statements,
)

Covers = Callable[[TestCase], frozenset[int]]


class CoverageCache:
    """Executions cached by the test's canonical key, so no identical test runs twice."""

    def __init__(self, run: Callable[[TestCase], tuple[TestCase, frozenset[int]]]) -> None:
        self._run = run
        self._cache: dict[tuple, tuple[TestCase, frozenset[int]]] = {}
        self.hits = 0
        self.misses = 0

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[int]]:
        key = canonical_key(test)
        found = self._cache.get(key)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        found = self._cache[key] = self._run(test)
        return found


@dataclass
class ReducedTest:
    test: TestCase
    targets: frozenset[int]  # what the test is in the suite for


def set_cover(
    candidates: Iterable[TestCase], coverage: CoverageCache, already: frozenset[int] = frozenset()
) -> list[ReducedTest]:
    """Greedy set cover: the test that covers most still-uncovered targets first, shorter on ties.

    Targets in ``already`` are covered by tests chosen before and are not covered again.
    """
    pool = []
    for test in candidates:
        executed, covered = coverage(test)
        if covered:
            pool.append((executed, covered))
    chosen: list[ReducedTest] = []
    remaining = (frozenset().union(*(c for _, c in pool)) if pool else frozenset()) - already
    while remaining:
        best = max(pool, key=lambda item: (len(item[1] & remaining), -len(item[0])))
        gain = best[1] & remaining
        if not gain:
            break
        chosen.append(ReducedTest(best[0], gain))
        remaining -= gain
    return chosen


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
        needed = _closure(test, index)
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


def _closure(test: TestCase, index: int) -> set[int]:
    needed, pending = set(), [index]
    while pending:
        current = pending.pop()
        if current not in needed:
            needed.add(current)
            pending.extend(test[current].references())
    return needed
