"""The supervisor's hung-test kill reads the worker's alarm's clock: the test clock, which does
not count the time the worker waited for a CPU (``common.waits``), up to its wall-clock cap."""

from __future__ import annotations

from collections.abc import Iterator

import busy
import pytest
from miogen.common.waits import CAP_FACTOR
from miogen.host import supervisor
from miogen.host.supervisor import HARD_KILL_GRACE, _hung, run_job
from worker.helpers import spec_for

SECOND = 1_000_000_000


def never_read() -> int | None:
    raise AssertionError("the wait is read only once the wall clock is past the limit")


def test_within_the_timeout_and_grace_by_the_wall_clock_it_is_not_hung():
    assert not _hung(0.5 + HARD_KILL_GRACE, 0.5, 0, never_read)


def test_past_them_it_is_hung_unless_the_worker_waited_for_a_cpu_meanwhile():
    wall = 0.5 + HARD_KILL_GRACE + 0.3
    assert _hung(wall, 0.5, 0, lambda: 0)
    assert _hung(wall, 0.5, 0, lambda: SECOND // 10)  # 1.7 s less 0.1 s waited: still past
    assert not _hung(wall, 0.5, 0, lambda: SECOND // 2)  # 1.7 s less 0.5 s waited
    assert _hung(wall, 0.5, None, lambda: SECOND)  # no wait known: the wall clock's


def test_past_the_alarms_wall_clock_cap_it_is_hung_however_long_it_waited():
    wall = CAP_FACTOR * 0.5 + HARD_KILL_GRACE + 0.01
    assert _hung(wall, 0.5, 0, lambda: 100 * SECOND)


SPIN = """
import time


def _first_call():
    left = [True]

    def take() -> bool:
        return bool(left) and left.pop()

    return take


_first = _first_call()


def spin(x: int) -> int:
    if _first():  # the worker's first test only: 0.4 s of running
        end = time.thread_time() + 0.4
        while time.thread_time() < end:
            pass
    return x
"""
HOGS = 4


@pytest.fixture
def busy_core() -> Iterator[None]:
    """This process (and the workers it starts) and ``HOGS`` spinning processes on one core."""
    with busy.busy_core(HOGS):
        yield


def test_a_test_slowed_by_busy_processes_keeps_its_worker(write_module, busy_core, monkeypatch):
    """0.4 s of running under a 0.5 s timeout, on a fifth of a core: about 2 s by the wall
    clock, past the timeout and grace (1.5 s), which killed the worker as hung. (The host's
    cap is raised: on a machine busy already the worker's own alarm may reach its cap, which
    times the test out, no crash.)"""
    monkeypatch.setattr(supervisor, "CAP_FACTOR", 100.0)
    path = write_module("spinner", SPIN)
    spec = spec_for(path, "spin", evaluations=3, test_timeout=0.5, mutation_share=0.0)
    outcome = run_job(spec)
    assert outcome.status == "ok"
    assert not outcome.crashes, [crash.reason for crash in outcome.crashes]
