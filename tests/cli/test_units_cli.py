"""`miogen generate` on private units and on modules with nothing public: exit codes and wording."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from coverage import Coverage
from running import miogen

PRIVATE = (
    "def _helper(x: int) -> int:\n    if x > 3:\n        return 1\n    return 0\n\n\n"
    "def __getattr__(name):\n    raise AttributeError(name)\n"
)


def generate(*args: str) -> subprocess.CompletedProcess:
    return miogen("generate", *args)


def test_module_with_only_private_units_gets_tests_for_them_and_says_so(tmp_path: Path):
    module = tmp_path / "helpers.py"
    module.write_text(PRIVATE)
    output = tmp_path / "test_h.py"
    done = generate(str(module), "--evaluations", "500", "--output", str(output))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: the module has no public class or function: tests are for _helper" in done.stdout
    assert "from helpers import _helper" in output.read_text()


def test_a_module_without_code_to_test_refuses_and_writes_nothing(tmp_path: Path):
    module = tmp_path / "constants.py"
    module.write_text("LIMIT = 3\n")
    done = generate(str(module), "--budget", "1", "--output", str(tmp_path / "test_c.py"))
    assert done.returncode == 2
    assert "has no class or function with code to test" in done.stderr
    assert "%" not in done.stdout + done.stderr and not (tmp_path / "test_c.py").exists()


def test_a_run_that_writes_nothing_says_so_and_fails(tmp_path: Path):
    module = tmp_path / "stamps.py"
    # Its one test fails in the verification: the value depends on the hash seed, the worker's
    # is not the verification's.
    module.write_text('def stamp():\n    return hash("fixed") % 1000\n')
    output = tmp_path / "test_stamps.py"
    done = generate(str(module), "--evaluations", "50", "--output", str(output), "--json")
    summary = json.loads(done.stdout)
    assert done.returncode == 1 and summary["exit_code"] == 1, done.stdout
    assert not output.exists()
    assert (
        "no tests written: the verification dropped all 1 found (1 failing)" in summary["warnings"]
    )
    assert summary["coverage"]["covered"] == 0, "what dropped tests ran is not coverage"


def test_a_private_function_named_explicitly_gets_tests(tmp_path: Path):
    module = tmp_path / "helpers.py"
    module.write_text(PRIVATE)
    output = tmp_path / "test_helpers.py"
    done = generate(f"{module}::_helper", "--evaluations", "500", "--output", str(output), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["coverage"]["covered"] == summary["coverage"]["total"] == 2
    assert "from helpers import _helper" in output.read_text()


def test_zero_targets_show_no_percentage(tmp_path: Path):
    module = tmp_path / "doc.py"
    module.write_text('def documented():\n    """Only a docstring."""\n')
    done = generate(f"{module}::documented", "--budget", "1", "--output", str(tmp_path / "t.py"))
    assert "0/0 targets" in done.stdout and "%" not in done.stdout, done.stdout
    as_json = generate(f"{module}::documented", "--budget", "1", "--json")
    assert json.loads(as_json.stdout)["coverage"]["percent"] is None


FACTORY = """\
def retry(times):
    if times < 1:
        raise ValueError("times must be positive")

    def decorate(function):
        return function

    return decorate
"""


def test_a_decorator_factory_gets_a_callable_check(tmp_path: Path):
    module = tmp_path / "decorators.py"
    module.write_text(FACTORY)
    output = tmp_path / "test_decorators.py"
    done = generate(str(module), "--evaluations", "300", "--output", str(output), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["dropped_failing_tests"] == [], summary
    text = output.read_text()
    assert "assert callable(retry(" in text and "function)" not in text, text
    assert summary["coverage"]["covered"] == summary["coverage"]["total"] == 2


def test_the_percentage_shown_is_coverage_pys_own_on_the_written_file(tmp_path: Path):
    module = tmp_path / "clamps.py"
    module.write_text(
        "def clamp(x):\n    if x > 10:\n        return 10\n"
        "    if x is None and x > 3:  # never both\n        return -1\n    return x\n"
    )
    output = tmp_path / "out" / "test_clamps.py"
    # Without the baseline every verified test is written, and the figure is of all of them
    # (a run that drops tests for adding nothing shows no module figure, only its gain).
    done = generate(str(module), "--evaluations", "300", "--output", str(output), "--json",
                    "--no-baseline")  # fmt: skip
    shown = json.loads(done.stdout)["measured"]["module_percent"]
    data = tmp_path / "coverage.dat"
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={data}",
         f"--include={module}", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
        cwd=tmp_path, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}, check=True,
        capture_output=True,
    )  # fmt: skip
    measured = Coverage(data_file=str(data), config_file=False)
    measured.load()
    assert shown == round(measured.report(file=io.StringIO()), 1) < 100.0
    text = generate(
        str(module), "--evaluations", "300", "--output", str(output), "--no-baseline"
    ).stdout
    assert f"the module at {shown}% by coverage.py" in text
