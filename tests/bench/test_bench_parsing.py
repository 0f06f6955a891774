"""The harness's readers: suite size, Pynguin's statistics, cosmic-ray's dump, miogen's summary."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from bench import measure, mutation, pynguin
from bench.run import COLUMNS, Job, Outcome, make_row, ours_outcome


@pytest.mark.parametrize("module", [measure, mutation, pynguin])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_suite_size_counts_test_functions_and_nested_statements():
    source = """
import pytest

def helper():
    return 1

def test_plain():
    x = helper()
    assert x == 1

def test_raises():
    with pytest.raises(ValueError):
        int("x")

class TestGroup:
    def test_method(self):
        if True:
            pass
"""
    assert measure.suite_size(source) == (3, 2 + 2 + 2)
    assert measure.suite_size("def test_(:\n") == (0, 0)


def test_pynguin_statistics_give_rate_claim_and_timeline(tmp_path: Path):
    report = tmp_path / "statistics.csv"
    report.write_text(
        '"TargetModule","Coverage","SearchTime","Executed","CoverageTimeline_T1",'
        '"CoverageTimeline_T2"\n"triangle","0.9","2000000000","300","0.5","0.9"\n'
    )
    statistics = pynguin.read_statistics(report)
    run = pynguin.PynguinRun("ok", 9.5, None, statistics)
    assert run.search_seconds == 2.0
    assert run.executions == 300
    assert run.claimed_percent == pytest.approx(90.0)
    assert run.timeline() == [(1.0, 50.0), (2.0, 90.0)]
    assert pynguin.read_statistics(tmp_path / "missing.csv") == {}


def test_mutation_tally_counts_only_finished_jobs_and_unit_mutants():
    lines = [
        [{"mutations": [{"definition_name": "classify"}]}, {"test_outcome": "killed"}],
        [{"mutations": [{"definition_name": "Shape.area"}]}, {"test_outcome": "survived"}],
        [{"mutations": [{"definition_name": None}]}, {"test_outcome": "incompetent"}],
        [{"mutations": [{"definition_name": "classify"}]}, None],
    ]
    score = mutation.tally("\n".join(json.dumps(x) for x in lines), {"classify", "Shape"})
    assert (score.killed, score.survived, score.incompetent, score.total) == (1, 1, 1, 3)
    assert score.score == 50.0 and score.unit_score == 50.0


def test_ours_outcome_sums_units_and_scales_the_timeline(tmp_path: Path):
    summary = {
        "units": [
            {"name": "f", "status": "ok", "coverage": {"total": 4}, "targets_covered": 3,
             "search_seconds": 0.5, "executions": 1000},
            {"name": "g", "status": "crashed", "coverage": {"total": 6}, "targets_covered": 1,
             "search_seconds": 1.5, "executions": 3000},
        ],
        "timeline": [[0.9, 2], [1.4, 4]],
        "timeline_total": 10,
    }  # fmt: skip
    outcome = ours_outcome(summary, 7.0, tmp_path / "absent.py")
    assert outcome.status == "unit-failed" and "g: crashed" in outcome.message
    assert (outcome.executions, outcome.search_seconds) == (4000, 2.0)
    assert outcome.claimed_percent == 40.0
    assert outcome.timeline == [(0.9, 20.0), (1.4, 40.0)]
    assert outcome.test_file is None


def test_make_row_fills_every_column(tmp_path: Path):
    folder = tmp_path / "runs" / "triangle" / "mio-5s-seed0"
    folder.mkdir(parents=True)
    test_file = folder / "test_triangle_miogen.py"
    test_file.write_text("")
    outcome = Outcome(wall_seconds=6.0, search_seconds=2.0, executions=5000, test_file=test_file)
    row = make_row(Job("triangle", "mio", "seconds", 5, 0), outcome, measure.SuiteMeasure(), folder)
    assert list(row) == COLUMNS
    assert row["executions_per_second"] == 2500.0
    assert row["test_file"] == "runs/triangle/mio-5s-seed0/test_triangle_miogen.py"


def test_measure_suite_runs_coverage_on_a_real_file(tmp_path: Path):
    module = tmp_path / "proj" / "sign.py"
    module.parent.mkdir()
    module.write_text("def sign(x):\n    if x > 0:\n        return 1\n    return -1\n")
    tests = tmp_path / "test_sign.py"
    tests.write_text("from sign import sign\n\ndef test_positive():\n    assert sign(2) == 1\n")
    result = measure.measure_suite(tests, module)
    assert (result.branches_covered, result.branches_total) == (1, 2)
    assert (result.tests, result.statements, result.tests_passed) == (1, 1, 1)
    assert (result.targets_covered, result.targets_total) == (1, 2)
    floor = measure.measure_suite(None, module)
    assert (floor.branches_covered, floor.statements_covered, floor.tests) == (0, 1, 0)
