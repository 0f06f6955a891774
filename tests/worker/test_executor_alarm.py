"""The per-test alarm stops a test that runs too long, and never anything after the test."""

from __future__ import annotations

import os
import signal
import types

from miogen.testcase.model import Statement
from miogen.worker.executor import Executor

SOURCE = """
import time

def wait(seconds):
    time.sleep(seconds)
    return seconds
"""


def executor(timeout: float) -> Executor:
    module = types.ModuleType("alarmed")
    exec(SOURCE, module.__dict__)
    return Executor(module, None, timeout=timeout)


def waiting(seconds: float) -> tuple[Statement, ...]:
    return (Statement("value", "", (), seconds), Statement("call", "wait", (("seconds", 0),)))


def test_a_test_longer_than_its_time_is_stopped():
    execution = executor(0.05).run(waiting(5.0), trace=False)
    assert execution.timed_out and execution.refused == "run longer than 0.05 s"


def test_an_alarm_that_fires_after_the_test_ends_is_ignored():
    """The alarm can go off while the timer is being disarmed: it must not escape into the
    search (it ended the worker, and every unit of the module with it)."""
    running = executor(5.0)
    execution = running.run(waiting(0.0), trace=False)
    assert not execution.timed_out and execution.values[-1] == 0.0
    os.kill(os.getpid(), signal.SIGALRM)  # delivered at once, to the executor's handler
    assert running.run(waiting(0.0), trace=False).exception is None


def test_an_alarm_that_fires_before_the_first_statement_times_the_test_out():
    """A worker descheduled just after arming the timer (a busy machine; forced here by a
    timeout of a microsecond) gets the alarm before the test's first statement: the test timed
    out. It escaped ``run`` and ended the worker, its unit failed with no test (expint at load
    20, whose mutants run under a 0.25 s alarm)."""
    running = executor(1e-6)
    for _ in range(20):
        execution = running.run(waiting(0.0), trace=False)
        assert execution.timed_out and execution.refused == "run longer than 1e-06 s"
    running.timeout = 5.0
    assert running.run(waiting(0.0), trace=False).values[-1] == 0.0
