"""bench.stats against values R's wilcox.test and the A12 definition give."""

from __future__ import annotations

import math

from bench.stats import a12, magnitude, rank_sum


def test_rank_sum_is_exact_without_ties_and_normal_with_them():
    # R: wilcox.test(c(1.1, 2.2, 3.3, 4.4), c(2.5, 3.5, 5.5, 6.5, 7.5))$p.value == 1/9
    assert math.isclose(rank_sum([1.1, 2.2, 3.3, 4.4], [2.5, 3.5, 5.5, 6.5, 7.5]), 1 / 9)
    # R (normal approximation, continuity correction): 0.1105
    assert round(rank_sum([1, 2, 2, 3, 4], [2, 3, 5, 5, 6]), 4) == 0.1105
    assert rank_sum([5] * 10, [5] * 10) == 1.0
    assert rank_sum([1, 2], []) != rank_sum([1, 2], [])  # nan: nothing to compare


def test_a12_counts_wins_and_half_ties():
    assert a12([1, 2, 3], [1, 2, 3]) == 0.5
    assert a12([10, 11], [1, 2]) == 1.0 and a12([1, 2], [10, 11]) == 0.0
    assert magnitude(a12([10, 11], [1, 2])) == "large"


def test_complete_totals_fill_in_units_a_run_left_out():
    from bench.criteria import complete_totals

    rows = [
        {"subject": "s", "direct-branch_total": "6", "method_total": 2, "output_total": 3},
        {"subject": "s", "direct-branch_total": "4", "method_total": 1, "output_total": 2},
    ]
    completed = complete_totals(rows)
    assert [r["direct-branch_total"] for r in completed] == [6, 6]
    assert [r["method_total"] for r in completed] == [2, 2]
    assert [r["output_total"] for r in completed] == [3, 2]  # dynamic for untyped outputs


def test_signed_rank_is_exact_with_and_without_ties():
    import itertools

    from bench.stats import signed_rank

    # R: wilcox.test(c(2,3,4,5,6,7), rep(1, 6), paired=TRUE)$p.value == 0.03125
    assert signed_rank([2, 3, 4, 5, 6, 7], [1] * 6) == (0.03125, 6)
    first, second = [1, 2, 3, 4, 5, 6, 7, 8], [0, 4, 1, 1, 1, 9, 1, 8]  # ties in |d|, a zero
    p, used = signed_rank(first, second)
    # By brute force over all sign assignments of the same (mean) ranks.
    d = [a - b for a, b in zip(first, second, strict=True) if a != b]
    ordered = sorted(abs(x) for x in d)
    rank = {
        v: sum(i + 1 for i, w in enumerate(ordered) if w == v) / ordered.count(v) for v in ordered
    }
    observed = sum(rank[abs(x)] for x in d if x > 0)
    sums = [
        sum(rank[abs(x)] for x, s in zip(d, signs, strict=True) if s)
        for signs in itertools.product((0, 1), repeat=len(d))
    ]
    expected = (
        2 * min(sum(s <= observed for s in sums), sum(s >= observed for s in sums)) / len(sums)
    )
    assert used == 7 and math.isclose(p, min(1.0, expected))
