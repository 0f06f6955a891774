"""No process the server started outlives it: after shutdown and exit, or when it is killed."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest
from lsp_support import SHAPES
from process_support import children, gone, spares

from bench.lsp_client import RawClient

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _wait(condition, what: str, timeout: float = 90.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.miogen]\nbudgetSeconds = 0.5\n", "utf-8")
    path = tmp_path / "shapes.py"
    path.write_text(SHAPES, "utf-8")
    return path


@pytest.mark.parametrize("ending", ["shutdown and exit", "killed"])
def test_no_child_process_outlives_the_server(tmp_path, ending):
    path = _project(tmp_path)
    client = RawClient(tmp_path)
    try:
        client.open(path, SHAPES)
        _wait(lambda: spares(client.server.pid), "a worker started ahead")
        started = set(children(client.server.pid))
        if ending == "killed":
            client.server.send_signal(signal.SIGKILL)
        else:
            client.answer(client.request("shutdown", {}))
            client.send("exit", {})
        client.server.wait(timeout=60)
        _wait(lambda: all(gone(pid) for pid in started), f"{started} to end")
    finally:
        client.close()


def test_shutdown_during_a_file_run_answers_and_stops_the_run(tmp_path):
    """A command still running at shutdown (here ``miogen ctg`` on a file) is cancelled; shutdown
    is answered, and the run ends with the server, writing nothing."""
    path = _project(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.miogen]\nbudgetSeconds = 60\n", "utf-8")
    client = RawClient(tmp_path)
    try:
        arguments = [{"uris": [path.as_uri()]}]
        client.send("workspace/executeCommand",
                    {"command": "miogen.generateTestsForPaths", "arguments": arguments}, request=True)  # fmt: skip
        ctg = _wait(
            lambda: [pid for pid, cmd in children(client.server.pid).items() if " ctg " in cmd],
            "the ctg run",
        )
        client.send("shutdown", {}, request=True)
        answer = client.answer(client.next_id)  # the run's own answer (cancelled) came first
        assert "error" not in answer, answer
        client.send("exit", {})
        client.server.wait(timeout=60)
        _wait(lambda: all(gone(pid) for pid in ctg), f"the ctg run {ctg} to end")
        assert not (tmp_path / "tests").exists()
    finally:
        client.close()
