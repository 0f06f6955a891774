"""Budget allocation: the paper's Budget shares, h = 2, the fit, and the 3-runs retirement."""

from __future__ import annotations

import doctest

import pytest
from miogen.common.history import RunRecord
from miogen.ctg import allocation
from miogen.ctg.allocation import (
    AllocationConfig,
    Candidate,
    allocate,
    allocate_simple,
    budget_shares,
    retirement,
)


def seconds(plan) -> dict[str, float]:
    return {a.key: round(a.seconds, 6) for a in plan.allocations}


def reasons(plan) -> dict[str, str]:
    return {a.key: a.reason for a in plan.allocations if a.reason}


def unchanged(key: str, branches: int, covered: int = 0, runs=()) -> Candidate:
    return Candidate(key, branches, changed=False, covered=covered, runs=tuple(runs))


def test_doctests():
    assert doctest.testmod(allocation).failed == 0


def test_budget_is_a_minimum_plus_a_share_proportional_to_branches():
    units = [Candidate("a", 10), Candidate("b", 30), Candidate("c", 60)]
    shares = budget_shares(units, AllocationConfig(total=13.0, cap=13.0, minimum=1.0))
    # 13 - 3*1 = 10 seconds shared 10:30:60
    assert shares == pytest.approx({"a": 2.0, "b": 4.0, "c": 7.0})


def test_no_unit_gets_more_than_b():
    units = [Candidate("small", 1), Candidate("huge", 99)]
    shares = budget_shares(units, AllocationConfig(total=20.0, cap=10.0, minimum=1.0))
    assert shares["huge"] == 10.0 and shares["small"] == pytest.approx(1.18)


def test_paper_example_a_changed_simple_class_gets_what_an_unchanged_class_twice_its_size_gets():
    # Budget gives z_D = 2 * z_S; only S changed; with h = 2 both get z_D (CTG sec. 4.1).
    units = [Candidate("S", 10, changed=True), unchanged("D", 20, runs=[RunRecord(3, 5, 20)])]
    config = AllocationConfig(total=30.0, cap=30.0, minimum=0.0)
    base = budget_shares(units, config)
    assert base["D"] == 2 * base["S"]
    plan = allocate(units, config)
    assert seconds(plan)["S"] == base["D"] == 20.0
    # S and D would need 40 of the 30 seconds: the changed S goes first, D waits.
    assert reasons(plan) == {"D": "waits: budget used up"}


def test_paper_example_with_room_for_both():
    units = [Candidate("S", 10, changed=True), unchanged("D", 20, runs=[RunRecord(3, 5, 20)])]
    # 30 seconds per core on 2 cores; Budget shares the 60 seconds as 20 : 40, capped at 30.
    plan = allocate(units, AllocationConfig(total=60.0, cap=30.0, minimum=0.0))
    assert seconds(plan) == {"S": 30.0, "D": 30.0}


def test_first_run_every_unit_new_allocates_as_budget():
    units = [Candidate("a", 10), Candidate("b", 30), Candidate("c", 60)]
    config = AllocationConfig(total=13.0, cap=13.0, minimum=1.0)
    assert seconds(allocate(units, config)) == pytest.approx(budget_shares(units, config))


def test_when_the_total_does_not_fit_changed_units_go_first_then_by_complexity():
    units = [
        unchanged("big", 50, runs=[RunRecord(1, 2, 50)]),
        unchanged("mid", 30, runs=[RunRecord(1, 2, 30)]),
        unchanged("small", 5, runs=[RunRecord(1, 2, 5)]),
        Candidate("edited", 10, changed=True),
    ]
    plan = allocate(units, AllocationConfig(total=10.0, cap=10.0, minimum=1.0))
    got = seconds(plan)
    assert got["edited"] == pytest.approx(2 * (1 + 6 * 10 / 95))  # h * Budget: 3.26
    assert got["big"] == pytest.approx(1 + 6 * 50 / 95)  # then the most complex: 4.16
    assert got["mid"] == 0.0 and reasons(plan)["mid"].startswith("waits")  # 2.89 > 2.58 left
    assert got["small"] == pytest.approx(1 + 6 * 5 / 95)  # 1.32 still fits
    assert sum(got.values()) <= 10.0


