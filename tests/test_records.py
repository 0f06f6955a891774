"""The job's time bounds: shrinking has time of its own under a time budget."""

from __future__ import annotations

from miogen.records import SHRINK_SECONDS, JobSpec, UnitJob


def spec(**options: object) -> JobSpec:
    return JobSpec(path="m.py", module_name="m", import_root=".", units=(UnitJob("f"),), **options)  # type: ignore[arg-type]


def test_shrinking_has_its_own_seconds_under_a_time_budget_and_the_job_waits_for_them():
    timed = spec(budget_seconds=5.0)
    assert timed.shrink_allowance() == SHRINK_SECONDS > 0
    assert timed.post_allowance() >= 1.0 + SHRINK_SECONDS
    assert timed.attempt_seconds() >= 5.0 + timed.post_allowance()


def test_an_evaluation_budget_needs_no_shrinking_allowance():
    assert spec(evaluations=100).shrink_allowance() == 0.0
