"""A core made busy for a test: tests that a CPU wait does not count as a test's time.

Used by tests/worker/test_executor_busy.py and tests/host/test_supervisor_busy.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def busy_core(hogs: int) -> Iterator[None]:
    """This process (and the processes it starts meanwhile) and ``hogs`` spinning processes,
    all on one core, for the block's length; skips where Linux's affinity or schedstat is
    missing."""
    if not hasattr(os, "sched_setaffinity") or not os.path.exists("/proc/thread-self/schedstat"):
        pytest.skip("needs Linux's CPU affinity and schedstat")
    before = os.sched_getaffinity(0)
    core = {min(before)}
    spinning = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        for _ in range(hogs)
    ]
    try:
        for hog in spinning:
            os.sched_setaffinity(hog.pid, core)
        os.sched_setaffinity(0, core)
        yield
    finally:
        os.sched_setaffinity(0, before)
        for hog in spinning:
            hog.kill()
            hog.wait()
