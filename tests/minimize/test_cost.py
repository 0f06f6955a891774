"""The cost-aware minimisation (aDynaMOSA, MIO --performance): the cheaper suite for the same goals."""

from __future__ import annotations

import time

from criteria.harness import calling, unit_problem
from miogen.minimize.cost import FIXED_TEST_COST, weight
from miogen.minimize.reduce import CoverageCache, ReducedTest, set_cover
from miogen.minimize.shrink import Shrinker
from miogen.minimize.suite import MAX_JOINED_CALLS, join_tests, reduce_suite
from miogen.testcase.model import Statement, canonical_key
from miogen.worker.search import PROXIES

STATEMENTS = PROXIES.index("production statements")


def proxies(statements: float) -> tuple[float, ...]:
    found = [0.0] * len(PROXIES)
    found[STATEMENTS] = statements
    return tuple(found)


def named(number: int, calls: int = 1):
    return (Statement("value", value=number),) + tuple(
        Statement("call", "f", (("x", 0),)) for _ in range(calls)
    )


def cover_of(covers: dict, cost: bool):
    """set_cover over tests named by number; ``covers`` maps number -> (calls, I5, targets)."""
    tests = {number: named(number, calls) for number, (calls, _, _) in covers.items()}
    cache = CoverageCache(lambda test: (test, frozenset(covers[test[0].value][2])))

    def proxies_of(test):
        return proxies(covers[test[0].value][1])

    chosen = set_cover(tests.values(), cache, cost=proxies_of if cost else None)
    return {r.test[0].value for r in chosen}


def test_a_test_weighs_its_fixed_cost_plus_the_production_statements_it_runs():
    assert weight(proxies(120)) == FIXED_TEST_COST + 120
    assert weight(None) == weight(()) == FIXED_TEST_COST


def test_a_test_covering_what_others_cover_between_them_is_dropped():
    # Greedy takes 1 first (three goals), then needs 2, 3 and 4 for b4, b5, b6, which also
    # cover b1..b3: test 1 costs a whole test and adds nothing.
    covers = {
        1: (1, 10, {"b1", "b2", "b3"}), 2: (1, 10, {"b1", "b4"}),
        3: (1, 10, {"b2", "b5"}), 4: (1, 10, {"b3", "b6"}),
    }  # fmt: skip
    assert cover_of(covers, cost=False) == {1, 2, 3, 4}
    assert cover_of(covers, cost=True) == {2, 3, 4}


def test_of_two_tests_covering_the_same_goals_the_cheaper_stays_even_if_longer():
    covers = {1: (2, 40, {"b1", "b2"}), 2: (1, 9_000, {"b1", "b2"})}
    assert cover_of(covers, cost=False) == {2}  # shorter
    assert cover_of(covers, cost=True) == {1}  # runs fewer production statements


def test_one_test_running_a_long_loop_costs_more_than_two_quick_ones():
    covers = {1: (1, 3 * FIXED_TEST_COST, {"b1", "b2"}), 2: (1, 5, {"b1"}), 3: (1, 5, {"b2"})}
    assert cover_of(covers, cost=False) == {1}
    assert cover_of(covers, cost=True) == {2, 3}


SIGNS = """
def sign(a: int) -> str:
    if a > 0:
        return "positive"
    if a < 0:
        return "negative"
    return "zero"
"""


class Runner:
    """reduce_suite's runner over a real UnitProblem, remembering each run's proxies."""

    def __init__(self, problem) -> None:
        self.problem = problem
        self.seen: dict = {}

    def __call__(self, test):
        evaluated = self.problem.evaluate(test)
        self.seen[canonical_key(evaluated.individual)] = evaluated.proxies
        return evaluated.individual, frozenset(t for t, h in evaluated.h.items() if h >= 1.0)

    def focus(self, optional, until=None) -> None:
        pass

    def proxies(self, test):
        return self.seen.get(canonical_key(test))


