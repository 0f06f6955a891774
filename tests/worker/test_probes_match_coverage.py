"""The probes' verdict on each target equals the arc tracer's (coverage.py semantics), test by test."""

from __future__ import annotations

import random

import pytest
from miogen.testcase.model import Statement, TestCase
from miogen.worker.problem import UnitProblem
from worker.helpers import problem_for

# Short, so that the few sampled tests that loop for seconds (``range(11583627)``) cost little:
# where the alarm stops a run depends on the machine and the tracer's cost, not on the probes,
# so a run that times out under either executor is not compared.
TIMEOUT = 0.1


def covered(problem: UnitProblem, test: TestCase) -> frozenset[object] | None:
    """The targets one run of ``test`` covers (``evaluate``'s h == 1); None if it timed out."""
    problem.executor.timeout = TIMEOUT
    execution = problem.executor.run(test)
    if execution.timed_out:
        return None
    if execution.refused:  # the sandbox's refusals: ``evaluate`` counts them as covering nothing
        return frozenset()
    return frozenset(t for t, h in problem.heuristics(execution).items() if h == 1.0)


def compare(fast: UnitProblem, traced: UnitProblem, tests: list[TestCase]) -> int:
    """Assert that the probes and the tracer agree on every test neither timed out in; the
    number of tests compared."""
    compared = 0
    for test in tests:
        by_probes = covered(fast, test)
        by_tracer = covered(traced, test) if by_probes is not None else None  # slower still
        if by_probes is None or by_tracer is None:
            continue
        assert by_probes == by_tracer, test
        compared += 1
    return compared


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
    tests = []
    for _ in range(300):
        test = fast.sample(rng)
        tests.append(fast.mutate(test, rng) if rng.random() < 0.5 else test)
    assert compare(fast, traced, tests) > 240  # 34 loop for long (seconds, untraced)


@pytest.mark.parametrize(
    ("module", "unit"), [("triangle", "classify"), ("expint", "expint"), ("gammq", "gcf")]
)
def test_probe_coverage_equals_traced_coverage_on_the_classics(classic, module, unit):
    fast = problem_for(classic / f"{module}.py", unit)
    traced = problem_for(classic / f"{module}.py", unit, trace=True)
    rng = random.Random(3)
    tests = [fast.mutate(fast.sample(rng), rng) for _ in range(200)]
    assert compare(fast, traced, tests) > 150


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


def test_a_condition_inside_an_if_condition_does_not_read_as_the_ifs(write_module):
    """Probes key outcomes by line: the ``if dot`` of ``(254 if dot else 253)`` being true is
    not the ``if``'s true branch (idna's ``valid_string_length`` was reported covered by any
    short name with ``trailing_dot=True``), so such a unit runs under the tracer."""
    path = write_module(
        "lengths",
        """
        def valid_length(name: str, dot: bool) -> bool:
            if len(name) > (254 if dot else 253):
                return False
            return True
        """,
    )
    problem = problem_for(path, "valid_length")
    assert problem.executor.tracer is not None
    test = (
        Statement("value", value="abc"),
        Statement("value", value=True),
        Statement("call", "valid_length", (("name", 0), ("dot", 1))),
    )
    into_return_false = next(t.id for t in problem.unit.targets if t.arc == (2, 3))
    assert into_return_false not in covered(problem, test)
