"""With mutation on, a test is kept when it kills a mutant the project's suite leaves alive.

A toy project whose suite covers every branch of ``size`` but never calls it at the boundary
(``x >= 10``): the mutants ``x > 10`` and ``x >= 11`` survive it, and only a generated test of
``size(10)`` tells them apart.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from miogen.cli import _print_summary, summarize
from miogen.host.config import Options
from miogen.run.generate import generate_module

SIZE = """\
def size(x: int) -> str:
    if x >= 10:
        return "big"
    return "small"
"""

PATHS = """
from pkg.size import size


def test_big():
    assert size(50) == "big"


def test_small():
    assert size(1) == "small"
"""

BOUNDARY = """

def test_boundary():
    assert size(10) == "big"
    assert size(9) == "small"
"""

OPTIONS = Options(0, evaluations=3000, seed=1)


def project(write_project, tests: str) -> Path:
    files = {"pkg/__init__.py": "", "pkg/size.py": SIZE, "tests/test_size.py": tests}
    return write_project(files, name="toy")


def test_a_test_killing_what_the_suite_misses_is_written_and_reported(write_project):
    root = project(write_project, PATHS)
    output = root / "tests" / "test_size_miogen.py"
    report = generate_module(root / "pkg" / "size.py", None, output, OPTIONS)
    assert report.suite is not None and report.suite.ran
    gain = report.gain
    assert gain.added == 0 and gain.mutants >= 1, gain  # no branch: the suite has them all
    assert "+" in gain.describe() and "mutants killed over your suite" in gain.describe()
    written = output.read_text(encoding="utf-8")
    assert "size(10)" in written, written  # the boundary the suite never checks
    summary = summarize(report)
    assert summary["suite"]["units"]["size"]["mutants_added"] == gain.mutants
    assert any("mutants killed over your suite" in line for line in summary["suite"]["lines"])
    assert (root / "tests" / "test_size.py").read_text(encoding="utf-8") == textwrap.dedent(
        PATHS
    ).lstrip()  # the human file, and the module, are untouched
    assert (root / "pkg" / "size.py").read_text(encoding="utf-8") == SIZE


def test_the_suites_mutant_runs_are_a_step_of_their_own(write_project, capsys):
    """The suite's pytest runs against the mutants take time no other step reports: their
    own step in ``seconds``, their runs in the suite's summary and in the printed one."""
    root = project(write_project, PATHS)
    output = root / "tests" / "test_size_miogen.py"
    report = generate_module(root / "pkg" / "size.py", None, output, OPTIONS)
    verdict = report.suite_kills
    assert verdict is not None and verdict.runs > 0 and verdict.alive, verdict
    summary = summarize(report)
    assert summary["seconds"]["suite_kills"] > 0
    runs = summary["suite"]["mutant_runs"]
    assert runs["runs"] == verdict.runs and runs["seconds"] > 0 and runs["cpu_seconds"] > 0
    assert len(runs["killed"]) + len(runs["alive"]) == len(verdict.killed | verdict.alive)
    _print_summary(summary)
    printed = capsys.readouterr().out
    assert f"mutants: {verdict.runs} pytest runs" in printed, printed


def test_without_mutation_a_fully_covered_module_gets_nothing(write_project):
    root = project(write_project, PATHS)
    output = root / "tests" / "test_size_miogen.py"
    options = Options(0, evaluations=3000, seed=1, mutation_share=0.0)
    report = generate_module(root / "pkg" / "size.py", None, output, options)
    assert not output.exists()
    assert report.gain.mutants == 0
    assert "suite_kills" not in report.seconds and report.suite_kills is None  # no mutant ran
    assert (
        report.gain.describe()
        == "your suite already covers every branch of pkg.size; nothing added"
    )


def test_a_suite_that_kills_every_mutant_gets_nothing(write_project):
    root = project(write_project, PATHS + BOUNDARY)
    output = root / "tests" / "test_size_miogen.py"
    report = generate_module(root / "pkg" / "size.py", None, output, OPTIONS)
    assert not output.exists()
    assert report.gain.mutants == 0 and report.gain.added == 0
    assert report.dropped.adds_nothing  # tests were found, and each added nothing
    assert "kills every mutant they kill" in " ".join(summarize(report)["warnings"])


def test_the_mutants_the_suite_did_not_judge_are_reported(capsys):
    """Past the cap of the suite's runs a mutant is neither killed nor alive: the summary
    lists it apart and the printed line says how many."""
    from miogen.cli import _mutant_runs, _print_suite
    from miogen.host.suite_kills import SuiteKills

    verdict = SuiteKills(killed={("f", 0)}, alive={("f", 1)}, unjudged={("f", 3), ("f", 2)},
                         runs=3, seconds=1.5, cpu_seconds=1.0)  # fmt: skip
    runs = _mutant_runs(verdict)
    assert runs is not None
    assert (runs["killed"], runs["alive"], runs["unjudged"]) == (["f#0"], ["f#1"], ["f#2", "f#3"])
    _print_suite({"failing": {}, "error": "", "ran": True, "lines": [], "mutant_runs": runs})
    assert capsys.readouterr().out == (
        "your suite against 2 mutants, 2 not judged: 3 pytest runs, 1.5s (1.0s CPU)\n"
    )


def test_the_job_asks_the_suite_about_the_module_once_after_the_search(write_project, monkeypatch):
    """The verification asks the baseline about the module once (``Baseline.of_module``) and
    hands the answer down: keeping reads what the suite covers from it, the suite's runs
    against mutants the tests of each unit and line (issue 25: both asked it, and the mutants'
    step asked about each unit through ``Unit.contains`` once more). Before the search, the
    budget's shares ask once too (``run.shares``)."""
    from miogen.host.baseline import Baseline, FileCoverage

    asked: list[str] = []
    coverage_of = Baseline.coverage_of

    def counted(self: Baseline, path: Path) -> FileCoverage:
        asked.append(path.name)
        return coverage_of(self, path)

    monkeypatch.setattr(Baseline, "coverage_of", counted)
    root = project(write_project, PATHS)
    output = root / "tests" / "test_size_miogen.py"
    report = generate_module(root / "pkg" / "size.py", None, output, OPTIONS)
    assert report.suite_kills is not None and report.suite_kills.runs > 0  # the mutants ran
    assert asked == ["size.py", "size.py"]  # the shares, then the verification's one answer
