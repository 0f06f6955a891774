"""The module-state fixture: every test starts from the module's state before it, in any order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from emit.test_merge import assert_ruff_format_keeps, ruff
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.state import state_fixture
from miogen.emit.style import Style

COUNTER = """
COUNTS = []
total = 0


def record(x):
    global total
    COUNTS.append(x)
    total += x
    return len(COUNTS), total
"""
TESTS = [
    GeneratedTest("test_record_one", "def test_record_one():\n    assert record(x=1) == (1, 1)\n"),
    GeneratedTest("test_record_two", "def test_record_two():\n    assert record(x=2) == (1, 2)\n"),
]


def write_tests(folder: Path, with_fixture: bool, tests: list[GeneratedTest]) -> Path:
    (folder / "counter.py").write_text(COUNTER)
    imports, fixture = state_fixture("counter")
    functions = [fixture, *tests] if with_fixture else tests
    style = Style(first_party=frozenset({"counter"}))
    text = merge_tests(None, [*imports, "from counter import record"], functions, style=style).text
    path = folder / "test_counter.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("order", [TESTS, TESTS[::-1]])
def test_each_test_gets_a_fresh_module_state(tmp_path: Path, order) -> None:
    path = write_tests(tmp_path, True, order)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout
    assert_ruff_format_keeps(path.read_text())
    check = subprocess.run(
        [ruff(), "check", "--isolated", "--select", "E,F,I,PT,B,UP,SIM", str(path)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout


def test_without_the_fixture_the_second_test_sees_the_first_ones_leftovers(tmp_path: Path) -> None:
    path = write_tests(tmp_path, False, TESTS)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 1 and "1 failed, 1 passed" in run.stdout
