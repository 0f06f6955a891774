"""A pytest plugin that runs tests in another order (seed from MIOGEN_SHUFFLE_SEED).

It also writes the tests' own time (set-up, call and tear-down of every test, as pytest measures
it) into the JUnit report at full precision, as the global property ``miogen_seconds``: the
report's per-test ``time`` has millisecond steps, and a cost-aware suite of one joined test runs
in tens of microseconds.

Seed 1 runs the file backwards: every pair of tests meets in the order the coverage run did
not run it (a test that needs another before it, or breaks another after it, fails in one of
the two runs); a shuffle would turn only half of the pairs around. Other seeds shuffle.
"""

from __future__ import annotations

import os
import random

import pytest
from _pytest.junitxml import xml_key  # the JUnit writer; pytest exposes no public handle

BACKWARDS = 1


def pytest_collection_modifyitems(session: object, config: object, items: list[object]) -> None:
    seed = os.environ.get("MIOGEN_SHUFFLE_SEED")
    if seed is None:
        return
    if int(seed) == BACKWARDS:
        items.reverse()
    else:
        random.Random(int(seed)).shuffle(items)


_seconds = [0.0]


def pytest_sessionstart(session: pytest.Session) -> None:
    _seconds[0] = 0.0


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _seconds[0] += report.duration


@pytest.hookimpl(tryfirst=True)  # before the JUnit writer's own session finish writes the file
def pytest_sessionfinish(session: pytest.Session) -> None:
    writer = session.config.stash.get(xml_key, None)
    if writer is not None:
        writer.add_global_property("miogen_seconds", repr(_seconds[0]))
