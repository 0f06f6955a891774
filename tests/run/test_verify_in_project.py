"""Verification as the user's pytest sees the tests: from the project's root, with its pytest
configuration, import mode and conftest files, no PYTHONPATH of miogen's (issue 23, part 5)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.cli import _print_summary, summarize
from miogen.common.project import (
    ModuleLocation,
    default_test_path,
    locate,
    project_folder,
    project_tests_folder,
)
from miogen.common.records import StopReason, TestRecord, UnitOutcome, UnitResult
from miogen.run.result import ModuleRun
from miogen.run.verify import verify_outcomes
from miogen.run.write import Output, write_module

MODES = """
import os


def sign(x: int) -> int:
    if x > 0:
        return 1
    return 0


def mode() -> str:
    return os.environ.get("APP_MODE", "plain")
"""

HUMAN = """
from app.modes import sign


def test_zero():
    assert sign(0) == 0
"""

# What the worker saw (its process has no conftest.py of the project): mode() is "plain".
TESTS = {
    "sign": ("test_sign", "assert sign(3) == 1"),
    "mode": ("test_mode", 'assert mode() == "plain"'),
}


def project(write_project, pytest_options: str = "", human: bool = False) -> ModuleLocation:
    """A src/ layout project, not installed; ``pytest_options``: its [tool.pytest.ini_options]."""
    files = {"src/app/__init__.py": "", "src/app/modes.py": MODES}
    if human:
        files["tests/test_human.py"] = HUMAN
    root = write_project(files, name="app", pytest_options=pytest_options)
    return locate(root / "src" / "app" / "modes.py")


def run(location: ModuleLocation, units: tuple[str, ...] = ("sign", "mode")) -> ModuleRun:
    """The worker's tests for ``units``, verified for the file they will be written to (each
    with a generous time: the machine running the tests may be loaded)."""
    model = analyze_file(location.path, location.module_name)
    outcomes = []
    for unit in units:
        name, body = TESTS[unit]
        record = TestRecord(name, f"def {name}():\n    {body}\n", (unit,), (), (), 0, [])
        result = UnitResult(unit, 2, (), (record,), (), StopReason.BUDGET)
        outcomes.append(UnitOutcome(unit, result=result))
    result = verify_outcomes(
        location, model, [model.unit(u) for u in units], outcomes, test_timeout=20.0, runs=1,
        folder=project_folder(location, default_test_path(location)),
    )  # fmt: skip
    tests_root = project_tests_folder(location.project_root, location.path)
    write_module(result, Output(default_test_path(location), location.project_root,
                                tests_root=tests_root))  # fmt: skip
    return result


def plain_pytest(root: Path) -> subprocess.CompletedProcess[str]:
    """The user's run: ``python -m pytest`` at the project's root, nothing on PYTHONPATH."""
    environment = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=root, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_a_module_the_projects_pytest_cannot_import_gets_no_tests_and_the_fix(
    write_project, tmp_path, capsys
):
    location = project(write_project)
    before = files(tmp_path)
    result = run(location, ("sign",))
    assert result.tests == [] and result.output is None
    said = result.verification.dropped.unimportable if result.verification else ""
    assert "cannot import app.modes" in said and 'pythonpath = ["src"]' in said
    assert "pip install -e ." in said
    summary = summarize(result)
    assert summary["exit_code"] == 1
    assert summary["test_file_error"] == said
    _print_summary(summary)
    printed = capsys.readouterr().out
    assert f"the test file could not be imported: {said}; no test kept" in printed
    assert files(tmp_path) == before, "the copy verified in the project is gone"


def test_with_pythonpath_set_the_tests_are_written_and_pass_under_plain_pytest(
    write_project, tmp_path
):
    location = project(write_project, 'pythonpath = ["src"]')
    result = run(location, ("sign",))
    assert [t.name for t in result.tests] == ["test_sign"]
    assert result.verification is not None and result.verification.in_project
    assert not [n for n in result.notes if "import" in n], result.notes
    assert result.output == tmp_path / "tests" / "app" / "test_app_modes_miogen.py"
    assert not [f for f in files(tmp_path) if "miogen_verifying" in f]
    done = plain_pytest(tmp_path)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


def test_importlib_mode_and_the_conftest_the_tests_need(write_project, tmp_path):
    # The project's conftest.py puts src/ on sys.path (its tests need it to import the package)
    # and sets what the module reads: a test of what the worker saw without it would fail.
    location = project(write_project, 'addopts = "--import-mode=importlib"', human=True)
    (tmp_path / "conftest.py").write_text(
        "import os, sys\nfrom pathlib import Path\n\n"
        "sys.path.insert(0, str(Path(__file__).parent / 'src'))\n"
        "os.environ['APP_MODE'] = 'test'\n"
    )
    result = run(location)
    assert [t.name for t in result.tests] == ["test_sign"]
    assert result.verification is not None
    assert result.verification.dropped.failing == ["test_mode"]
    assert result.output is not None and result.output.exists()
    done = plain_pytest(tmp_path)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


def test_a_tests_folder_that_is_a_package_imports_the_file_under_its_dotted_name(
    write_project, tmp_path
):
    # rootdir-based package names: pytest imports tests/__init__.py (which sets up the
    # project's tests) before tests.app.test_modes_miogen.
    location = project(write_project, human=True)
    (tmp_path / "tests" / "__init__.py").write_text(
        "import os, sys\nfrom pathlib import Path\n\n"
        "sys.path.insert(0, str(Path(__file__).parents[1] / 'src'))\n"
        "os.environ['APP_MODE'] = 'test'\n"
    )
    result = run(location)
    assert [t.name for t in result.tests] == ["test_sign"]
    assert result.output == tmp_path / "tests" / "app" / "test_modes_miogen.py"
    assert (tmp_path / "tests" / "app" / "__init__.py").is_file()
    done = plain_pytest(tmp_path)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


def test_a_file_outside_any_project_is_verified_as_before(tmp_path):
    # No project marker: the file's own folder, its import root on PYTHONPATH (the README's
    # example, written to /tmp).
    (tmp_path / "modes.py").write_text(MODES.lstrip())
    location = locate(tmp_path / "modes.py")
    model = analyze_file(location.path, location.module_name)
    name, body = TESTS["sign"]
    record = TestRecord(name, f"def {name}():\n    {body}\n", ("sign",), (), (), 0, [])
    outcome = UnitOutcome(
        "sign", result=UnitResult("sign", 2, (), (record,), (), StopReason.BUDGET)
    )
    out = tmp_path / "out" / "test_modes.py"
    result = verify_outcomes(location, model, [model.unit("sign")], [outcome], 20.0, runs=1,
                             folder=project_folder(location, out))  # fmt: skip
    assert [t.name for t in result.tests] == ["test_sign"]
    assert result.verification is not None and not result.verification.in_project


def test_pytests_internal_error_is_said_by_its_exception_line():
    """A plugin's warning made an error stops pytest before any test: the reason given is the
    exception pytest printed, not coverage.py's "no data" warning after it."""
    from miogen.host.measure import Measurement
    from miogen.run.check import _not_run

    output = (
        "INTERNALERROR> Traceback (most recent call last):\n"
        'INTERNALERROR>   File "plugin.py", line 306, in pytest_configure\n'
        "INTERNALERROR>     warnings.warn(PytestDeprecationWarning(UNSET))\n"
        "INTERNALERROR> pytest.PytestDeprecationWarning: The option is unset.\n"
        "control.py:964: CoverageWarning: No data was collected. (no-data-collected)\n"
        '  self._warn("No data was collected.", slug="no-data-collected")\n'
    )
    run = Measurement(exit_code=3, output=output)
    assert (
        _not_run(run)
        == "pytest exited with 3: pytest.PytestDeprecationWarning: The option is unset."
    )


def test_pytest_stopped_at_start_up_without_a_report_is_a_run_of_no_test():
    """Exit status 1 is also Python's for an exception pytest did not catch (at start-up, a
    warning the project's ``filterwarnings = error`` made an error): no JUnit report, no test
    ran. Read as "1: tests failed" with none failing, the file was written unverified."""
    from miogen.host.measure import Measurement
    from miogen.run.check import _not_run

    output = (
        "Traceback (most recent call last):\n"
        '  File "rewrite.py", line 274, in _warn_already_imported\n'
        "    self.config.issue_config_time_warning(\n"
        "pytest.PytestAssertRewriteWarning: Module already imported so cannot be rewritten: x\n"
    )
    stopped = Measurement(exit_code=1, output=output)
    assert _not_run(stopped) == (
        "pytest exited with 1: pytest.PytestAssertRewriteWarning: Module already imported so"
        " cannot be rewritten: x"
    )
    assert _not_run(Measurement(exit_code=1, output=output, reported=True)) == ""
    assert _not_run(Measurement(exit_code=1, failed=1, reported=True)) == ""
