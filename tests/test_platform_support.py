"""A platform without the sandbox's modules gets one clear refusal from the CLI and the server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from miogen.cli import main
from miogen.platform_support import (
    UnsupportedPlatformError,
    missing_sandbox_modules,
    require_sandbox,
)

SUBJECT = "def double(x: int) -> int:\n    return 2 * x\n"


@pytest.fixture
def no_resource(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on Windows: ``import resource`` fails."""
    monkeypatch.setitem(sys.modules, "resource", None)


def test_nothing_is_missing_here() -> None:
    assert missing_sandbox_modules() == []
    require_sandbox("generate")


def test_a_missing_resource_module_is_named(no_resource: None) -> None:
    assert missing_sandbox_modules() == ["resource"]
    with pytest.raises(UnsupportedPlatformError, match="needs the module 'resource'"):
        require_sandbox("serve")


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
