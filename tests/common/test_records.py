"""Records to JSON and back: what comes back is the record, and what does not fit is refused."""

from __future__ import annotations

import pytest
from miogen.common.records import (
    EVALUATION_SHRINK_SECONDS,
    SHRINK_SECONDS,
    Algorithm,
    JobOutcome,
    JobSpec,
    StopReason,
    UnitJob,
    UnitOutcome,
    UnitResult,
    WorkerStart,
    event_from_json,
    from_json,
    to_json,
)

SPEC = JobSpec("shapes.py", "shapes", ".", (UnitJob("Square", seeds=([1, 2],)),), seed=3)


def test_a_job_and_its_outcome_come_back_as_they_went():
    assert JobSpec.loads(SPEC.dumps()) == SPEC
    result = UnitResult("Square", 4, (1, 2), (), (), StopReason.BUDGET, phases={"search": 1.5})
    outcome = JobOutcome(
        "ok", [UnitOutcome("Square", result=result)], workers=[WorkerStart(7, True)]
    )
    assert from_json(JobOutcome, to_json(outcome)) == outcome
    algorithm = from_json(JobSpec, {**to_json(SPEC), "algorithm": "wts"}).algorithm
    assert algorithm is Algorithm.WTS


def test_plain_json_values_come_out():
    data = to_json(SPEC)
    assert data["algorithm"] == "mio" and type(data["algorithm"]) is str
    assert data["units"] == [{"name": "Square", "seeds": [[1, 2]], "blocked": [], "careful": False,
                              "replay_only": False, "raw": False, "share": None,
                              "suite_covered": []}]  # fmt: skip


def test_a_whole_number_is_a_float_fields_value():
    assert from_json(JobSpec, {**to_json(SPEC), "budget_seconds": 2}).budget_seconds == 2.0


def test_a_field_of_the_wrong_type_is_refused_by_name():
    with pytest.raises(ValueError, match=r"not a JobSpec: .*expected str @ \$\.path"):
        from_json(JobSpec, {**to_json(SPEC), "path": 1})
    with pytest.raises(ValueError, match=r"expected int @ \$\.seed"):
        from_json(JobSpec, {**to_json(SPEC), "seed": True})
    with pytest.raises(ValueError, match=r"\$\.units\[0\]\.name"):
        from_json(JobSpec, {**to_json(SPEC), "units": [{"name": 3}]})
    with pytest.raises(ValueError, match=r"Algorithm @ \$\.algorithm"):
        from_json(JobSpec, {**to_json(SPEC), "algorithm": "annealing"})


def test_an_unknown_field_is_refused_by_name():
    with pytest.raises(ValueError, match=r"extra fields found \(budget\) @ \$"):
        from_json(JobSpec, {**to_json(SPEC), "budget": 2.0})
    with pytest.raises(ValueError, match="not a Crash: extra fields found"):
        event_from_json({"event": "crash", "unit": "Square", "reason": "killed", "pid": 9})


def test_a_missing_field_is_refused_by_name():
    data = to_json(SPEC)
    del data["module_name"]
    with pytest.raises(ValueError, match=r"required field missing @ \$\.module_name"):
        from_json(JobSpec, data)


def spec(**options: object) -> JobSpec:
    return JobSpec(path="m.py", module_name="m", import_root=".", units=(UnitJob("f"),), **options)  # type: ignore[arg-type]


def test_shrinking_has_its_own_seconds_under_a_time_budget_and_the_job_waits_for_them():
    timed = spec(budget_seconds=5.0)
    assert timed.shrink_allowance() == SHRINK_SECONDS > 0
    assert timed.post_allowance() >= 1.0 + SHRINK_SECONDS
    assert timed.attempt_seconds() >= 5.0 + timed.post_allowance()


def test_under_an_evaluation_budget_shrinking_has_seconds_beyond_the_post_deadline():
    """The set cover judges kills until the post-processing's deadline, and on a loaded
    machine takes all of it (stdlib_shlex at load 14): shrinking then needs seconds of its
    own beyond that deadline, and the job waits for them."""
    counted = spec(evaluations=100)
    assert counted.shrink_allowance() == EVALUATION_SHRINK_SECONDS > 0
    assert counted.post_allowance() == counted.post_deadline() + counted.shrink_allowance()
    assert counted.attempt_seconds() >= counted.post_allowance()


def test_a_unit_the_worker_never_answered_for_failed_with_the_job():
    """One answer for ``miogen generate``'s job and ctg's: the unit's own outcome, else failed
    with the job's message (else the caller's ``why``), under the unit's name."""
    answered = UnitOutcome("sign", "ok")
    died = JobOutcome("failed", [answered], message="the worker died")
    assert died.outcome_of("sign") is answered
    assert died.outcome_of("parity") == UnitOutcome("parity", "failed", message="the worker died")
    quiet = JobOutcome("ok")
    assert quiet.outcome_of("parity", "no result").message == "no result"
