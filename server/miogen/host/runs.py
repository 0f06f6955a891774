"""The project's and the verification's pytest processes under way, to stop at once on Ctrl-C."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from miogen.common.waits import CAP_FACTOR

# The pytest processes under way (each a process group): ``stop_runs`` kills them, so that the
# threads waiting for them return at once. Reentrant: ``stop_runs`` runs in a signal handler,
# which may interrupt this process's main thread while it holds the lock.
_RUNNING: set[subprocess.Popen[str]] = set()
_RUNNING_LOCK = threading.RLock()
_STOPPED = [False]


def stop_runs() -> None:
    """Kill every run under way, and each one started later, at its start (for a command that
    was cancelled: ``miogen generate`` and ``miogen ctg`` on SIGINT/SIGTERM). Their threads
    reap them."""
    with _RUNNING_LOCK:
        _STOPPED[0] = True
        running = list(_RUNNING)
    for process in running:
        _signal_group(process)


def started(process: subprocess.Popen[str]) -> None:
    """Register ``process`` (the leader of its own process group) until ``ended``."""
    with _RUNNING_LOCK:
        _RUNNING.add(process)
        stopped = _STOPPED[0]
    if stopped:
        _signal_group(process)


def ended(process: subprocess.Popen[str]) -> None:
    with _RUNNING_LOCK:
        _RUNNING.discard(process)


def run_group(
    command: Sequence[str],
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout: float,
    cpu_seconds: float | None = None,
    waits: Callable[[int], int | None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``command`` in a process group of its own, registered while it runs; the whole group is
    killed past ``timeout`` (``subprocess.TimeoutExpired``) or when the caller is interrupted.
    ``cpu_seconds``: the process is also stopped (SIGXCPU) once it used that much CPU time,
    where the platform lets one limit another process (``cpu_limited``). ``waits``: reads a
    process's wait for a CPU (ns, ``common.waits.process_waits``); with it ``timeout`` is on
    the test clock of the process's main thread (the time it waited for a CPU does not count;
    its children's waits are not seen), up to ``CAP_FACTOR`` times ``timeout`` by the wall
    clock."""
    process = subprocess.Popen(
        list(command), cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True, start_new_session=True,
    )  # fmt: skip
    begun = time.monotonic()
    if cpu_seconds is not None:
        _limit_cpu(process.pid, cpu_seconds)
    started(process)
    waited = waits(process.pid) if waits is not None else None
    try:
        stdout, stderr = _communicate(process, timeout, begun, waited, waits)
    except BaseException:
        _signal_group(process)
        process.communicate()
        raise
    finally:
        ended(process)
    return subprocess.CompletedProcess(list(command), process.returncode, stdout, stderr)


def _communicate(
    process: subprocess.Popen[str],
    timeout: float,
    begun: float,
    waited: int | None,
    waits: Callable[[int], int | None] | None,
) -> tuple[str, str]:
    """``process``'s output once it ends; past ``timeout`` (by the wall clock, ``begun``),
    waited again for as long as it waited for a CPU since (``waited`` at its start, read by
    ``waits``), until the cap."""
    due = timeout
    while True:
        try:
            return process.communicate(timeout=max(due - (time.monotonic() - begun), 0.0))
        except subprocess.TimeoutExpired:
            now = waits(process.pid) if waits is not None else None
            if now is None or waited is None:
                raise
            extended = min(timeout + (now - waited) / 1e9, CAP_FACTOR * timeout)
            if extended <= due or extended <= time.monotonic() - begun:
                raise
            due = extended


def cpu_limited(returncode: int) -> bool:
    """Whether a process ended by its CPU-time limit (SIGXCPU, or SIGKILL past the hard one)."""
    if sys.platform == "win32":
        return False
    return returncode in (-signal.SIGXCPU, -signal.SIGKILL)


def _limit_cpu(pid: int, seconds: float) -> None:
    """At most ``seconds`` of CPU time for the process ``pid`` (Linux's prlimit; elsewhere the
    caller's wall-clock timeout is the only bound)."""
    try:
        import resource  # here, not at the top: a platform without it is told so by the CLI
    except ImportError:
        return
    if not hasattr(resource, "prlimit"):
        return
    soft = max(1, math.ceil(seconds))
    with contextlib.suppress(OSError, ValueError):  # it ended already
        resource.prlimit(pid, resource.RLIMIT_CPU, (soft, soft + 1))


def _signal_group(process: subprocess.Popen[str]) -> None:
    if process.returncode is not None:
        return  # reaped: its process id may be another's now
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
