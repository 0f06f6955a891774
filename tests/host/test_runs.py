"""The project's pytest processes: a CPU-time limit ends a run that loops, not a slow one."""

from __future__ import annotations

import os
import sys

import pytest
from miogen.host.runs import cpu_limited, run_group

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prlimit: Linux")


def test_a_run_that_loops_ends_at_its_cpu_limit(tmp_path):
    looping = [sys.executable, "-c", "while True: pass"]
    completed = run_group(looping, tmp_path, dict(os.environ), timeout=600.0, cpu_seconds=1.0)
    assert cpu_limited(completed.returncode), completed.returncode


def test_a_run_that_waits_is_not_stopped_by_its_cpu_limit(tmp_path):
    waiting = [sys.executable, "-c", "import time; time.sleep(2.5)"]
    completed = run_group(waiting, tmp_path, dict(os.environ), timeout=600.0, cpu_seconds=1.0)
    assert completed.returncode == 0 and not cpu_limited(completed.returncode)
