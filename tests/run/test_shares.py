"""`miogen generate`'s budget goes where the project's suite leaves something uncovered."""

from __future__ import annotations

import json
import subprocess
import sys

from miogen.analysis.model import Target, Unit
from miogen.cli import summarize
from miogen.common.records import Event, Loaded
from miogen.host.config import Options
from miogen.run.generate import generate_module
from miogen.run.shares import COVERED_BY_SUITE, suite_shares
from subjects import CLOCK, SIGN, ZONES, ZONES_SUITE

MODULE = f"""
{SIGN}

def grade(score: int) -> str:
    if score >= 90:
        return "A"
    if score >= 80:
        return "B"
    return "F"
"""
# sign completely; grade only on its first branch's true side
SUITE = """
from m import grade, sign


def test_sign():
    assert sign(5) == 1
    assert sign(-5) == -1
    assert sign(0) == 0


def test_grade():
    assert grade(95) == "A"
"""
EVALUATIONS = Options(0, evaluations=300, seed=1, mutation_share=0)


def unit(name: str, ids: list[int]) -> Unit:
    targets = tuple(Target(i, name, "branch", 1, (1, 2), "") for i in ids)
    return Unit(name, "function", 1, 2, "", targets)


UNITS = [unit("full", [0, 1]), unit("half", [0, 1, 2, 3]), unit("none", [0, 1, 2])]
COVERED = {"full": [0, 1], "half": [0]}


def test_each_unit_weighs_what_the_suite_misses_and_a_covered_one_gets_no_search():
    shares = suite_shares(UNITS, COVERED)
    assert shares.weights == {"half": 3.0, "none": 3.0}
    assert shares.covered == ("full",)


def test_each_unit_job_carries_the_ids_the_suite_covers_of_its_own_targets():
    covered = {"full": [0, 1], "half": [9, 0], "none": []}
    shares = suite_shares(UNITS, covered, named=["full"])
    assert {job.name: job.suite_covered for job in shares.units} == {
        "full": (0, 1),
        "half": (0,),
        "none": (),
    }


def test_a_unit_asked_for_by_name_is_searched_though_the_suite_covers_it():
    shares = suite_shares(UNITS, COVERED, named=["full"])
    assert shares.weights == {"full": None, "half": 3.0, "none": 3.0}
    assert shares.covered == ()


def test_with_every_unit_covered_mutation_keeps_the_search_and_without_it_none_runs():
    covered = {"full": [0, 1], "half": [0, 1, 2, 3], "none": [0, 1, 2]}
    with_mutants = suite_shares(UNITS, covered, mutation=True)
    assert with_mutants.weights == {"full": None, "half": None, "none": None}
    assert suite_shares(UNITS, covered).covered == ("full", "half", "none")
    assert suite_shares(UNITS, covered).units == ()


def generate(root, options=EVALUATIONS):
    loaded: list[Loaded] = []

    def on_event(event: Event) -> None:
        if isinstance(event, Loaded):
            loaded.append(event)

    output = root / "tests" / "test_m_miogen.py"
    report = generate_module(root / "m.py", None, output, options, on_event=on_event)
    return report, loaded


def test_a_unit_the_suite_covers_gets_no_search_and_the_other_the_budget(write_project):
    root = write_project({"m.py": MODULE, "tests/test_m.py": SUITE})
    report, loaded = generate(root)
    sign, grade = report.unit("sign"), report.unit("grade")
    assert sign.skipped == COVERED_BY_SUITE
    assert sign.outcome.result is None and not sign.tests
    assert grade.outcome.result is not None and grade.outcome.result.evaluations > 0
    missed = len(grade.unit.targets) - len(grade.gain.suite) if grade.gain else None
    assert [event.weights for event in loaded] == [{"grade": float(missed)}]
    summary = summarize(report)
    entries = {entry["name"]: entry for entry in summary["units"]}
    assert entries["sign"]["status"] == "skipped"
    assert entries["sign"]["message"] == "covered by your suite"
    assert entries["grade"]["status"] == "ok"
    assert summary["exit_code"] == 0, json.dumps(summary["warnings"])
    lines = summary["suite"]["lines"]
    assert "your suite already covers every branch of sign; nothing added" in lines


def test_the_seconds_budget_is_the_uncovered_units_alone(write_project):
    root = write_project({"m.py": MODULE, "tests/test_m.py": SUITE})
    report, loaded = generate(root, Options(1.0, seed=1, mutation_share=0))
    assert [list(event.weights) for event in loaded] == [["grade"]]
    assert report.unit("sign").skipped == COVERED_BY_SUITE
    assert report.suite is not None and report.suite.ran  # measured once, then verified against


def test_without_a_suite_every_unit_shares_by_size_as_before(write_project):
    root = write_project({"m.py": MODULE})  # a tests/ folder without tests
    report, loaded = generate(root)
    sizes = {u.name: float(len(u.unit.targets)) for u in report.units}
    assert [event.weights for event in loaded] == [sizes]
    assert not any(u.skipped for u in report.units)
    assert all(u.outcome.result is not None for u in report.units)


def test_the_search_aims_past_the_suite_and_its_file_passes_plain_pytest(write_project):
    """Inside grade, which the suite covers in part, the search claims none of the suite's
    targets (they were covered before it started) and covers the rest."""
    root = write_project({"m.py": MODULE, "tests/test_m.py": SUITE})
    report, _ = generate(root)
    grade = report.unit("grade")
    assert grade.gain is not None and grade.gain.suite
    result = grade.outcome.result
    assert result is not None and result.tests
    assert not set(result.covered) & grade.gain.suite
    assert set(result.covered) | grade.gain.suite == {t.id for t in grade.unit.targets}
    assert all(set(test.targets) - grade.gain.suite for test in grade.tests)
    verification = report.verification
    assert verification is not None and not verification.dropped.refused
    written = root / "tests" / "test_m_miogen.py"
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(written)],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_private_helper_other_modules_call_and_the_suite_leaves_open_gets_tests(write_project):
    """``_offset`` is reached by no public unit of zones.py (clock.py calls it), so no public
    unit's targets hold its branches; the suite leaves some open: it is a unit of its own,
    the summary says so, and its tests import it as the project's own code does. ``_double``
    (covered by the suite) and ``_clean`` (reached by ``describe``) are not taken."""
    root = write_project({"zones.py": ZONES, "clock.py": CLOCK, "tests/test_zones.py": ZONES_SUITE})
    output = root / "tests" / "test_zones_miogen.py"
    report = generate_module(root / "zones.py", None, output, EVALUATIONS)
    assert [u.name for u in report.units] == ["describe", "_offset"]
    offset = report.unit("_offset")
    assert offset.gain is not None and offset.gain.suite  # the suite's "+" side, through clock.py
    assert offset.tests and offset.gain.added
    summary = summarize(report)
    assert "private units tested too: _offset (2 of 4 targets open)" in summary["warnings"][0]
    assert summary["exit_code"] == 0, json.dumps(summary["warnings"])
    written = output.read_text()
    assert "from zones import _offset" in written and "_double" not in written
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_without_a_suite_private_helpers_stay_with_their_callers(write_project):
    root = write_project({"zones.py": ZONES, "clock.py": CLOCK})
    report = generate_module(root / "zones.py", None, None, EVALUATIONS)
    assert [u.name for u in report.units] == ["describe"]
