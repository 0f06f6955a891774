"""Generated tests go to files of miogen's own: the human test files stay byte-identical, and the
project's plain pytest collects and passes what miogen wrote (invariant 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from miogen.emit.files import is_generated
from running import miogen

# Evaluations and a seed, not seconds: the same tests however busy the machine.
SEARCH = ("--evaluations", "200", "--seed", "1")
MODULE = """\
def grade(score):
    if score >= 90:
        return "A"
    if score >= 50:
        return "pass"
    return "fail"
"""

PYTEST_FILE = """\
from pkg.mod import grade


def test_a():
    assert grade(95) == "A"
"""

UNITTEST_FILE = """\
import unittest

from pkg import mod as grade  # a module under the name a generated test would call


class TestGrade(unittest.TestCase):
    def test_pass(self):
        self.assertEqual(grade.grade(60), "pass")
"""


def make(root: Path, human: dict[str, str]) -> Path:
    files = {
        "pyproject.toml": '[project]\nname = "p"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
        "pkg/__init__.py": "",
        "pkg/mod.py": MODULE,
        **human,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def plain_pytest(root: Path) -> subprocess.CompletedProcess:
    """The project's own run: its configuration, no PYTHONPATH, no miogen plugin."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize(
    "human",
    [
        {"tests/test_mod.py": PYTEST_FILE},
        {"tests/test_mod.py": UNITTEST_FILE, "tests/pkg/test_pkg_mod_miogen.py": PYTEST_FILE},
    ],
    ids=["pytest", "unittest-and-a-file-at-miogens-name"],
)
def test_generate_and_ctg_write_only_files_of_their_own(tmp_path: Path, human: dict) -> None:
    root = make(tmp_path / "project", human)
    before = {name: (root / name).read_bytes() for name in human}
    done = miogen("generate", "pkg/mod.py", *SEARCH, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    ctg = miogen("ctg", "pkg", "--budget", "2", *SEARCH, cwd=root)
    assert ctg.returncode == 0, ctg.stdout + ctg.stderr

    assert {name: (root / name).read_bytes() for name in human} == before
    generated = sorted(p for p in (root / "tests").rglob("*.py") if is_generated(p.read_text()))
    expected = "test_pkg_mod_miogen.py" if len(human) == 1 else "test_pkg_mod_miogen_2.py"
    assert [p.relative_to(root).as_posix() for p in generated] == [f"tests/pkg/{expected}"]
    assert "def test_" in generated[0].read_text()
    run = plain_pytest(root)
    assert run.returncode == 0, run.stdout + run.stderr
    collected = {line.split("::")[0] for line in _collected(root)}
    assert f"tests/pkg/{expected}" in collected


def test_a_packaged_tests_folder_gets_marked_packages(tmp_path: Path) -> None:
    root = make(tmp_path / "project", {"tests/__init__.py": "", "tests/test_mod.py": PYTEST_FILE})
    done = miogen("generate", "pkg/mod.py", *SEARCH, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    init = root / "tests" / "pkg" / "__init__.py"
    assert init.is_file() and is_generated(init.read_text())
    assert is_generated((root / "tests" / "pkg" / "test_mod_miogen.py").read_text())
    assert (root / "tests" / "__init__.py").read_text() == ""
    run = plain_pytest(root)
    assert run.returncode == 0, run.stdout + run.stderr


def _collected(root: Path) -> list[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider"],
        cwd=root, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=300,
    )  # fmt: skip
    return [line for line in listed.stdout.splitlines() if "::" in line]


@pytest.mark.parametrize("configured", [False, True])
def test_the_summary_says_when_plain_pytest_cannot_import_the_module(
    tmp_path: Path, configured: bool
) -> None:
    config = '\n[tool.pytest.ini_options]\npythonpath = ["src"]\n' if configured else ""
    root = tmp_path / "project"
    files = {"pyproject.toml": f'[project]\nname = "p"\n{config}', "src/pkg/__init__.py": "",
             "src/pkg/mod.py": MODULE}  # fmt: skip
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    done = miogen("generate", "src/pkg/mod.py", *SEARCH, "--json", cwd=root)
    summary = json.loads(done.stdout)
    notes = summary["warnings"]
    fix = 'add pythonpath = ["src"] under [tool.pytest.ini_options] in pyproject.toml'
    if configured:
        assert notes == [] and plain_pytest(root).returncode == 0
    else:
        # Verified as the project's pytest runs it: it cannot import pkg, so nothing is written
        # (the tests would fail for the user), the run fails and says how to fix the project.
        assert done.returncode == 1 and summary["exit_code"] == 1
        assert "cannot import pkg.mod" in summary["test_file_error"]
        assert len(notes) == 1 and fix in notes[0] and "no tests written" in notes[0], notes
        assert not (root / "tests").exists() or not list((root / "tests").rglob("*.py"))
