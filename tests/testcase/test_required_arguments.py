"""``TestFactory.complete``: whether each call of a test passes its required parameters."""

from __future__ import annotations

import random

from miogen.analysis.module import analyze_source
from miogen.testcase.model import Statement
from miogen.testcase.sampling import TestFactory

SUBJECT = """
class Calendar:
    def __init__(self, first: int = 0) -> None:
        self.first = first

    def month(self, year: int, month: int, /, width: int = 0, *rest: int, wide: bool) -> str:
        return ""
"""


def factory() -> TestFactory:
    model = analyze_source(SUBJECT, "calendars.py", "calendars")
    return TestFactory(model, model.unit("Calendar"))


def test_a_call_without_a_required_parameter_is_incomplete():
    f = factory()
    year, month, flag = (
        Statement("value", value=1),
        Statement("value", value=2),
        Statement("value", value=True),
    )
    base = (Statement("construct", "Calendar"), year, month, flag)
    names = [p.name for p in f.model.classes["Calendar"].methods[0].params]
    given = tuple((name, index) for name, index in zip(names[:2], (1, 2), strict=True))
    assert f.complete((*base, Statement("method", "month", (*given, ("wide", 3)), receiver=0)))
    assert not f.complete(
        (*base, Statement("method", "month", (given[1], ("wide", 3)), receiver=0))
    )
    assert not f.complete((*base, Statement("method", "month", given, receiver=0)))  # keyword-only


def test_sampled_tests_are_complete():
    f = factory()
    rng = random.Random(5)
    assert all(f.complete(f.sample(rng)) for _ in range(200))
