"""CTG in a project with its own tests: they count as covered, wherever they are."""

from __future__ import annotations

from ctg_projects import BANK, make_project
from miogen.ctg import report as reporting
from miogen.ctg.runner import CtgConfig, run_ctg
from miogen.host.config import Options
from subjects import CLOCK, ZONES, ZONES_SUITE

HUMAN = """
from bank import classify


def test_classify():
    assert classify(2, 1) == "greater"
    assert classify(1, 1) == "equal"
    assert classify(0, 1) == "less"


def test_broken():
    assert classify(2, 1) == "less"
"""


def test_a_unit_the_suite_covers_gets_no_budget_and_failures_are_told(tmp_path):
    # not tests/test_bank.py: the suite counts wherever pytest finds it
    root = make_project(tmp_path / "project", {"bank.py": BANK, "tests/test_by_us.py": HUMAN})
    config = CtgConfig(budget=1.0, jobs=1, verify_runs=1, options=Options(evaluations=200))
    report = run_ctg([root], config)
    states = {state.unit.name: state for state in report.units}
    classify = states["classify"]
    assert classify.suite == classify.before and len(classify.suite) == classify.total
    assert classify.status == "skipped" and classify.allocation.reason == "100% covered"
    assert states["Account"].status == "ran" and not states["Account"].suite
    [warning] = [w for w in report.warnings if w.startswith("your suite")]
    assert "test_broken" in warning and "AssertionError" in warning
    lines = reporting.summary(report)
    assert "bank.py: +" in "\n".join(lines)
    assert any(line.startswith("bank.py::Account: +") for line in lines)
    assert (root / "tests" / "test_by_us.py").read_text().strip() == HUMAN.strip()


PART = """
from bank import classify


def test_greater():
    assert classify(2, 1) == "greater"
"""


def test_the_search_of_a_partly_covered_unit_aims_past_the_suite(tmp_path):
    root = make_project(tmp_path / "project", {"bank.py": BANK, "tests/test_by_us.py": PART})
    config = CtgConfig(budget=10.0, jobs=1, verify_runs=1, options=Options(evaluations=200))
    report = run_ctg([root], config)
    classify = next(state for state in report.units if state.unit.name == "classify")
    assert classify.suite and classify.status == "ran"
    result = classify.outcome.result if classify.outcome is not None else None
    assert result is not None and result.covered
    assert not set(result.covered) & set(classify.suite)  # covered before the search began


SIGNS = """
def sign(x: int) -> int:
    if x > 0:
        return 1
    return 0
"""


def test_no_process_is_started_ahead_for_a_second_verification_it_may_not_need(
    tmp_path, monkeypatch
):
    """ctg verifies many modules at once: the second verification's process (for the kept
    tests, when keeping left some out) is not started ahead for each module, most of which
    leave nothing out; one that does starts its run then."""
    from miogen.ctg import runner
    from miogen.run import check

    # the kept tests' verification's process is started ahead only when the verifier is
    # made with ``again_ahead`` (run.verify); ctg's must not be; keeping is still asked for
    started: list[object] = []
    kept: list[object] = []
    real_verifier = check.Verifier

    class Counted(real_verifier):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if self.kept_run.process is not None:
                started.append(self)

        def again(self, result):
            kept.append(result)
            return super().again(result)

    results = []
    real_verify = runner.verify_outcomes

    def recorded(*args, **kwargs):
        results.append(real_verify(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(check, "Verifier", Counted)
    monkeypatch.setattr(runner, "verify_outcomes", recorded)
    root = make_project(tmp_path / "project", {"signs.py": SIGNS})
    config = CtgConfig(budget=1.0, jobs=1, verify_runs=1, options=Options(evaluations=200))
    report = run_ctg([root], config)
    [result] = results
    assert result.tests, "the module's tests were verified"
    assert started == [] and kept != [], "keeping was asked for, nothing started ahead"
    [state] = report.units
    assert state.added == len(result.tests) > 0


def test_a_private_helper_only_other_modules_call_is_a_unit_where_the_suite_leaves_it_open(
    tmp_path,
):
    """As in ``miogen generate``: ``_offset`` of zones.py, reached by no public unit of its
    module and left open by the suite, is a unit of its own; ``_double`` (covered by the
    suite through clock.py) and ``_clean`` (reached by ``describe``) are not."""
    files = {"zones.py": ZONES, "clock.py": CLOCK, "tests/test_zones.py": ZONES_SUITE}
    root = make_project(tmp_path / "project", files)
    config = CtgConfig(budget=5.0, jobs=1, verify_runs=1, options=Options(evaluations=200))
    report = run_ctg([root / "zones.py"], config)
    states = {state.unit.name: state for state in report.units}
    assert sorted(states) == ["_offset", "describe"]
    offset = states["_offset"]
    assert offset.status == "ran" and offset.suite and len(offset.after) > len(offset.before)
    assert "zones.py: private units tested too: _offset (2 of 4 targets open)" in " ".join(
        report.warnings
    )
