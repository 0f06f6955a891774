"""Generated tests stay true in another locale, time zone, home and user (the verification's
rerun that has the clock ahead runs there too: host/clock.py)."""

from __future__ import annotations

import ast
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from miogen.host import clock, measure
from miogen.host.config import Options
from miogen.run.generate import generate_module

HERE = ("C", "C.utf8", "POSIX")  # what `locale -a` lists on a bare Debian
ELSEWHERE = clock.elsewhere_environment  # the rerun's, also where a test turns it off


@pytest.mark.parametrize(
    ("own", "installed", "other"),
    [
        ("C.UTF-8", HERE, "C"),  # UTF-8: the plain C locale
        ("C", HERE, "C.utf8"),  # plain: a UTF-8 one
        ("POSIX", HERE, "C.utf8"),
        ("en_US.UTF-8", (*HERE, "en_US.utf8"), "C"),  # C.UTF-8 reads as en_US in Python
        ("en_US.UTF-8", (*HERE, "en_US.utf8", "tr_TR.utf8", "de_DE.utf8"), "de_DE.utf8"),
        ("de_DE.UTF-8", (*HERE, "de_DE.utf8", "fr_FR.utf8"), "fr_FR.utf8"),
        ("C", ("C", "POSIX"), None),  # nothing else installed
    ],
)
def test_another_locale_is_one_that_differs_in_what_code_reads(own, installed, other):
    assert clock.other_locale(own, installed) == other


def test_with_no_other_locale_the_rerun_keeps_its_own_and_says_so(monkeypatch):
    monkeypatch.setattr(clock, "installed_locales", lambda: ("C", "POSIX"))
    place = clock.elsewhere({"LANG": "C"})
    assert place.locale is None
    assert "LANG" not in place.environment() and "LC_ALL" not in place.environment()
    assert place.environment()["TZ"] and place.environment()["USER"] == clock.USER
    (note,) = place.notes()
    assert "not checked in another locale" in note and "only C" in note
    assert clock.elsewhere({"LANG": "C.UTF-8"}).notes() == []


def test_the_own_locale_is_lc_all_then_lc_ctype_then_lang():
    assert clock.own_locale({"LANG": "de_DE.UTF-8", "LC_ALL": "C"}) == "C"
    assert clock.own_locale({"LANG": "de_DE.UTF-8", "LC_CTYPE": "fr_FR.UTF-8"}) == "fr_FR.UTF-8"
    assert clock.own_locale({"LANG": "de_DE.UTF-8", "LC_ALL": ""}) == "de_DE.UTF-8"
    assert clock.own_locale({}) == "C"


def test_another_time_zone_than_the_runs(monkeypatch):
    assert clock.other_time_zone(None) in (*clock.TIME_ZONES, clock.TIME_ZONE_RULE)
    assert clock.other_time_zone(clock.TIME_ZONES[0]) != clock.TIME_ZONES[0]
    monkeypatch.setenv("TZDIR", "/nonexistent")  # no zone files: a POSIX rule
    assert clock.other_time_zone(None) == clock.TIME_ZONE_RULE


def test_the_rerun_environment_has_the_clock_ahead_and_the_rest_elsewhere(monkeypatch, tmp_path):
    library = tmp_path / "libfaketime.so.1"
    library.write_bytes(b"")
    monkeypatch.setenv("MIOGEN_LIBFAKETIME", str(library))
    monkeypatch.delenv("PYTHONUSERBASE", raising=False)
    monkeypatch.setattr(clock, "installed_locales", lambda: HERE)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    moved = clock.elsewhere_environment({"PYTHONHASHSEED": "2"})
    assert moved["PYTHONHASHSEED"] == "2" and moved["FAKETIME"] == "+5y"
    assert moved["LANG"] == moved["LC_ALL"] == "C"
    assert moved["TZ"] and moved["USER"] == moved["LOGNAME"] == clock.USER
    assert moved["HOME"] != str(Path.home())
    assert moved["PYTHONUSERBASE"] == site.getuserbase()  # the user's packages stay found
    # Only the verification's rerun ``clock.SEED`` runs elsewhere; the others here.
    assert measure._shuffle(clock.SEED)["LANG"] == "C"
    assert "LANG" not in measure._shuffle(clock.SEED + 1)


