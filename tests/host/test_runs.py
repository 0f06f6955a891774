"""The project's pytest processes: a CPU-time limit ends a run that loops, not a slow one."""

from __future__ import annotations

import itertools
import os
import subprocess
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


def growing_waits(step_seconds: float):
    """A process's wait for a CPU (ns) that grows by ``step_seconds`` at each read."""
    reads = itertools.count()
    return lambda pid: round(next(reads) * step_seconds * 1e9)


def test_time_a_run_waited_for_a_cpu_does_not_count_against_its_timeout(tmp_path):
    """A run of 2 s under a 1 s timeout whose process waited 1.5 s for a CPU meanwhile (here
    each read of its wait says 1.5 s more) is not stopped: 0.5 s on its test clock."""
    waiting = [sys.executable, "-c", "import time; time.sleep(2.0)"]
    completed = run_group(waiting, tmp_path, dict(os.environ), 1.0, waits=growing_waits(1.5))
    assert completed.returncode == 0


def test_without_a_wait_to_read_the_timeout_is_the_wall_clocks(tmp_path):
    waiting = [sys.executable, "-c", "import time; time.sleep(2.0)"]
    with pytest.raises(subprocess.TimeoutExpired):
        run_group(waiting, tmp_path, dict(os.environ), 1.0, waits=lambda pid: None)


def test_a_run_that_never_gets_a_cpu_ends_at_the_cap(tmp_path):
    """Its wait grows without end (1000 s per read): stopped at ``CAP_FACTOR`` times the
    timeout by the wall clock."""
    looping = [sys.executable, "-c", "import time; time.sleep(600)"]
    with pytest.raises(subprocess.TimeoutExpired):
        run_group(looping, tmp_path, dict(os.environ), 0.1, waits=growing_waits(1000.0))
