"""Ctrl-C (SIGINT) and SIGTERM stop `miogen generate` and `miogen ctg` while their workers run:
the command says it was cancelled, exits with 128 + the signal's number, and leaves no process
behind (its workers and pytest processes each run in a session of their own, out of reach of
a terminal's Ctrl-C: the command must stop them itself).

The aim is a stop within 1 s; on a busy machine the tests allow ``STOP_SECONDS`` (the measured
figure is in the report of issue 25, taken with ``cancel_seconds`` below).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from ctg.ctg_projects import BANK, make_project

STOP_SECONDS = 10.0  # generous: what matters is that it stops long before its budget ends
START_SECONDS = 120.0  # for the worker to start, on a busy machine


class Command:
    """``python -m miogen ARGS`` in a process group of its own, its process tree watched."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "miogen", *args], cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
            env=dict(os.environ, PYTHONFAULTHANDLER="1"),  # SIGABRT: its threads' stacks
        )  # fmt: skip
        self.cli = psutil.Process(self.process.pid)
        self.seen: dict[int, psutil.Process] = {}  # every descendant ever seen

    def look(self) -> list[str]:
        """The command lines of the command's descendants now (each noted in ``seen``)."""
        lines = []
        try:
            children = self.cli.children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        for child in children:
            self.seen.setdefault(child.pid, child)
            try:
                lines.append(" ".join(child.cmdline()))
            except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
                pass
        return lines

    def wait_for(self, sign: str) -> None:
        """Until a descendant's command line contains ``sign``."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if any(sign in line for line in self.look()):
                return
            if self.process.poll() is not None:
                pytest.fail(f"ended before {sign!r} started: {self.process.communicate()}")
            time.sleep(0.02)
        pytest.fail(f"no {sign!r} within {START_SECONDS:g} s")

    def stop(self, signum: int) -> tuple[float, int, str]:
        """Send ``signum`` to the command's process group (as a terminal's Ctrl-C does); the
        seconds until the command ended, its exit status, its stderr."""
        started = time.monotonic()
        os.killpg(self.process.pid, signum)
        while self.process.poll() is None and time.monotonic() - started < STOP_SECONDS:
            self.look()  # processes started after the signal count too
            time.sleep(0.01)
        seconds = time.monotonic() - started
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGABRT)  # where it is stuck, for the message
            stacks = self.process.communicate()[1][-8000:]
            self.kill()
            name = signal.Signals(signum).name
            pytest.fail(f"still running {STOP_SECONDS:g} s after {name}:\n{stacks}")
        _, stderr = self.process.communicate()
        return seconds, self.process.returncode, stderr

    def left(self) -> list[str]:
        """Descendants still running (a second for the last ones killed to vanish), and any
        process still in the command's group."""
        gone, alive = psutil.wait_procs(list(self.seen.values()), timeout=1.0)
        running = [p for p in alive if _running(p)]
        running += [p for p in psutil.process_iter() if _in_group(p, self.process.pid)]
        return [f"{p.pid}: {' '.join(_cmdline(p))}" for p in running]

    def kill(self) -> None:
        """Whatever still runs (after a failure: the next tests get the machine)."""
        for process in [self.cli, *self.seen.values()]:
            if _running(process):
                process.kill()
        if self.process.returncode is None:
            self.process.communicate()


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _in_group(process: psutil.Process, group: int) -> bool:
    try:
        return process.pid != group and _running(process) and os.getpgid(process.pid) == group
    except (ProcessLookupError, psutil.NoSuchProcess):
        return False


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
        return ["(gone)"]


def generate(classic: Path, work: Path) -> Command:
    """``miogen generate`` on triangle.py for 30 s, its search running (its verification's
    pytest processes start at the search's first progress, beside its worker)."""
    shutil.copy(classic / "triangle.py", work / "triangle.py")
    output = work / "tests" / "test_triangle.py"
    command = Command(["generate", "triangle.py", "--budget", "30", "--output", str(output)], work)
    command.wait_for("miogen.plugins.ahead")
    return command


def ctg(work: Path) -> Command:
    """``miogen ctg`` on a small project for 30 s, a worker of its running."""
    root = make_project(work / "project", {"bank.py": BANK})
    command = Command(["ctg", str(root), "--budget", "30", "--jobs", "2", "-q"], work)
    command.wait_for("miogen.worker.main")
    return command


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["INT", "TERM"]
)
@pytest.mark.parametrize("name", ["generate", "ctg"])
def test_a_signal_stops_the_command_and_every_process_it_started(
    classic, tmp_path, name, signum, status
):
    command = generate(classic, tmp_path) if name == "generate" else ctg(tmp_path)
    try:
        seconds, code, stderr = command.stop(signum)
        assert code == status, stderr
        assert "miogen: cancelled" in stderr, stderr
        assert seconds < STOP_SECONDS
        assert command.left() == []
        assert command.seen  # the worker at least: the check saw the process tree
    finally:
        command.kill()
    # No half-written file: nothing written yet (a cancelled run writes no tests), no leftover
    # temporary file of an atomic write.
    assert not list(tmp_path.rglob("test_*.py")), list(tmp_path.rglob("test_*.py"))
    assert not list(tmp_path.rglob(".*.tmp"))


def cancel_seconds(name: str, signum: int, runs: int = 5) -> list[float]:
    """Seconds from the signal to the command's end, ``runs`` times (for the report, not a
    test): ``python -c 'from test_cancel_cli import *; print(cancel_seconds("generate", 2))'``
    from tests/cli, with tests/ on PYTHONPATH."""
    import tempfile

    from conftest import CLASSIC

    measured = []
    for _ in range(runs):
        work = Path(tempfile.mkdtemp(prefix="miogen-cancel-"))
        command = generate(CLASSIC, work) if name == "generate" else ctg(work)
        try:
            seconds, code, _ = command.stop(signum)
            assert code == 128 + signum and command.left() == []
        finally:
            command.kill()
            shutil.rmtree(work, ignore_errors=True)
        measured.append(seconds)
    return measured


BLOCKED = """
import signal, threading
from miogen.cli import Cancelled, _cancellable

other = threading.Thread(target=threading.Event().wait, daemon=True)
other.start()
held = threading.Lock()
held.acquire()
try:
    with _cancellable(True):
        threading.Timer(0.2, signal.pthread_kill, (other.ident, signal.SIGTERM)).start()
        held.acquire()  # wakes only for a signal delivered to this thread
except Cancelled as stop:
    print("cancelled by", stop.signum)
"""


def test_a_signal_that_reaches_another_thread_still_stops_the_main_thread():
    """The kernel hands a process's signal to any of its threads; the main thread, blocked
    on a lock (as on ``job.result()``), must be woken for Python to run the handler."""
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == f"cancelled by {int(signal.SIGTERM)}", done