def test_a_whole_test_covering_what_its_pieces_cover_saves_a_test(write_module):
    problem = unit_problem(write_module("signs", SIGNS), "sign", "branch", performance=True)
    # Two independent calls: split, they read best as two tests; together they cost one.
    test = calling("sign", 3) + tuple(
        s.renumbered({0: 2}) for s in calling("sign", -3)
    )  # fmt: skip
    runner = Runner(problem)
    deadline = time.monotonic() + 30

    def reduce(cost, join=True):
        return reduce_suite([test], runner, lambda t: False, deadline, cost=cost, join=join)

    plain, cheap = reduce(None, join=False).tests, reduce(runner.proxies).tests
    assert len(plain) == 2 and len(cheap) == 1
    assert plain[0].targets | plain[1].targets == cheap[0].targets
    # Without joining (the default), cost-aware or not: one behaviour per test.
    assert len(reduce(runner.proxies, join=False).tests) == 2


COUNTDOWN = """
def climb(a: int) -> int:
    if a > 5:
        while a < 2000:
            a += 1
        return a
    return 0
"""


def test_shrinking_refuses_a_simpler_value_that_makes_the_test_costlier(write_module):
    problem = unit_problem(write_module("climb", COUNTDOWN), "climb", "branch", performance=True)
    runner = Runner(problem)
    cache = CoverageCache(runner)
    test = calling("climb", 1990)
    _, covered = cache(test)

    def shrunk(cost):
        reduced = Shrinker(cache, time.monotonic() + 30, cost=cost).shrink(
            ReducedTest(test, covered)
        )
        return reduced.test[0].value

    assert shrunk(None) == 6  # the simplest value still above 5: 1,994 iterations
    assert shrunk(runner.proxies) >= 1990  # never costlier than the test it started from


def test_narrow_tests_are_joined_into_one_that_covers_what_each_did(write_module):
    problem = unit_problem(write_module("signs2", SIGNS), "sign", "branch", performance=True)
    tests = [calling("sign", 3), calling("sign", -3), calling("sign", 0)]
    runner = Runner(problem)
    deadline = time.monotonic() + 30

    def reduce(cost, join=True):
        return reduce_suite(tests, runner, lambda t: False, deadline, cost=cost, join=join)

    plain, cheap = reduce(None, join=False).tests, reduce(runner.proxies).tests
    assert len(plain) == 3 and len(cheap) == 1
    assert len(reduce(runner.proxies, join=False).tests) == 3
    assert cheap[0].targets == frozenset().union(*(r.targets for r in plain))
    assert sum(s.kind == "call" for s in cheap[0].test) == 3


def test_a_join_stops_at_the_call_limit_and_where_the_joined_test_would_stop_early(write_module):
    problem = unit_problem(write_module("signs3", RAISES), "check", "branch", performance=True)
    runner = Runner(problem)
    cache = CoverageCache(runner)
    suite = []
    for value in (1, 2, 3, -1, 4):
        executed, covered = cache(calling("check", value))
        suite.append(ReducedTest(executed, covered))
    joined = join_tests(suite, cache, time.monotonic() + 30)
    # 1, 2, 3 join; -1 raises, so it can end a joined test but nothing can follow it there.
    calls = [[s.value for s in r.test if s.kind == "value"] for r in joined]
    assert calls == [[1, 2, 3, -1], [4]]
    # A test that cannot follow the first joined test goes to the next one it fits.
    again = [suite[3], suite[0], suite[1]]
    joined = join_tests(again, cache, time.monotonic() + 30)
    assert [[s.value for s in r.test if s.kind == "value"] for r in joined] == [[-1], [1, 2]]
    assert MAX_JOINED_CALLS == 6
    limited = join_tests(suite * 3, cache, time.monotonic() + 30)
    assert all(sum(s.kind == "call" for s in r.test) <= MAX_JOINED_CALLS for r in limited)


RAISES = """
def check(a: int) -> int:
    if a < 0:
        raise ValueError("negative")
    return a
"""


def test_a_unit_whose_worker_died_gets_no_joined_tests(write_module):
    problem = unit_problem(write_module("signs4", SIGNS), "sign", "branch", performance=True)
    tests = [calling("sign", 3), calling("sign", -3)]
    runner = Runner(problem)
    deadline = time.monotonic() + 30
    careful = reduce_suite(
        tests, runner, lambda t: False, deadline, True, cost=runner.proxies, join=True
    )
    assert len(careful.tests) == 2  # joining would run tests nobody ran before
