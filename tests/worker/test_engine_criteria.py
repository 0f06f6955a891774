"""The pipeline with criteria and the genetic algorithms: every criterion reported, reproducible."""

from __future__ import annotations

from miogen.common.records import (
    Algorithm,
    CriterionCoverage,
    JobSpec,
    StopReason,
    UnitJob,
    UnitResult,
)
from miogen.criteria import Criterion
from miogen.host.supervisor import run_job


def generate(classic, algorithm: str = "mio", **options) -> UnitResult:
    # An evaluation budget, and clock limits (per test, post-processing) far beyond what
    # ``classify`` (no loop) takes on a busy machine: two runs of a seed compare equal.
    spec = JobSpec(
        path=str(classic / "triangle.py"), module_name="triangle", import_root=str(classic),
        units=(UnitJob("classify"),), evaluations=1500, seed=5, mutation_share=0.0,
        test_timeout=30.0, post_seconds=120, algorithm=Algorithm(algorithm), **options,
    )  # fmt: skip
    outcome = run_job(spec)
    assert outcome.status == "ok", outcome.message
    result = outcome.unit("classify").result
    assert result is not None
    assert not result.refusals, result.refusals  # no run timed out: the comparison holds
    return result


def test_adynamosa_is_reproducible_and_reports_every_criterion(classic):
    first = generate(classic, algorithm="adynamosa")
    assert generate(classic, algorithm="adynamosa").tests == first.tests
    assert len(first.covered) == first.total
    # Every branch covered, then the output goal no test can reach (negative) stops the
    # search once nothing new came for as long as it had run.
    assert first.stop_reason is StopReason.STAGNATION
    reported = first.criteria
    assert set(reported) == {c.value for c in Criterion} - {"branch"}  # branches: coverage.py's
    assert reported["method"] == CriterionCoverage(1, 1)
    assert reported["output"].total == 3  # -> int: negative, zero, positive
    assert reported["output"].covered == 2  # classify never returns a negative number


def test_branch_only_and_smart_runs_are_measured_on_the_same_goals(classic):
    branch, smart = generate(classic, criteria="branch"), generate(classic, criteria="smart")
    for criterion in ("line", "weak-mutation", "direct-branch", "method", "output"):
        assert branch.criteria[criterion].total == smart.criteria[criterion].total
    assert smart.criteria["weak-mutation"].covered >= branch.criteria["weak-mutation"].covered
