"""aDynaMOSA's seven performance proxies, counted by hand on a small unit."""

from __future__ import annotations

from harness import call, construct, method, unit_problem, value
from miogen.worker.search import PROXIES

BAG = """
class Bag:
    def __init__(self, a: int) -> None:
        self.items = [0] * a

    def fill(self, a: int) -> int:
        total = 0
        for i in range(a):
            total += self._add(i)
        return total

    def _add(self, i: int) -> int:
        self.items.append(i)
        return i
"""


def proxies_of(problem, test) -> dict[str, float]:
    return dict(zip(PROXIES, problem.evaluate(test).proxies, strict=True))


def test_proxies_count_loops_calls_objects_and_statements_of_one_run(write_module):
    problem = unit_problem(write_module("bag", BAG), "Bag", "branch", performance=True)
    test = (value(2), construct("Bag", ("a", 0)), value(3), method("fill", 1, ("a", 2)))
    assert proxies_of(problem, test) == {
        "loop iterations": 3,  # the for loop ran its body three times
        "production calls": 1 + 1 + 3,  # __init__, fill, three _add
        "test calls": 2,  # Bag(...) and fill(...)
        "objects created": 0,  # [0] * a runs once: sites that run once do not count
        "production statements": 1 + (1 + 1 + 3 + 1) + 3 * 2,
        "test statements": 2,  # the two values
        "test length": 4,
    }


def test_loops_and_allocations_that_run_once_in_a_test_are_free(write_module):
    problem = unit_problem(write_module("bag2", BAG), "Bag", "branch", performance=True)
    once = proxies_of(
        problem, (value(1), construct("Bag", ("a", 0)), value(1), method("fill", 1, ("a", 2)))
    )
    twice = (
        value(1), construct("Bag", ("a", 0)), construct("Bag", ("a", 0)),
        value(1), method("fill", 1, ("a", 3)), method("fill", 2, ("a", 3)),
    )  # fmt: skip
    assert once["loop iterations"] == 0 and once["objects created"] == 0
    # frequencies are per test (the paper's): [0] * a ran twice, the loop body twice
    assert proxies_of(problem, twice)["objects created"] == 2
    assert proxies_of(problem, twice)["loop iterations"] == 2
    assert proxies_of(problem, (value(9), call("nothing")))["test calls"] == 1


def test_without_performance_no_proxies_are_counted(write_module):
    problem = unit_problem(write_module("bag3", BAG), "Bag", "branch")
    assert problem.evaluate((value(2), construct("Bag", ("a", 0)))).proxies == ()
