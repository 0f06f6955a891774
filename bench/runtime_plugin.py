"""A pytest plugin for bench.criteria: the tests' own seconds (setup, call, teardown), summed,
the CPU seconds of their calls, and the process's peak resident memory; optionally the lines of
the module under test that the calls execute.

pytest's junit times have millisecond resolution, too coarse for generated unit tests that take
microseconds each; this times every phase with ``perf_counter`` and writes the total, the peak
RSS in KB (``ru_maxrss``: pytest's own included, the same for every suite of a subject), and the
CPU seconds (``process_time``) of the call phases alone to the file named by
``MIOGEN_RUNTIME_FILE`` when the session ends. CPU time does not count the time the process
waits for a core, so it moves less with the machine's load than wall time does.

With ``MIOGEN_COUNT_FILE`` set to the module's path, the call phases run under a tracer that
counts the line events of that file (and only that file's frames are traced line by line): the
production statements the suite executes, aDynaMOSA's I5 summed over the suite as emitted. That
number does not depend on load at all; its run is not timed (the tracer slows the calls down).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from types import FrameType
from typing import Any

import pytest

_total = 0.0
_cpu = 0.0
_lines = 0
_COUNTED = (
    os.path.realpath(os.environ.get("MIOGEN_COUNT_FILE", ""))
    if "MIOGEN_COUNT_FILE" in os.environ
    else ""
)
_is_counted: dict[str, bool] = {}  # a code object's file name -> whether it is the counted file


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001 - pytest's hook signature
    global _total
    start = time.perf_counter()
    yield
    _total += time.perf_counter() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):  # noqa: ARG001 - pytest's hook signature
    global _cpu
    previous = sys.gettrace()
    if _COUNTED:
        sys.settrace(_enter)
    start = time.process_time()
    yield
    _cpu += time.process_time() - start
    if _COUNTED:
        sys.settrace(previous)


def _enter(frame: FrameType, event: str, arg: Any) -> Any:  # noqa: ARG001 - settrace's signature
    """Trace a new frame line by line only when its code is the counted module's."""
    name = frame.f_code.co_filename
    counted = _is_counted.get(name)
    if counted is None:
        counted = _is_counted[name] = os.path.realpath(name) == _COUNTED
    return _line if counted else None


def _line(frame: FrameType, event: str, arg: Any) -> Any:  # noqa: ARG001 - settrace's signature
    global _lines
    if event == "line":
        _lines += 1
    return _line


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001 - pytest's hook signature
    path = os.environ.get("MIOGEN_RUNTIME_FILE")
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            handle.write(f"{_total!r} {peak} {_cpu!r} {_lines}")