SUBJECT = """
import calendar
import datetime
import getpass
import locale
import os
import time


def calendar_locale():
    return calendar.LocaleTextCalendar().locale


def language():
    return os.environ.get("LANG")


def current_locale():
    return locale.getlocale()


def zone_name():
    return time.tzname[0]


def zone_now():
    return time.strftime("%Z")


def epoch_hour():
    return datetime.datetime.fromtimestamp(0).hour


def user_name():
    return getpass.getuser()


def home_name():
    return os.path.basename(os.path.expanduser("~"))


def double(x: int) -> int:
    return 2 * x
"""
FROM_HERE = ("calendar_locale", "language", "current_locale", "zone_name", "zone_now",
             "epoch_hour", "user_name", "home_name")  # fmt: skip


def _generate(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "here.py").write_text(textwrap.dedent(SUBJECT).lstrip())
    output = tmp_path / "tests" / "test_here.py"
    generate_module(tmp_path / "here.py", None, output, Options(0, evaluations=300, seed=3))
    return output


def _asserted(emitted: str) -> set[str]:
    """The functions called in tests that assert a value (a type check, ``isinstance``, is
    no value: it holds anywhere)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(emitted)):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            called = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call)
                      and isinstance(c.func, ast.Name)}  # fmt: skip
            if any(isinstance(s, ast.Assert) and not _type_check(s) for s in ast.walk(node)):
                found |= called
    return found


def _type_check(statement: ast.Assert) -> bool:
    test = statement.test
    return (
        isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
    )  # fmt: skip


def _pytest(output: Path, elsewhere: bool) -> subprocess.CompletedProcess[str]:
    environment = {"PYTHONPATH": str(output.parent.parent), "PATH": "/usr/bin:/bin",
                   "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "LANG": "C.UTF-8",
                   "HOME": str(Path.home()), "USER": "root"}  # fmt: skip
    if elsewhere:
        environment = ELSEWHERE(environment)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
        cwd=output.parent.parent, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL, env=environment,
    )  # fmt: skip


def test_values_read_from_the_locale_time_zone_and_user_are_not_asserted(tmp_path):
    emitted = _generate(tmp_path).read_text()
    asserted = _asserted(emitted)
    assert "double" in asserted, emitted  # the rest is still asserted
    assert not asserted & set(FROM_HERE), emitted
    for elsewhere in (False, True):
        completed = _pytest(tmp_path / "tests" / "test_here.py", elsewhere)
        assert completed.returncode == 0, completed.stdout + emitted


def test_without_the_rerun_elsewhere_they_are_asserted(tmp_path, monkeypatch):
    monkeypatch.setattr(clock, "elsewhere_environment", clock.ahead_environment)
    emitted = _generate(tmp_path).read_text()
    assert _asserted(emitted) & set(FROM_HERE), emitted
    assert _pytest(tmp_path / "tests" / "test_here.py", elsewhere=True).returncode == 1


def test_the_runs_notes_say_when_no_other_locale_is_installed(tmp_path, monkeypatch):
    monkeypatch.setattr(clock, "installed_locales", lambda: ("C", "POSIX"))
    monkeypatch.setenv("LANG", "C")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "twice.py").write_text("def double(x: int) -> int:\n    return 2 * x\n")
    output = tmp_path / "tests" / "test_twice.py"
    run = generate_module(tmp_path / "twice.py", None, output, Options(0, evaluations=100))
    assert run.tests and any("not checked in another locale" in n for n in run.notes), run.notes
