"""`miogen generate` in a project with tests: only what adds to its suite, reported as such."""

from __future__ import annotations

import json
from pathlib import Path

from running import miogen

SIGN = """def sign(x: int) -> int:
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0
"""
POSITIVE = "from signs import sign\n\n\ndef test_positive():\n    assert sign(5) == 1\n"
ALL = POSITIVE + "\n\ndef test_others():\n    assert sign(-5) == -1\n    assert sign(0) == 0\n"


def project(tmp_path: Path, human_tests: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    (tmp_path / "signs.py").write_text(SIGN)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_signs.py").write_text(human_tests)
    return tmp_path


def generate(root: Path, *more: str):
    output = root / "tests" / "test_signs_miogen.py"
    return miogen(
        "generate", str(root / "signs.py"), "--output", str(output), "--evaluations", "2000",
        "--seed", "1", "--mutation-share", "0", *more, cwd=root,
    )  # fmt: skip


def test_what_the_suite_misses_is_added_and_reported_over_it(tmp_path):
    root = project(tmp_path, POSITIVE)
    completed = generate(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "sign: +3 branches over your suite (25.0% → 100.0%)" in completed.stdout
    assert "signs: +3 branches over your suite (25.0% → 100.0%)" in completed.stdout
    assert (root / "tests" / "test_signs.py").read_text() == POSITIVE


def test_a_complete_suite_gets_nothing_and_it_is_no_error(tmp_path):
    root = project(tmp_path, ALL)
    completed = generate(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "your suite already covers every branch of sign; nothing added" in completed.stdout
    assert not (root / "tests" / "test_signs_miogen.py").exists()


GRADE = """

def grade(score: int) -> str:
    if score >= 90:
        return "A"
    return "F"
"""


def test_a_unit_the_suite_covers_is_not_searched_and_the_summary_says_why(tmp_path):
    root = project(tmp_path, ALL)
    (root / "signs.py").write_text(SIGN + GRADE)
    completed = generate(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "sign: covered by your suite (all 4 targets), no search" in completed.stdout
    assert "grade: +2 branches over your suite (0.0% → 100.0%)" in completed.stdout
    assert "def test_grade" in (root / "tests" / "test_signs_miogen.py").read_text()


def test_a_unit_named_is_searched_though_the_suite_covers_it(tmp_path):
    root = project(tmp_path, ALL)
    (root / "signs.py").write_text(SIGN + GRADE)
    output = root / "tests" / "test_signs_miogen.py"
    completed = miogen(
        "generate", f"{root / 'signs.py'}::sign", "--output", str(output), "--evaluations",
        "300", "--seed", "1", "--mutation-share", "0", "--json", cwd=root,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [unit] = json.loads(completed.stdout)["units"]
    assert (unit["name"], unit["status"]) == ("sign", "ok")
    assert unit["evaluations"] > 0


def test_without_the_baseline_every_verified_test_is_kept(tmp_path):
    root = project(tmp_path, ALL)
    completed = generate(root, "--no-baseline")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "your suite" not in completed.stdout
    assert "def test_" in (root / "tests" / "test_signs_miogen.py").read_text()
    assert not (root / ".miogen" / "baseline.json").exists(), "the project's tests did not run"


DOUBLE = """

def double(x: int) -> int:
    return 2 * x
"""


def test_a_function_without_a_branch_is_told_as_lines_not_as_a_branch_added(tmp_path):
    """Its one target is a line goal: coverage.py's branch count does not move when its tests
    run it (issue 23: more-itertools' ``_pairwise`` was "+1 branches")."""
    root = project(tmp_path, ALL)
    (root / "signs.py").write_text(SIGN + DOUBLE)
    completed = generate(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "+1 branches" not in completed.stdout, completed.stdout
    assert (
        "double: no branch added to your suite (it has no branches), "
        "its tests run the lines of 1 function your suite never runs"
    ) in completed.stdout
    assert (
        "your suite already covers every branch of signs; "
        "its tests run the lines of 1 function your suite never runs"
    ) in completed.stdout
    assert "def test_double" in (root / "tests" / "test_signs_miogen.py").read_text()
