"""The probes' verdict on each target equals the arc tracer's (coverage.py semantics), test by test."""

from __future__ import annotations

import random

import pytest
from execution.helpers import problem_for

LOOPS = '''
def loops(xs: list[int], n: int, flag: bool) -> int:
    """Loops of every shape."""
    total = 0
    for x in xs:
        if x > n: break
        total += x
    else:
        total -= 1
    while n > 0 and total < 50:
        n -= 1
        total += 2
        if flag:
            continue
    for i in range(n):
        pass
    if not xs or (n == 3 and flag):
        return -1
    elif total in (4, 5, 6):
        return 1
    return total if total else 0


def branchless(a: int) -> int:
    return a * 2


class Counter:
    def __init__(self, start: int = 0):
        self.value = start

    def bump(self, by: int) -> int:
        if by < 0:
            raise ValueError("negative")
        self.value += by
        return self.value
'''


@pytest.mark.parametrize("unit", ["loops", "branchless", "Counter"])
def test_probe_coverage_equals_traced_coverage(write_module, unit):
    path = write_module("loops_module", LOOPS)
    fast = problem_for(path, unit)
    traced = problem_for(path, unit, trace=True)
    assert fast.executor.tracer is None and traced.executor.tracer is not None
    rng = random.Random(7)
    for _ in range(300):
        test = fast.sample(rng)
        if rng.random() < 0.5:
            test = fast.mutate(test, rng)
        covered_fast = {t for t, h in fast.evaluate(test).h.items() if h == 1.0}
        covered_traced = {t for t, h in traced.evaluate(test).h.items() if h == 1.0}
        assert covered_fast == covered_traced, test


@pytest.mark.parametrize(
    ("module", "unit"), [("triangle", "classify"), ("expint", "expint"), ("gammq", "gcf")]
)
def test_probe_coverage_equals_traced_coverage_on_the_classics(classic, module, unit):
    fast = problem_for(classic / f"{module}.py", unit)
    traced = problem_for(classic / f"{module}.py", unit, trace=True)
    rng = random.Random(3)
    for _ in range(200):
        test = fast.mutate(fast.sample(rng), rng)
        covered_fast = {t for t, h in fast.evaluate(test).h.items() if h == 1.0}
        covered_traced = {t for t, h in traced.evaluate(test).h.items() if h == 1.0}
        assert covered_fast == covered_traced, test


def test_match_statements_fall_back_to_the_tracer(write_module):
    path = write_module(
        "matching",
        """
        def kind(x: int) -> str:
            match x:
                case 1:
                    return "one"
                case _:
                    return "other"
        """,
    )
    problem = problem_for(path, "kind")
    assert problem.executor.tracer is not None
