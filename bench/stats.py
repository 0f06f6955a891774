"""Two-sample statistics for benchmark tables: Wilcoxon rank-sum and Vargha-Delaney A12.

Arcuri and Briand ("A Hitchhiker's guide to statistical tests for assessing randomized
algorithms in software engineering", 2014) recommend both for comparing randomized search
tools: the rank-sum test (Mann-Whitney U) for whether two samples differ, A12 for how much.
No scipy here (not a dependency): U's exact null distribution is counted for samples without
ties, and the normal approximation with tie correction and continuity correction is used
otherwise (what R's ``wilcox.test`` does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache


def a12(first: Sequence[float], second: Sequence[float]) -> float:
    """Vargha-Delaney A12: the probability that a value of ``first`` beats one of ``second``
    (ties count half). 0.5: no difference; above 0.5: ``first`` tends to be larger.

    >>> a12([3, 4, 5], [1, 2, 3])
    0.9444444444444444
    >>> a12([1, 1], [1, 1])
    0.5
    """
    if not first or not second:
        return math.nan
    wins = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in first for y in second)
    return wins / (len(first) * len(second))


def magnitude(effect: float) -> str:
    """Vargha and Delaney's thresholds on |A12 - 0.5|: negligible, small, medium, large.

    >>> magnitude(0.5), magnitude(0.6), magnitude(0.3), magnitude(0.05)
    ('negligible', 'small', 'medium', 'large')
    """
    distance = abs(effect - 0.5)
    if distance < 0.06:
        return "negligible"
    if distance < 0.14:
        return "small"
    if distance < 0.21:
        return "medium"
    return "large"


def rank_sum(first: Sequence[float], second: Sequence[float]) -> float:
    """Two-sided p-value of the Wilcoxon rank-sum (Mann-Whitney U) test.

    >>> round(rank_sum([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 4)  # exact: 2 / C(10, 5)
    0.0079
    >>> rank_sum([1, 1, 1], [1, 1, 1])
    1.0
    """
    n, m = len(first), len(second)
    if n == 0 or m == 0:
        return math.nan
    values = sorted([(x, 0) for x in first] + [(y, 1) for y in second])
    ranks = _ranks([value for value, _ in values])
    rank_first = sum(rank for rank, (_, group) in zip(ranks, values, strict=True) if group == 0)
    u = rank_first - n * (n + 1) / 2
    ties = _tie_sizes([value for value, _ in values])
    if not any(size > 1 for size in ties) and n + m <= 60:
        return _exact_p(int(u), n, m)
    return _normal_p(u, n, m, ties)


def _ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1 of sorted ``values``, ties sharing their mean rank."""
    ranks = [0.0] * len(values)
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and values[end + 1] == values[start]:
            end += 1
        for index in range(start, end + 1):
            ranks[index] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def _tie_sizes(values: Sequence[float]) -> list[int]:
    sizes: dict[float, int] = {}
    for value in values:
        sizes[value] = sizes.get(value, 0) + 1
    return list(sizes.values())


def _exact_p(u: int, n: int, m: int) -> float:
    """Two-sided exact p: twice the smaller tail of U's null distribution, at most 1."""
    total = math.comb(n + m, n)
    low = sum(_count(k, n, m) for k in range(0, u + 1)) / total
    high = sum(_count(k, n, m) for k in range(u, n * m + 1)) / total
    return min(1.0, 2 * min(low, high))


@cache
def _count(u: int, n: int, m: int) -> int:
    """How many arrangements of n and m values give U = u (the classic recursion)."""
    if u < 0 or u > n * m:
        return 0
    if n == 0 or m == 0:
        return 1 if u == 0 else 0
    return _count(u - m, n - 1, m) + _count(u, n, m - 1)


def _normal_p(u: float, n: int, m: int, ties: Sequence[int]) -> float:
    total = n + m
    correction = sum(t**3 - t for t in ties) / (total * (total - 1))
    variance = n * m / 12 * ((total + 1) - correction)
    if variance <= 0:
        return 1.0
    z = (abs(u - n * m / 2) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2)))


def signed_rank(first: Sequence[float], second: Sequence[float]) -> tuple[float, int]:
    """Two-sided p-value of the Wilcoxon signed-rank test on paired samples, and the pairs used.

    Pairs with no difference are dropped (Wilcoxon's convention); the absolute differences are
    ranked, ties sharing their mean rank, and the p-value is exact: the null distribution of
    the positive rank sum is counted over all 2^n sign assignments of these very ranks (so ties
    need no approximation).

    >>> signed_rank([2, 3, 4, 5, 6, 7], [1, 1, 1, 1, 1, 1])  # six wins: 2 / 2**6
    (0.03125, 6)
    >>> signed_rank([1, 2], [1, 2])
    (1.0, 0)
    """
    if len(first) != len(second):
        raise ValueError("signed_rank needs paired samples of one length")
    differences = [x - y for x, y in zip(first, second, strict=True) if x != y]
    n = len(differences)
    if n == 0:
        return 1.0, 0
    order = sorted(range(n), key=lambda i: abs(differences[i]))
    ranks = [0.0] * n
    for rank, index in zip(_ranks([abs(differences[i]) for i in order]), order, strict=True):
        ranks[index] = rank
    doubled = [round(2 * rank) for rank in ranks]  # mean ranks are halves: integers when doubled
    positive = sum(d for d, difference in zip(doubled, differences, strict=True) if difference > 0)
    counts = [1] + [0] * sum(doubled)  # counts[s]: sign assignments whose positive sum is s
    for value in doubled:
        for total in range(len(counts) - 1, value - 1, -1):
            counts[total] += counts[total - value]
    low = sum(counts[: positive + 1])
    high = sum(counts[positive:])
    return min(1.0, 2 * min(low, high) / 2**n), n