def test_when_even_the_minimum_does_not_fit_units_take_turns_over_runs():
    # 5 units, 2 seconds, minimum 1: two run now; the ones that ran go to the back next time.
    first = [unchanged(k, 10, runs=[RunRecord(1, 2, 10)]) for k in "abcde"]
    config = AllocationConfig(total=2.0, cap=2.0, minimum=1.0)
    ran = {a.key for a in allocate(first, config).running()}
    assert len(ran) == 2
    second = [
        unchanged(c.key, 10, runs=c.runs + ((RunRecord(2, 3, 10),) if c.key in ran else ()))
        for c in first
    ]
    ran_next = {a.key for a in allocate(second, config).running()}
    assert len(ran_next) == 2 and not ran & ran_next


def test_an_unchanged_unit_at_full_coverage_is_retired():
    plan = allocate([unchanged("done", 8, covered=8)], AllocationConfig(total=5.0, cap=5.0))
    assert seconds(plan) == {"done": 0.0} and reasons(plan) == {"done": "100% covered"}


def test_three_runs_without_improvement_retire_an_unchanged_unit():
    flat = RunRecord(covered_before=5, covered_after=5, total=10)
    better = RunRecord(covered_before=4, covered_after=5, total=10)
    assert retirement(unchanged("u", 10, 5, [flat, flat])) == ""  # only two runs so far
    assert retirement(unchanged("u", 10, 5, [better, flat, flat])) == ""  # improved in the last 3
    assert retirement(unchanged("u", 10, 5, [better, flat, flat, flat])) == (
        "no improvement in its last 3 runs"
    )
    failed = RunRecord(5, 9, 10, ok=False)  # a failed run is no improvement
    assert retirement(unchanged("u", 10, 5, [flat, failed, flat])) != ""


def test_a_change_brings_a_retired_unit_back():
    flat = RunRecord(5, 5, 10)
    stuck = Candidate("u", 10, changed=True, covered=5, runs=())  # the runs were at the old hash
    assert retirement(stuck) == ""
    # ... unless the existing tests (the project's own suite) cover all of it already
    assert retirement(Candidate("u", 10, changed=True, covered=10)) == "100% covered"
    assert retirement(unchanged("u", 10, 5, [flat, flat, flat])) != ""


def test_retired_units_shares_are_time_saved_not_given_to_others():
    flat = RunRecord(10, 10, 50)
    units = [
        unchanged("retired", 50, covered=10, runs=[flat, flat, flat]),
        unchanged("open", 50, covered=10, runs=[RunRecord(1, 2, 50)]),
    ]
    plan = allocate(units, AllocationConfig(total=10.0, cap=10.0, minimum=1.0))
    assert seconds(plan) == {"retired": 0.0, "open": 5.0}


def test_a_unit_the_suite_covers_completely_has_no_share_to_save():
    units = [unchanged("done", 50, covered=50), unchanged("open", 50, runs=[RunRecord(1, 2, 50)])]
    plan = allocate(units, AllocationConfig(total=10.0, cap=10.0, minimum=1.0))
    assert seconds(plan) == {"done": 0.0, "open": 10.0}


def test_units_without_targets_never_run():
    plan = allocate([Candidate("empty", 0), Candidate("a", 4)], AllocationConfig(10.0, 10.0))
    assert seconds(plan) == {"empty": 0.0, "a": 10.0}
    assert reasons(plan) == {"empty": "nothing to cover"}


def test_simple_is_an_equal_split_with_nothing_skipped():
    units = [unchanged("done", 8, covered=8), Candidate("b", 80), unchanged("c", 2)]
    plan = allocate_simple(units, total=9.0, cap=9.0)
    assert seconds(plan) == {"done": 3.0, "b": 3.0, "c": 3.0}


def test_the_budget_goes_to_what_the_existing_tests_leave_uncovered():
    """A unit the project's suite covers at 90% gets a tenth of an uncovered one's share."""
    units = [Candidate("covered", 10, covered=9), Candidate("bare", 10)]
    plan = allocate(units, AllocationConfig(total=11.0, cap=11.0, minimum=0.0, h=1.0))
    assert seconds(plan) == {"covered": 1.0, "bare": 10.0}
