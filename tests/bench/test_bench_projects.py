"""`python -m bench projects`: its pins, its readers (JUnit, cosmic-ray), its tables and totals."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

from bench import projects
from bench.projects import PROJECTS, ProjectResult, failing_tests, totals


def test_doctests():
    assert doctest.testmod(projects).failed == 0


def test_at_least_six_pinned_projects_with_three_mutation_modules():
    assert len({p.name for p in PROJECTS}) == len(PROJECTS) >= 6
    for project in PROJECTS:
        assert len(project.sha256) == 64 and project.modules
        assert {module for module, _ in project.mutation} <= set(project.modules)
    assert sum(len(p.mutation) for p in PROJECTS) >= 3


def test_junit_failures_and_errors_are_failing(tmp_path: Path):
    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_a_miogen" name="test_ok"/>'
        '<testcase classname="tests.test_a_miogen" name="test_bad"><failure/></testcase>'
        '<testcase classname="tests.test_b" name="test_err"><error/></testcase>'
        "</testsuite></testsuites>"
    )
    assert failing_tests(junit) == ["tests.test_a_miogen::test_bad", "tests.test_b::test_err"]
    assert failing_tests(tmp_path / "absent.xml") == []


def test_a_test_failing_in_one_run_of_three_is_flaky_not_failing():
    failing, flaky = projects.failing_and_flaky([["t::x"], [], ["t::x"]])
    assert (failing, flaky) == ([], ["t::x"])


def result(name: str, covered: int, combined: int, pynguin: int | None, **more) -> ProjectResult:
    r = ProjectResult(name, [f"{name}/m.py"], human_branches=10, human_covered=covered,
                      combined_covered=combined, pynguin_covered=pynguin, **more)  # fmt: skip
    return r


def test_table_and_totals_count_missed_added_and_pynguin():
    results = [
        result("a", 4, 7, 5, generated_tests=3, generated_flaky=["x"], unreachable=2),
        result("b", 10, 10, None, human_files_modified=1, generated_failing=["y", "z"]),
    ]
    lines = projects.table(results)
    assert len(lines) == 4 and lines[0].count("|") == lines[2].count("|")
    assert "| 6 (2) | 7/10 70.0% | 3 | 1 |" in lines[2] and "3 (0, 1)" in lines[2]
    assert "| 0 | not run | 1 |" in lines[3]
    assert totals(results) == (
        "Totals: human suites miss 6 of 20 branches, 4 of them reachable on this Python; miogen "
        "adds 3 (50% of the missed, 75% of the reachable); Pynguin adds 1 (on 1 of 2 projects); "
        "human files modified 1; generated tests failing 2, flaky 1."
    )


def test_unreachable_counts_python2_sides_and_dead_feature_checks():
    source = (
        "import sys\n"
        "PY3 = sys.version_info[0] == 3\n"
        "print_ = getattr(__builtins__, 'print', None)\n"
        "if PY3:\n"
        "    a = 1\n"
        "else:\n"
        "    a = 2\n"
        "if print_ is None:\n"
        "    b = 1\n"
        "c = a\n"
    )
    # 4->7 (Python 2's side), 8->9 (print exists here) cannot be taken; 8->10 can
    assert projects.unreachable(source, [[4, 7], [8, 9], [8, 10]]) == 2
    assert projects.unreachable(source, [[8, 10]]) == 0


def test_mutation_table_only_when_measured():
    assert projects.mutation_table([result("a", 6, 9, None)]) == []
    measured = result("a", 6, 9, None)
    measured.mutants.append({"module": "a/m.py", "human_tests": "tests/test_m.py",
                             "mutants": 40, "human_alive": 5, "generated_kill": 2,
                             "miogen_reported": 1, "seconds": 1.0})  # fmt: skip
    lines = projects.mutation_table([measured])
    # "-": a run from before timeouts were counted apart, and before the whole suite's baseline
    assert lines[2] == "| a | a/m.py | file tests/test_m.py | 40 | 5 | 2 | - | - | 1 | 1.0 |"
    del measured.mutants[0]["miogen_reported"]  # a row of a run before that column
    assert projects.mutation_table([measured])[2].endswith("| 2 | - | - |  | 1.0 |")
    json.dumps(measured.mutants)  # what results.json holds


TOY = (  # a one-module project's module: three sides of two branches
    "def sign(x: int) -> str:\n"
    "    if x > 0:\n"
    "        return 'positive'\n"
    "    if x == 0:\n"
    "        return 'zero'\n"
    "    return 'negative'\n"
)


def toy_project(tmp_path: Path, monkeypatch) -> projects.Project:
    """A pinned sdist of a one-module project whose own test takes one side of its branch."""
    import hashlib
    import tarfile

    source = tmp_path / "toy-1.0"
    (source / "tests").mkdir(parents=True)
    (source / "toy.py").write_text(TOY)
    (source / "tests" / "test_toy.py").write_text(
        "from toy import sign\n\n\ndef test_positive():\n    assert sign(3) == 'positive'\n"
    )
    cache = tmp_path / "cache"
    cache.mkdir()
    with tarfile.open(cache / "toy-1.0.tar.gz", "w:gz") as tar:
        tar.add(source, arcname="toy-1.0")
    monkeypatch.setattr(projects, "CACHE", cache)
    digest = hashlib.sha256((cache / "toy-1.0.tar.gz").read_bytes()).hexdigest()
    return projects.Project("toy", "1.0", digest, ("toy.py",), "tests")


# Two whole runs of a project, each five pytest processes under coverage: 260 s a run with
# both cores busy beside other work (load 18, scripts/check-busy.sh), over the suite's 300 s.
@pytest.mark.timeout(1800)
def test_a_budget_in_evaluations_reaches_miogen_is_recorded_and_repeats(tmp_path, monkeypatch):
    toy = toy_project(tmp_path, monkeypatch)
    # budget 0 s: only the evaluations per unit can give miogen's search anything to do
    runs = [projects.run_project(toy, 0.0, seed=1, evaluations=60) for _ in range(2)]
    first, second = runs
    assert (first.evaluations, first.budget, first.seed) == (60, None, 1)
    assert (first.human_covered, first.human_branches) == (1, 4)
    assert first.added == 3 and first.human_files_modified == 0
    assert first.generated_failing == first.generated_flaky == []
    counts = ("combined_covered", "generated_tests", "still_missed", "miogen_lines")
    assert [getattr(first, c) for c in counts] == [getattr(second, c) for c in counts]
    assert first.python == "miogen's own"


def test_unreachable_counts_the_body_of_a_script_guard():
    source = (
        "def f(x):\n"
        "    if x:\n"
        "        return 1\n"
        "    return 2\n"
        "\n"
        "\n"
        'if __name__ == "__main__":\n'
        "    print(f(1))\n"
    )
    # 7->8: only `python module.py` runs it; 2->4 a test can take
    assert projects.unreachable(source, [[7, 8], [2, 4]]) == 1
    assert projects.unreachable(source.replace('"__main__"', '"other"'), [[7, 8]]) == 0


def test_an_editable_install_names_the_source_folder_and_the_version(tmp_path: Path):
    import importlib.metadata

    root, site = tmp_path / "toy-1.0", tmp_path / "site"
    site.mkdir()
    (root / "src").mkdir(parents=True)
    (root / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: toy-kit\nVersion: 1.0\n")
    toy = projects.Project("toy-kit", "1.0", "0" * 64, ("src/toy.py",), "tests", path="src")
    for _ in range(2):  # a second run's copy replaces the first's
        projects.install_editable(toy, root, site)
    assert (site / "bench-project.pth").read_text() == f"{root / 'src'}\n"
    found = list(importlib.metadata.distributions(path=[str(site)]))
    assert [(d.metadata["Name"], d.version) for d in found] == [("toy-kit", "1.0")]


def test_marshmallow_and_dateutil_mutants_run_in_their_own_environment():
    measured = {p.name: p for p in PROJECTS if p.mutation}
    assert {"toolz", "idna", "marshmallow", "python-dateutil"} <= set(measured)
    for name in ("marshmallow", "python-dateutil"):
        assert measured[name].requires  # so its pytest runs in the project's venv
        for module, tests in measured[name].mutation:
            assert module.startswith("src/") and all(t.startswith("tests/") for t in tests.split())


FAKE_COSMIC_RAY = """#!{python}
# cosmic-ray apply MODULE OPERATOR OCCURRENCE, for a toy: each operator rewrites one thing
import sys
_, _, module, operator, _ = sys.argv
text = open(module).read()
text = {{
    "Break": text.replace("'positive'", "'POSITIVE'"),
    "Hang": text.replace("    if x > 0:", "    import time; time.sleep(600)\\n    if x > 0:"),
    "Quiet": text.replace("'negative'", "'NEGATIVE'"),
    "Import": text.replace("def sign(x):", "def sign(x, y=1 // 0):"),
    "Syntax": text.replace("if x > 0:", "if x >> :"),
    "Same": text,
}}[operator]
open(module, "w").write(text)
"""

SIGN = (
    "def sign(x):\n"
    "    if x > 0:\n"
    "        return 'positive'\n"
    "    if x == 0:\n"
    "        return 'zero'\n"
    "    return 'negative'\n"
)


# About twenty pytest processes (one under coverage) and 15 s + 30 s timeouts: 115 s at load 14,
# over 300 s beside the whole tests/host and tests/bench and four bench runs.
@pytest.mark.timeout(1200)
def test_the_baseline_is_the_whole_suite_by_the_tests_of_the_mutated_lines(tmp_path, monkeypatch):
    """The module's test file checks only that ``sign(1)`` is true; another file of the suite
    checks its value: ``Break`` is killed by the suite (the module's file alone left it alive,
    a kill miogen could not add). It runs the two tests that run line 3, not the whole suite.
    ``Quiet`` is on a line no test runs: alive, with no run, and the generated file kills it.
    ``Import`` is on a line run as the module is imported: the whole suite runs. ``Hang`` times
    out twice: counted apart. ``Same`` and ``Syntax`` are not counted. The checked mutant has
    the whole suite's verdict beside its lines' tests'."""
    import sys

    import bench.mutation

    root = tmp_path / "toy"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "toy.py").write_text(SIGN)
    (root / "tests" / "test_toy.py").write_text(
        "from toy import sign\n\n\ndef test_truthy():\n    assert sign(1)\n"
    )
    (root / "tests" / "test_other.py").write_text(
        "from toy import sign\n\n\ndef test_exact():\n    assert sign(2) == 'positive'\n"
        "\n\ndef test_broken():\n    assert sign(2) == 'other'\n"  # fails: never selected
    )
    generated = root / "tests" / "test_toy_miogen.py"
    generated.write_text(
        "from toy import sign\n\n\ndef test_negative():\n    assert sign(-1) == 'negative'\n"
    )
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "cosmic-ray").write_text(FAKE_COSMIC_RAY.format(python=sys.executable))
    (venv / "bin" / "cosmic-ray").chmod(0o755)
    calls = tmp_path / "calls.txt"
    python = tmp_path / "project-python"
    python.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)

    def session(workdir, scratch, module, tests, interpreter, options="", env=None, **more):
        assert (workdir, module, more["sample"]) == (root, "toy.py", 6)
        more["totals"].append(9)  # the module's mutants before the sample
        return scratch / "session.sqlite"

    listed = [("Import", 0, 1, 1), ("Hang", 0, 2, 2), ("Syntax", 0, 2, 2), ("Break", 0, 3, 3),
              ("Same", 0, 4, 4), ("Quiet", 0, 6, 6)]  # fmt: skip
    monkeypatch.setattr(bench.mutation, "VENV", venv)
    monkeypatch.setattr(bench.mutation, "ensure_cosmic_ray", lambda: "8.7.0")
    monkeypatch.setattr(bench.mutation, "init_session", session)
    monkeypatch.setattr(bench.mutation, "session_mutants", lambda path: listed)
    monkeypatch.setattr(projects, "MUTANT_TIMEOUT", 15.0)  # Hang sleeps 600 s
    monkeypatch.setattr(projects, "RERUN_TIMEOUT", 30.0)
    # the generated file's first run against Quiet is stopped, as on a loaded machine: it runs
    # once more, as the suite's runs do, and kills it then
    real_run, stopped = projects.run_mutant, []

    def run_mutant(tool, root, module, mutant, tests, *rest):
        if tests == [str(generated)] and not stopped:
            stopped.append(mutant)
            return "timeout"
        return real_run(tool, root, module, mutant, tests, *rest)

    monkeypatch.setattr(projects, "run_mutant", run_mutant)
    found = projects.mutants(
        root, "toy.py", "tests/test_toy.py", generated, tmp_path / "s", str(python), sample=6,
        check=2,
    )  # fmt: skip
    assert (found["mutants"], found["of_mutants"], found["incompetent"]) == (4, 9, 2)
    assert (found["human_alive"], found["uncovered"], found["generated_kill"]) == (1, 1, 1)
    assert found["alive"] == [["Quiet", 0, 6, "killed"]]
    assert (stopped, found["generated_timeout"]) == ([("Quiet", 0, 6)], 0)
    assert (found["human_timeout"], found["timeouts_rerun"]) == (1, 1)
    assert found["suite_runs"] == {"lines": 3, "whole": 1}  # Hang, Syntax, Break; Import
    assert found["suite_failing"] == ["tests/test_other.py::test_broken"]
    assert found["checked"] == [["Break", 0, 3, "killed", "killed"]]
    assert (root / "toy.py").read_text() == SIGN  # put back after each run
    runs = [line.split() for line in calls.read_text().splitlines() if "pytest" in line]
    lines3 = ["tests/test_other.py::test_exact", "tests/test_toy.py::test_truthy"]
    assert ["-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *lines3] in runs
    whole = [run for run in runs if run[1] == "pytest" and f"--ignore={generated}" in run]
    assert whole and all("--deselect=tests/test_other.py::test_broken" in run for run in whole)


def test_mutation_table_counts_timeouts_apart():
    measured = result("a", 6, 9, None)
    measured.mutants.append({"module": "a/m.py", "human_tests": "tests/test_m.py",
                             "mutants": 40, "human_alive": 5, "generated_kill": 2,
                             "human_timeout": 1, "timeouts_rerun": 3,
                             "miogen_reported": 1, "seconds": 1.0})  # fmt: skip
    lines = projects.mutation_table([measured])
    assert lines[0].count("|") == lines[2].count("|")
    assert lines[2] == "| a | a/m.py | file tests/test_m.py | 40 | 5 | 2 | 1 (3) | - | 1 | 1.0 |"
    measured.mutants[0]["of_mutants"] = 700  # a sample of 40
    assert projects.mutation_table([measured])[2].startswith(
        "| a | a/m.py | file tests/test_m.py | 40 (of 700) | 5 |"
    )
    measured.mutants[0].update(baseline="the whole suite", uncovered=2,
                               checked=[["A", 0, 3, "killed", "killed"], ["B", 0, 4, "survived",
                                                                          "killed"]])  # fmt: skip
    assert projects.mutation_table([measured])[2] == (
        "| a | a/m.py | whole suite, tests of the lines | 40 (of 700) | 5 (2) | 2 | 1 (3) "
        "| 2 (1) | 1 | 1.0 |"
    )


def test_the_results_are_written_after_each_project(tmp_path, monkeypatch):
    """A long run (mutants take an hour) stopped in its third project keeps its first two."""
    done = []

    def run(project, *args):
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(project.name)
        return ProjectResult(project.name, list(project.modules))

    monkeypatch.setattr(projects, "run_project", run)
    monkeypatch.setattr(projects, "RESULTS", tmp_path)
    with pytest.raises(KeyboardInterrupt):
        projects.main(["--projects", "toolz", "idna", "six", "--no-pynguin", "--output", "o"])
    rows = json.loads((tmp_path / "o.json").read_text())
    assert [row["project"] for row in rows] == [p for p in ("toolz", "six", "idna") if p in done]


# One `miogen generate` whose suite runs against each of its mutants: 85 s at load 10.
@pytest.mark.timeout(1200)
def test_under_an_evaluation_budget_miogen_judges_its_mutants_against_the_suite(tmp_path):
    """At --budget 2 the worker had too little time left to judge mutants at times; with a
    budget in evaluations (and 0 s), it judges them: the suite covers every branch, so only
    the mutants it leaves alive can add, and miogen says how many of them its tests kill."""
    root = tmp_path / "toy"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "toy.py").write_text(TOY)
    (root / "tests" / "test_toy.py").write_text(  # every branch, no value checked
        "from toy import sign\n\n\ndef test_every_side():\n    assert sign(3) and sign(0) and sign(-2)\n"
    )
    toy = projects.Project("toy", "1.0", "0" * 64, ("toy.py",), "tests", (("toy.py", "t"),))
    said = projects.generate(toy, root, "toy.py", 0.0, seed=1, evaluations=60)
    assert any("your suite already covers every branch of toy" in line for line in said), said
    assert projects.reported_kills(said, "toy") > 0
    assert projects.generated_path(toy, root, "toy.py").exists()
