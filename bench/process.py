"""Run a tool as its own process group, so a timeout ends its workers too."""

from __future__ import annotations

import os
import signal
import subprocess
import time


def run_group(command: list[str], timeout: float, **options) -> tuple[int | None, float]:
    """Run ``command``; on timeout kill its whole process group. Returns (exit code, seconds);
    the exit code is None when the time ran out."""
    start = time.monotonic()
    process = subprocess.Popen(command, start_new_session=True, **options)
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # leftovers: workers, forks, hung children
        except ProcessLookupError:
            pass
        process.wait()
    return code, time.monotonic() - start
