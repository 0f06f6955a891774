"""MOSA's ranking: preference sorting into fronts, and subvector dominance inside a front.

Panichella, Kifetew and Tonella (ICST 2015, TSE 2018), as EvoSuite implements them
(``RankBasedPreferenceSorting``, ``CrowdingDistance.subvectorDominanceAssignment``). The objective
vector of a test holds its h on each current target (higher is better, 0 = not reached); the
papers minimise distances instead, which orders tests the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from miogen.worker.search.problem import Evaluated

Fronts = list[list[int]]  # indices into the ranked tests, best front first


def objectives(tests: Sequence[Evaluated[Any]], targets: Sequence[Hashable]) -> np.ndarray:
    """The tests x targets matrix of h values (0 where a test does not reach a target)."""
    matrix = np.zeros((len(tests), len(targets)))
    for row, test in enumerate(tests):
        h = test.h
        for column, target in enumerate(targets):
            value = h.get(target)
            if value:
                matrix[row, column] = value
    return matrix


def preference_sort(
    tests: Sequence[Evaluated[Any]],
    targets: Sequence[Hashable],
    population_size: int,
    tie: Callable[[Evaluated[Any]], float] = lambda test: test.size,
) -> Fronts:
    """Front 0 holds the best test for each target, the rest is sorted by non-dominance.

    The best test for a target has the highest h on it; among equals, the lowest ``tie`` (the
    test's size in MOSA/DynaMOSA; the performance score in aDynaMOSA's non-adaptive variant)
    and then the earliest. When front 0 already fills the population, all other tests form one
    last front; otherwise non-dominated fronts are peeled off until ``population_size`` tests
    are ranked, and whatever is left forms the last front (EvoSuite does the same).
    """
    matrix = objectives(tests, targets)
    first = _best_per_target(matrix, [tie(test) for test in tests])
    rest = [index for index in range(len(tests)) if index not in set(first)]
    fronts = [first] if first else []
    if not rest:
        return fronts
    if len(first) >= population_size:
        return [*fronts, rest]
    return fronts + _non_dominated_fronts(matrix[rest], rest, population_size - len(first))


def _best_per_target(matrix: np.ndarray, ties: list[float]) -> list[int]:
    chosen: dict[int, None] = {}
    tie_values = np.asarray(ties, dtype=float)
    for column in range(matrix.shape[1]):
        values = matrix[:, column]
        candidates = np.flatnonzero(values == values.max())
        best = candidates[int(np.argmin(tie_values[candidates]))]
        chosen[int(best)] = None
    return list(chosen)


def _non_dominated_fronts(matrix: np.ndarray, indices: list[int], wanted: int) -> Fronts:
    """Fast non-dominated sorting (Deb et al.) until ``wanted`` tests are ranked."""
    dominates = dominance(matrix)
    dominated_by = dominates.sum(axis=0)
    remaining = np.ones(len(indices), dtype=bool)
    fronts: Fronts = []
    ranked = 0
    while remaining.any():
        if ranked >= wanted:
            fronts.append([indices[i] for i in np.flatnonzero(remaining)])
            break
        front = np.flatnonzero(remaining & (dominated_by == 0))
        remaining[front] = False
        dominated_by = dominated_by - dominates[front].sum(axis=0)
        fronts.append([indices[i] for i in front])
        ranked += len(front)
    return fronts


def dominance(matrix: np.ndarray) -> np.ndarray:
    """``result[i, j]``: test i dominates test j (at least as good everywhere, better somewhere)."""
    if matrix.shape[1] == 0:
        return np.zeros((matrix.shape[0], matrix.shape[0]), dtype=bool)
    differing = matrix[:, np.ptp(matrix, axis=0) > 0] if matrix.shape[0] > 1 else matrix
    at_least = (differing[:, None, :] >= differing[None, :, :]).all(axis=2)
    better = (differing[:, None, :] > differing[None, :, :]).any(axis=2)
    return np.logical_and(at_least, better)


def subvector_dominance(matrix: np.ndarray) -> list[float]:
    """Koppen and Yoshida's substitute distance: higher means more different from the front.

    For each test, the minimum over the other tests of the number of targets on which it is
    better than that other test; a test alone in its front gets infinity.

    >>> subvector_dominance(np.array([[1.0, 0.2], [0.5, 0.5], [0.2, 1.0]]))
    [1.0, 1.0, 1.0]
    """
    count = matrix.shape[0]
    if count == 1:
        return [float("inf")]
    better = (matrix[:, None, :] > matrix[None, :, :]).sum(axis=2).astype(float)
    np.fill_diagonal(better, np.inf)
    return [float(value) for value in better.min(axis=1)]
