"""A very big module stalls nothing: its analysis is linear in its size, a module past the size
limit is not analysed (the server says why), and the server ends promptly while it analyses."""

from __future__ import annotations

import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

import pytest
from miogen.lsp.analyser import MAX_CHARACTERS
from miogen.lsp.snapshot import take
from process_support import children, gone

from bench.big_file import module_text
from bench.lsp_client import RawClient

LOG = "window/logMessage"


def calls(function, *arguments) -> int:
    """The number of function calls ``function(*arguments)`` makes (counted: the machine's
    timings are too noisy to compare)."""
    profile = cProfile.Profile()
    profile.runcall(function, *arguments)
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined]


def test_the_servers_analysis_is_linear_in_the_number_of_functions():
    """Each unit's statement lines were found by testing every statement of the module."""
    take(module_text(5), "warm.py", "warm")
    few = calls(take, module_text(100), "few.py", "few")
    many = calls(take, module_text(400), "many.py", "many")
    assert many / few < 4.5, (few, many)


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _analysing(server: int) -> bool:
    """Whether one of the server's analysis processes has been busy for a while."""
    analysers = [pid for pid, command in children(server).items() if "multiprocessing" in command]
    return any(_cpu_seconds(pid) > 1.0 for pid in analysers)


def _wait(condition, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("ending", ["shutdown and exit", "end of input"])
def test_the_server_ends_promptly_while_it_analyses_a_big_file(tmp_path, ending):
    path = tmp_path / "big.py"
    client = RawClient(tmp_path)
    try:
        client.open(path, module_text(8000))  # tens of seconds of analysis
        _wait(lambda: _analysing(client.server.pid), "the analysis to run")
        started = set(children(client.server.pid))
        if ending == "end of input":
            client.server.stdin.close()
        else:
            client.answer(client.request("shutdown", {}))
            client.send("exit", {})
        stopped = time.monotonic()
        client.server.wait(timeout=10)  # about 0.1 s when measured (bench/big_file.py)
        _wait(lambda: all(gone(pid) for pid in started), f"{started} to end", timeout=10)
        assert time.monotonic() - stopped < 10
    finally:
        client.close()


def test_a_file_past_the_size_limit_is_not_analysed_and_the_client_is_told(tmp_path):
    path = tmp_path / "huge.py"
    text = "x = 1\n" * (MAX_CHARACTERS // 6 + 1)
    client = RawClient(tmp_path)
    try:
        client.open(path, text)
        lenses = client.request("textDocument/codeLens", {"textDocument": {"uri": path.as_uri()}})
        assert client.answer(lenses)["result"] == []
        logs = [m["params"]["message"] for m in client.received if m.get("method") == LOG]
        while not any("too big" in message for message in logs):
            message = client.receive()
            if message.get("method") == LOG:
                logs.append(message["params"]["message"])
        told = next(message for message in logs if "too big" in message)
        assert f"huge.py is too big to analyse ({len(text):,} characters" in told
        client.answer(client.request("shutdown", {}))
        client.send("exit", {})
        assert client.server.wait(timeout=30) == 0
    finally:
        client.close()
