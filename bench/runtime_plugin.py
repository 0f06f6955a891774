"""A pytest plugin for bench.criteria: the tests' own seconds (setup, call, teardown), summed,
and the process's peak resident memory.

pytest's junit times have millisecond resolution, too coarse for generated unit tests that take
microseconds each; this times every phase with ``perf_counter`` and writes the total and the
peak RSS in KB (``ru_maxrss``: pytest's own included, the same for every suite of a subject) to
the file named by ``MIOGEN_RUNTIME_FILE`` when the session ends.
"""

from __future__ import annotations

import os
import resource
import time

import pytest

_total = 0.0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001 - pytest's hook signature
    global _total
    start = time.perf_counter()
    yield
    _total += time.perf_counter() - start


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001 - pytest's hook signature
    path = os.environ.get("MIOGEN_RUNTIME_FILE")
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            handle.write(f"{_total!r} {peak}")
