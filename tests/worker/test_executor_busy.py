"""A test's time is its own: the per-test alarm does not count time the worker waited for a CPU.

Three processes spinning on the core the test runs on leave it about a quarter of that core:
0.2 s of running takes about 0.8 s by the wall clock, past a 0.5 s timeout by the wall clock
(the alarm as it was stopped it), well within it on the test clock (``common.waits``).
"""

from __future__ import annotations

import os
import types
from collections.abc import Iterator

import busy
import pytest
from miogen.testcase.model import Statement
from miogen.worker.executor import Executor

SOURCE = """
import time

def spin(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
    return seconds
"""
HOGS = 3

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or not os.path.exists("/proc/thread-self/schedstat"),
    reason="needs Linux's CPU affinity and schedstat",
)


@pytest.fixture
def busy_core() -> Iterator[None]:
    """This process and ``HOGS`` spinning children, all on one core, for the test's length."""
    with busy.busy_core(HOGS):
        yield


def test_a_test_that_runs_its_time_beside_busy_processes_is_not_stopped(busy_core):
    module = types.ModuleType("busy")
    exec(SOURCE, module.__dict__)
    executor = Executor(module, None, timeout=0.5)
    # The cap (ten times the timeout by the wall clock, tested in tests/common/test_waits.py)
    # raised: a machine busy already leaves the test less than its quarter of a core.
    executor.deadline.cap_factor = 100.0
    test = (Statement("value", "", (), 0.2), Statement("call", "spin", (("seconds", 0),)))
    execution = executor.run(test, trace=False)
    assert not execution.timed_out and execution.refused == ""
    assert execution.values[-1] == 0.2
