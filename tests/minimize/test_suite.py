"""Joining kept tests (minimize.suite.join_tests) remembers where each part starts, for its name."""

from __future__ import annotations

import time

from miogen.emit import names
from miogen.minimize.reduce import CoverageCache, ReducedTest
from miogen.minimize.suite import join_tests
from miogen.testcase.model import Statement, TestCase


def calling(function: str, value: int) -> TestCase:
    return (Statement("value", value=value), Statement("call", function, (("x", 0),)))


def runs_to_the_end(test: TestCase) -> tuple[TestCase, frozenset[object]]:
    """Every test runs whole and covers one goal per function it calls."""
    return test, frozenset(s.name for s in test if s.kind == "call")


def test_a_joined_test_knows_where_each_part_starts_and_is_named_after_all():
    suite = [
        ReducedTest(calling(function, 1), frozenset({function})) for function in ("push", "pop")
    ]
    suite.append(ReducedTest(calling("peek", 1) + calling("size", 2), frozenset({"peek", "size"})))
    suite[2] = ReducedTest(suite[2].test, suite[2].targets, (2,))  # itself joined before
    cache = CoverageCache(runs_to_the_end)
    [whole] = join_tests(suite, cache, time.monotonic() + 30)
    assert whole.parts == (2, 4, 6)
    assert [whole.test[start + 1].name for start in (0, *whole.parts)] == [
        "push", "pop", "peek", "size",
    ]  # fmt: skip
    assert names.test_name(whole.test, [], set(), whole.parts) == "test_push_pop_peek_size"


def test_a_test_that_joins_nothing_has_one_part():
    cache = CoverageCache(runs_to_the_end)
    [alone] = join_tests([ReducedTest(calling("push", 1), frozenset({"push"}))], cache, 1e18)
    assert alone.parts == ()
