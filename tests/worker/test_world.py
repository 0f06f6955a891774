"""The worker runs tests as pytest will, and pytest runs them as the worker did (issue 12 part 3)."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from _pytest.capture import DontReadFromInput
from _pytest.config import parse_warning_filter as pytests_parse
from miogen.host.config import Options
from miogen.run.generate import generate_module
from miogen.worker.world import CapturedStdin, parse_warning_filter


def project(tmp_path: Path, source: str, pyproject: str = "") -> Path:
    """A project folder with pyproject.toml and ``mod.py``; returns the module's path."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n" + pyproject)
    module = tmp_path / "mod.py"
    module.write_text(textwrap.dedent(source).lstrip())
    return module


def run_users_pytest(root: Path, test_file: Path) -> subprocess.CompletedProcess:
    """pytest as a user runs it: in the project root, reading the project's configuration."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=root, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.read(),
        lambda s: s.readline(),
        lambda s: s.readlines(),
        lambda s: next(iter(s)),
        lambda s: s.fileno(),
        lambda s: s.flush(),
    ],
)
def test_stdin_raises_as_pytests_capture_does(call):
    def outcome(stream) -> tuple[type, str]:
        with pytest.raises((OSError, io.UnsupportedOperation)) as raised:
            call(stream)
        return raised.type, str(raised.value)

    assert outcome(CapturedStdin()) == outcome(DontReadFromInput())
    assert not CapturedStdin().isatty() and not CapturedStdin().readable()


@pytest.mark.parametrize(
    "text",
    [
        "error",
        "ignore::DeprecationWarning",
        "error:old:UserWarning:mod:3",
        "default::builtins.UserWarning",
    ],
)
def test_warning_filters_are_read_as_pytest_reads_filterwarnings(text):
    with warnings.catch_warnings():
        assert parse_warning_filter(text) == pytests_parse(text, escape=False)


def test_a_test_that_reads_stdin_is_never_emitted(tmp_path):
    module = project(
        tmp_path,
        """
        import sys

        def first_line(text: str = "") -> str:
            if text:
                return text.splitlines()[0] if text.strip() else "blank"
            return sys.stdin.readline()
        """,
    )
    output = tmp_path / "tests" / "test_mod.py"
    report = generate_module(module, None, output, Options(0, evaluations=400, seed=1))
    [unit] = report.units
    assert any("read from stdin" in reason for reason in unit.outcome.result.refusals)
    emitted = output.read_text()
    assert "first_line()" not in emitted and 'first_line(text="")' not in emitted
    assert run_users_pytest(tmp_path, output).returncode == 0


def test_the_worker_runs_in_the_project_root_as_pytest_does(tmp_path):
    module = project(
        tmp_path,
        """
        from pathlib import Path

        def setting(name: str) -> str:
            # A relative path: the project root, under pytest.
            if name in Path("settings.txt").read_text().split():
                return "known"
            return "unknown"
        """,
    )
    (tmp_path / "settings.txt").write_text("known names\n")
    output = tmp_path / "tests" / "test_mod.py"
    report = generate_module(module, None, output, Options(0, evaluations=400, seed=1))
    [unit] = report.units
    assert unit.measured == sorted(t.id for t in unit.unit.targets), unit.measured
    assert "FileNotFoundError" not in output.read_text()
    assert run_users_pytest(tmp_path, output).returncode == 0


def test_the_projects_warning_filters_apply_in_the_worker_and_in_pytest(tmp_path):
    module = project(
        tmp_path,
        """
        import warnings

        def legacy(x: int) -> int:
            if x > 3:
                warnings.warn("use modern()", DeprecationWarning, stacklevel=2)
            return x
        """,
        # the test environment's pytest-asyncio warns at configure unless its loop scope is set:
        # with DeprecationWarnings made errors, the project's own pytest would not start
        '\n[tool.pytest.ini_options]\nfilterwarnings = ["error::DeprecationWarning"]\n'
        'asyncio_default_fixture_loop_scope = "function"\n',
    )
    output = tmp_path / "tests" / "test_mod.py"
    report = generate_module(module, None, output, Options(0, evaluations=400, seed=1))
    assert "pytest.raises(DeprecationWarning" in output.read_text()
    assert report.verification is not None and not report.verification.dropped.failing
    assert run_users_pytest(tmp_path, output).returncode == 0


def test_an_assertion_that_depends_on_argv_is_not_kept(tmp_path):
    module = project(
        tmp_path,
        """
        import sys

        def arguments(extra: int) -> int:
            return len(sys.argv) + extra
        """,
    )
    output = tmp_path / "tests" / "test_mod.py"
    report = generate_module(module, None, output, Options(0, evaluations=100, seed=1))
    assert report.verification is not None and not report.verification.dropped.failing
    emitted = output.read_text()
    assert "arguments(" in emitted and "==" not in emitted  # the type stays, not the count
    assert run_users_pytest(tmp_path, output).returncode == 0


def test_an_assertion_on_the_program_name_is_not_kept(tmp_path):
    """argparse's ``prog`` is ``os.path.basename(sys.argv[0])``: "pytest" under the ``pytest``
    script, "__main__.py" under ``python -m pytest``; a test must not depend on which."""
    module = project(
        tmp_path,
        """
        import os
        import sys

        def program(suffix: str) -> str:
            return os.path.basename(sys.argv[0]) + suffix
        """,
    )
    output = tmp_path / "tests" / "test_mod.py"
    report = generate_module(module, None, output, Options(0, evaluations=100, seed=1))
    assert report.verification is not None and not report.verification.dropped.failing
    emitted = output.read_text()
    assert "program(" in emitted and "pytest" not in emitted.replace("import pytest", "")
    assert run_users_pytest(tmp_path, output).returncode == 0
