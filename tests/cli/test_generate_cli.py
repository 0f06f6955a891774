"""`miogen generate` end to end: real worker processes, pytest and coverage.py, as a user runs it."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from running import miogen


def run_pytest(test_file: Path, import_root: Path, seed: int = 0) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(import_root), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": str(seed),
           "MIOGEN_SHUFFLE_SEED": str(seed)}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "miogen.plugins.shuffle", str(test_file)],
        capture_output=True, text=True, cwd=test_file.parent, env=env,
    )  # fmt: skip


# A generation and ten pytest runs: 28 s on a quiet machine, 210-306 s beside two busy loops
# at load 15-21 (expint), past the suite's 300 s timeout. Timing aims belong in bench/.
@pytest.mark.timeout(1800)
@pytest.mark.parametrize(
    ("subject", "minimum", "evaluations"),
    [("triangle", 100.0, 2000), ("expint", 90.0, 5000), ("gammq", 90.0, 2000)],
)
def test_classic_subjects_reach_the_coverage_aims(classic, tmp_path, subject, minimum, evaluations):
    work = tmp_path / "classic"
    shutil.copytree(classic, work)
    output = tmp_path / "tests" / f"test_{subject}.py"
    # An evaluation budget and a seed: the same search on a busy machine as on a quiet one
    # (under a time budget a busy machine gets fewer evaluations, and maybe less coverage).
    done = miogen(
        "generate", str(work / f"{subject}.py"), "--evaluations", str(evaluations), "--seed", "0",
        "--output", str(output), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["coverage"]["percent"] >= minimum, summary
    assert summary["measured"]["tests_failed"] == 0
    for unit in summary["units"]:
        assert "mismatch" not in unit, unit  # what we claim is what coverage.py measures
        assert unit["coverage"]["covered"] == unit["targets_covered"]
    for seed in range(10):  # random order and hash seed: every test passes every time
        assert run_pytest(output, work, seed).returncode == 0


def statements_of(text: str) -> int:
    """Statements of the test functions, a parametrized test's once per case (the tests it
    stands for): parametrizing shortens a file without taking anything away."""
    total = 0
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            cases = [
                len(decorator.args[1].elts)
                for decorator in node.decorator_list
                if isinstance(decorator, ast.Call) and len(decorator.args) == 2
                and isinstance(decorator.args[1], ast.List)
            ]  # fmt: skip
            body = sum(1 for inner in ast.walk(node) if isinstance(inner, ast.stmt)) - 1
            total += body * max(cases, default=1)
    return total


@pytest.mark.parametrize("subject", ["triangle", "gammq"])
def test_shrinking_and_assertion_selection_keep_measured_coverage(classic, tmp_path, subject):
    work = tmp_path / "classic"
    shutil.copytree(classic, work)
    measured = {}
    modes = {"raw": ["--raw"], "kept": ["--mutation-share", "0"], "mutants": []}
    for mode, flags in modes.items():
        output = tmp_path / mode / f"test_{subject}.py"
        done = miogen(
            "generate", str(work / f"{subject}.py"), "--evaluations", "3000", "--seed", "4",
            "--output", str(output), "--json", *flags,
        )  # fmt: skip
        summary = json.loads(done.stdout)
        measured[mode] = {u["name"]: u["coverage"]["covered"] for u in summary["units"]}
        measured[mode + "_lines"] = statements_of(output.read_text())
    assert measured["raw"] == measured["kept"] == measured["mutants"]
    # The same search: shrinking and assertion selection only take away. (The mutation phase
    # may add tests, for mutants; the measured coverage stays.)
    assert measured["kept_lines"] <= measured["raw_lines"]


def test_one_unit_human_summary_and_rerun_adds_nothing_twice(classic, tmp_path):
    work = tmp_path / "classic"
    shutil.copytree(classic, work)
    output = tmp_path / "test_tri.py"
    target = f"{work / 'triangle.py'}::classify"
    # Coverage only: with the mutation phase, shrinking its suite takes longer than the fixed
    # post-processing allowance on a loaded machine, and a cut-short shrink gives other tests.
    same = (
        "--evaluations",
        "5000",
        "--output",
        str(output),
        "--seed",
        "1",
        "--mutation-share",
        "0",
    )
    first = miogen("generate", target, *same)
    assert first.returncode == 0, first.stderr
    assert "classify: 12/12 targets (coverage.py)" in first.stdout
    text = output.read_text()
    second = miogen("generate", target, *same)
    assert second.returncode == 0
    assert output.read_text().startswith(text), "existing content is kept byte for byte"
    assert "wrote 0 tests" in second.stdout, "the same tests are not added twice"


def test_a_genetic_search_reports_every_criterion_and_the_suites_runtime(classic, tmp_path):
    work = tmp_path / "classic"
    shutil.copytree(classic, work)
    done = miogen(
        "generate", f"{work / 'triangle.py'}::classify", "--algorithm", "adynamosa",
        "--criteria", "all", "--evaluations", "800", "--output", str(tmp_path / "test_t.py"),
        "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    [unit] = summary["units"]
    criteria = unit["criteria"]
    assert list(criteria) == [
        "branch", "direct-branch", "line", "weak-mutation", "method", "method-no-exception",
        "exception", "output",
    ]  # fmt: skip
    assert criteria["branch"] == {
        "covered": unit["coverage"]["covered"], "total": unit["coverage"]["total"],
        "percent": 100.0, "measured_by": "coverage.py",
    }  # fmt: skip
    assert criteria["output"]["measured_by"] == "miogen" and criteria["output"]["total"] == 3
    assert unit["stop_reason"] in ("stagnation", "budget")  # a negative output is infeasible
    assert summary["suite_seconds"] > 0
    bad = miogen("generate", str(work / "triangle.py"), "--criteria", "branch,lines")
    assert bad.returncode == 2 and "unknown criteria lines" in bad.stderr


def test_syntax_error_reports_the_line_and_exits_2(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    return x\n\ndef g(:\n    pass\n")
    done = miogen("generate", str(bad), "--budget", "1", "--output", str(tmp_path / "t.py"))
    assert done.returncode == 2
    assert "bad.py:4: syntax error" in done.stderr
    assert not (tmp_path / "t.py").exists()


def test_import_failure_names_the_exception(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import nonexistent_module_xyz\n\ndef f(x: int) -> int:\n    return x\n")
    done = miogen(
        "generate", str(broken), "--budget", "1", "--output", str(tmp_path / "t.py"), "--json"
    )
    assert done.returncode == 2
    unit = json.loads(done.stdout)["units"][0]
    assert "ModuleNotFoundError" in unit["message"] and "nonexistent_module_xyz" in unit["message"]


def test_unknown_unit_lists_the_available_units(classic):
    done = miogen("generate", f"{classic / 'triangle.py'}::Nope", "--budget", "1")
    assert done.returncode == 2
    assert "available units: classify, classify_name" in done.stderr


def test_a_unit_that_kills_its_worker_is_reported_and_the_others_still_generated(tmp_path):
    module = tmp_path / "mixed.py"
    module.write_text(
        "import os\n\n\ndef dies(x: int) -> int:\n    os._exit(9)\n\n\n"
        "def fine(x: int) -> int:\n    if x > 3:\n        return 1\n    return 0\n"
    )
    output = tmp_path / "test_mixed.py"
    done = miogen(
        "generate", str(module), "--evaluations", "200", "--output", str(output), "--json"
    )  # evaluations, not seconds: the same search for ``fine`` however busy the machine
    summary = json.loads(done.stdout)
    units = {u["name"]: u for u in summary["units"]}
    assert units["dies"]["crashes"], units["dies"]
    assert units["fine"]["coverage"]["covered"] == units["fine"]["coverage"]["total"] == 2
    assert "def test_fine" in output.read_text()
    assert done.returncode == 1  # something failed to generate, and the user is told
