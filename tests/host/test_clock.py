"""Generated tests stay true with the clock five years ahead (libfaketime)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from miogen.host import clock
from miogen.host.config import Options
from miogen.run.generate import generate_module

LIBRARY = clock.libfaketime() or ""
NEEDS_FAKETIME = pytest.mark.skipif(
    not LIBRARY,
    reason="libfaketime is not installed (Debian: apt-get install faketime; scripts/setup.sh)",
)

SUBJECT = """
import datetime
from datetime import date

OPENED = date.today()  # read once, at import: no test's statement reads the clock


def age(d: date) -> str:
    years = (date.today() - d).days // 365
    return f"{years} years ago"


def age_at_opening(d: date) -> str:
    return f"{(OPENED - d).days // 365} years ago"


def stamp(prefix: str) -> str:
    return f"{prefix}-{datetime.datetime.now().year}"


def weekday_name(d: date) -> str:
    return d.strftime("%A")
"""


def test_the_clock_ahead_environment_preloads_libfaketime(monkeypatch, tmp_path):
    library = tmp_path / "libfaketime.so.1"
    library.write_bytes(b"")
    monkeypatch.setenv("MIOGEN_LIBFAKETIME", str(library))
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    moved = clock.ahead_environment({"PYTHONHASHSEED": "2"})
    assert moved["LD_PRELOAD"] == str(library) and moved["FAKETIME"] == "+5y"
    assert moved["PYTHONHASHSEED"] == "2"
    monkeypatch.setenv("MIOGEN_LIBFAKETIME", "")  # not installed: the environment as it was
    assert clock.ahead_environment({"PYTHONHASHSEED": "2"}) == {"PYTHONHASHSEED": "2"}


def _generate(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    module = tmp_path / "ages.py"
    module.write_text(textwrap.dedent(SUBJECT).lstrip())
    output = tmp_path / "tests" / "test_ages.py"
    generate_module(module, None, output, Options(0, evaluations=500, seed=3))
    return output


def _pytest(output: Path, ahead: bool) -> subprocess.CompletedProcess[str]:
    environment = {"PYTHONPATH": str(output.parent.parent), "PATH": "/usr/bin:/bin",
                   "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # fmt: skip
    if ahead:  # as `faketime -f +5y pytest ...`
        library = clock.libfaketime() or LIBRARY
        environment = dict(environment, LD_PRELOAD=library, FAKETIME="+5y")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
        cwd=output.parent.parent, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL, env=environment,
    )  # fmt: skip


@NEEDS_FAKETIME
def test_generated_tests_pass_with_the_clock_five_years_ahead(tmp_path):
    output = _generate(tmp_path)
    emitted = output.read_text()
    assert "def test_" in emitted and "weekday_name" in emitted
    assert "years ago" not in emitted, emitted  # today's age is no assertion
    for ahead in (False, True):
        completed = _pytest(output, ahead)
        assert completed.returncode == 0, completed.stdout + emitted


@NEEDS_FAKETIME
def test_without_the_clock_ahead_rerun_a_date_read_at_import_is_asserted(tmp_path, monkeypatch):
    # The worker cannot see a read made at import: only the rerun with the clock ahead drops
    # the tests asserting an age from it.
    monkeypatch.setenv("MIOGEN_LIBFAKETIME", "")
    output = _generate(tmp_path)
    assert "years ago" in output.read_text()
    assert _pytest(output, ahead=False).returncode == 0
    assert _pytest(output, ahead=True).returncode == 1
