"""A platform without the sandbox's modules gets one clear refusal from the CLI and the server."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from miogen.cli import main
from miogen.common.platform_support import (
    UnsupportedPlatformError,
    kill_process_group,
    missing_requirements,
    missing_sandbox_modules,
    require_sandbox,
)

SUBJECT = "def double(x: int) -> int:\n    return 2 * x\n"


@pytest.fixture
def no_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on Windows: ``import resource`` fails."""
    monkeypatch.setitem(sys.modules, "resource", None)


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch, no_resource: None) -> None:
    """Windows as Python sees it: no ``resource``, no ``os.killpg``, ``sys.platform`` win32."""
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.delattr(os, "killpg")


def test_nothing_is_missing_here() -> None:
    assert missing_requirements() == []
    assert missing_sandbox_modules() == []
    require_sandbox("generate")


def test_a_missing_resource_module_is_named(no_resource: None) -> None:
    assert missing_sandbox_modules() == ["resource"]
    with pytest.raises(UnsupportedPlatformError, match="needs 'resource' \\(POSIX resource limits"):
        require_sandbox("serve")


def test_process_groups_are_a_requirement_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "killpg")
    assert missing_requirements() == ["os.killpg"]
    assert missing_sandbox_modules() == []
    with pytest.raises(UnsupportedPlatformError, match="'os.killpg' \\(process groups"):
        require_sandbox("ctg")


def test_windows_is_refused_with_both_needs_and_wsl(windows: None) -> None:
    assert missing_requirements() == ["resource", "os.killpg"]
    with pytest.raises(UnsupportedPlatformError) as refused:
        require_sandbox("serve")
    message = str(refused.value)
    assert "(win32)" in message and "'resource'" in message and "'os.killpg'" in message
    assert message.endswith("on Windows, use it inside WSL.")


def test_a_process_group_is_killed_with_its_children() -> None:
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    leader = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, start_new_session=True
    )
    assert leader.stdout is not None
    child = int(leader.stdout.readline())
    kill_process_group(leader.pid)
    assert leader.wait(timeout=30) < 0
    deadline = time.monotonic() + 30  # the orphaned child is reaped by whoever adopts it
    while alive(child):
        assert time.monotonic() < deadline, "the leader's child survived the group's kill"
        time.sleep(0.05)
    kill_process_group(leader.pid)  # gone already: nothing to do


def alive(pid: int) -> bool:
    """Running (a zombie, killed but not yet reaped, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return not stat.parent.parent.exists()  # no /proc (macOS): alive until gone


@pytest.mark.parametrize("command", ["generate", "ctg", "serve"])
def test_commands_that_run_user_code_refuse_before_any_job(
    no_resource: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    subject = tmp_path / "subject.py"
    subject.write_text(SUBJECT)
    output = tmp_path / "tests" / "test_subject.py"
    argv = {
        "generate": ["generate", str(subject), "--output", str(output), "--budget", "0.5"],
        "ctg": ["ctg", str(tmp_path), "--budget", "0.5", "--history", str(tmp_path / "h.db")],
        "serve": ["serve"],  # would block on stdin if it started
    }[command]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"miogen: cannot run '{command}' on this platform")
    assert "'resource'" in err[0] and "WSL" in err[0]
    assert not output.exists() and not (tmp_path / "h.db").exists()


def test_the_server_process_exits_with_the_message_and_no_traceback(tmp_path: Path) -> None:
    script = (
        "import sys; sys.modules['resource'] = None\n"
        "from miogen.cli import main\n"
        "sys.exit(main(['serve']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("miogen: cannot run 'serve' on this platform") == 1
