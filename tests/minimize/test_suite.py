"""Joining kept tests (minimize.suite.join_tests) remembers where each part starts, for its name."""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable

from miogen.emit import names
from miogen.minimize import reduce, shrink, suite
from miogen.minimize.reduce import CoverageCache, ReducedTest
from miogen.minimize.suite import join_tests, reduce_suite
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


class SignRunner:
    """Runs ``calling`` tests whole; each covers the sign of its value (no optional targets)."""

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        value = test[0].value if test and test[0].kind == "value" else 0
        return test, frozenset({"positive" if isinstance(value, int) and value > 0 else "other"})

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        return None


def kept_values(allowance: float) -> tuple[list[object], float]:
    reduction = reduce_suite(
        [calling("grade", 731)], SignRunner(), lambda target: False, time.monotonic(),
        allowance=allowance,
    )  # fmt: skip
    values = [s.value for r in reduction.tests for s in r.test if s.kind == "value"]
    return values, reduction.extra_seconds


def test_values_are_shrunk_in_shrinkings_own_time_when_the_share_is_spent():
    # The unit's share is spent (its deadline is now): only the allowance lets 731 become 1.
    values, extra = kept_values(allowance=30.0)
    assert values == [1] and 0.0 < extra < 30.0
    assert kept_values(allowance=0.0) == ([731], 0.0)


class MethodRunner:
    """Each method call covers its name, and its name with the argument's value if it has one."""

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        covered: set[Hashable] = set()
        for statement in test:
            if statement.kind == "method":
                covered.add(statement.name)
                covered.update(f"{statement.name}:{test[i].value}" for _, i in statement.args)
        return test, frozenset(covered)

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        return None


def test_a_target_two_kept_tests_cover_stays_with_the_one_call_test():
    # ``both`` is picked first and owns "peek"; ``alone`` covers it with one call: handed to
    # it, "peek" no longer holds the extra call in ``both``, which shrinks to ``pop`` alone.
    both = (
        Statement("construct", "Stack"), Statement("method", "peek", receiver=0),
        Statement("method", "pop", receiver=0),
    )  # fmt: skip
    alone = (
        Statement("construct", "Stack"), Statement("value", value=7),
        Statement("method", "peek", (("n", 1),), receiver=0),
    )  # fmt: skip
    reduction = reduce_suite([both, alone], MethodRunner(), lambda t: False, time.monotonic() + 30)
    calls = [[s.name for s in r.test if s.kind == "method"] for r in reduction.tests]
    assert sorted(calls) == [["peek"], ["pop"]]


def test_every_kept_test_has_its_values_made_plain_before_any_is_shrunk_further():
    # Runs for five tests only: the cover's two and three more. Made plain first, neither test
    # keeps 731 or -613; shrunk one after the other, the first would spend them all.
    runs: list[TestCase] = []

    def run(test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        runs.append(test)
        if len(runs) > 5 or not test or test[0].kind != "value":
            return test[:0], frozenset()  # no runs left; a call without its argument raises
        return SignRunner()(test)

    class Limited(SignRunner):
        def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
            return run(test)

    reduction = reduce_suite(
        [calling("grade", 731), calling("score", -613)], Limited(), lambda target: False,
        time.monotonic() + 30,
    )  # fmt: skip
    values = [s.value for r in reduction.tests for s in r.test if s.kind == "value"]
    assert len(reduction.tests) == 2 and values and all(abs(v) <= 1 for v in values), values


class StackRunner:
    """``push`` covers "push"; ``pop`` covers "pop-empty", or "pop-full" after a push; each
    method covers its name too. Tests run whole."""

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        covered: set[Hashable] = set()
        pushed = False
        for statement in test:
            if statement.kind == "method":
                covered.add(statement.name)
                if statement.name == "pop":
                    covered.add("pop-full" if pushed else "pop-empty")
                pushed = pushed or statement.name == "push"
        return test, frozenset(covered)

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        return None


def stack_test(*methods: str) -> TestCase:
    return (Statement("construct", "Stack"),) + tuple(
        Statement("method", name, receiver=0) for name in methods
    )


def test_calls_that_cover_alone_what_they_cover_after_others_are_tests_of_their_own():
    # Both calls share the stack, so they are one independent piece; alone, each still covers
    # its name: two one-call tests, not one test of two behaviours.
    reduction = reduce_suite(
        [stack_test("peek", "size")], StackRunner(), lambda t: False, time.monotonic() + 30
    )
    calls = [[s.name for s in r.test if s.kind == "method"] for r in reduction.tests]
    assert sorted(calls) == [["peek"], ["size"]]


def test_a_call_that_needs_an_earlier_one_keeps_it_as_setup():
    reduction = reduce_suite(
        [stack_test("peek", "push", "pop")], StackRunner(), lambda t: False,
        time.monotonic() + 30,
    )  # fmt: skip
    calls = [[s.name for s in r.test if s.kind == "method"] for r in reduction.tests]
    assert sorted(calls) == [["peek"], ["pop"], ["push"], ["push", "pop"]]


def test_joining_keeps_calls_on_one_object_together():
    reduction = reduce_suite(
        [stack_test("peek", "size")], StackRunner(), lambda t: False, time.monotonic() + 30,
        join=True,
    )  # fmt: skip
    calls = [[s.name for s in r.test if s.kind == "method"] for r in reduction.tests]
    assert calls == [["peek", "size"]]


class Clock:
    """A clock that moves a second per run of a test (no waiting on the real one)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class BigRunner(SignRunner):
    """Each run costs a second of ``clock``; a call's goal needs its value at 500 or more."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        self.clock.now += 1.0
        value = test[0].value if test and test[0].kind == "value" else 0
        big = isinstance(value, int) and value >= 500
        return test, frozenset(f"{s.name}:{big}" for s in test if s.kind == "call")


def shrunk_on_a_clock(monkeypatch, seconds_per_run: float, tests: list[TestCase]) -> list[object]:
    """The values ``reduce_suite`` keeps when each run takes ``seconds_per_run`` of a clock
    (``BigRunner``'s goal: a value of 500 or more), with 40 s to the deadline and 60 s of
    shrinking's allowance."""
    clock = Clock()
    for module in (suite, shrink, reduce):
        monkeypatch.setattr(module, "time", clock)

    class Runner(BigRunner):
        def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
            found = super().__call__(test)
            self.clock.now += seconds_per_run - 1.0
            return found

    reduction = reduce_suite(
        tests, Runner(clock), lambda t: False, clock.now + 40, allowance=60.0
    )  # fmt: skip
    return [s.value for r in reduction.tests for s in r.test if s.kind == "value"]


def test_the_kept_values_do_not_depend_on_how_long_a_run_takes(monkeypatch):
    """Shrinking is measured in evaluations: on a machine six times slower (a run of 0.3 s
    instead of 0.05 s) the same values are kept, within the allowance (186 runs: 56 s of
    the 80 s). Shares of the time kept 514, 556, 516 and 534 on a machine ten times slower,
    500 on the fast one (issue 24: stdlib_fractions's tests stopped after 0-14 candidates on a
    loaded machine)."""
    tests = [calling(f"grade{n}", 7310 + 613 * n) for n in range(4)]
    fast = shrunk_on_a_clock(monkeypatch, 0.05, tests)
    assert all(500 <= v < 600 for v in fast), fast  # type: ignore[operator]
    assert shrunk_on_a_clock(monkeypatch, 0.3, tests) == fast


def test_when_the_hard_bound_comes_every_test_has_had_its_first_round(monkeypatch):
    """Runs so slow that the allowance ends shrinking (a second each, 20 s before the hard
    bound): each test has had the first round of evaluations (``SHRINK_EVALUATIONS``), not
    the first test all of the time."""
    monkeypatch.setattr(shrink, "SHRINK_EVALUATIONS", (8, 100))
    monkeypatch.setattr(suite, "SHRINK_EVALUATIONS", (8, 100))
    clock = Clock()
    for module in (suite, shrink, reduce):
        monkeypatch.setattr(module, "time", clock)
    tests = [calling("grade", 7310), calling("score", 6130)]
    reduction = reduce_suite(tests, BigRunner(clock), lambda t: False, clock.now + 40)
    values = [s.value for r in reduction.tests for s in r.test if s.kind == "value"]
    assert len(values) == 2 and all(500 <= v < 6130 for v in values), values  # type: ignore[operator]


def test_a_candidate_run_before_costs_no_evaluation():
    """One evaluation left, and 0 (the first candidate for 731) ran already: it is known to
    fail, and the one evaluation goes to 1, which holds the goal."""
    runs: list[TestCase] = []

    def run(test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        runs.append(test)
        return SignRunner()(test)

    test = calling("grade", 731)
    cache = CoverageCache(run)
    covered = cache(test)[1]
    cache(calling("grade", 0))
    reduce.remove_statements_pass(ReducedTest(test, covered), cache, time.monotonic() + 30)
    runs.clear()
    shrinker = shrink.Shrinker(cache, time.monotonic() + 30, evaluations=1)
    shrunk = shrinker.shrink(ReducedTest(test, covered))
    assert [s.value for s in shrunk.test if s.kind == "value"] == [1] and len(runs) == 1


def test_a_careful_unit_s_tests_are_shrunk_too():
    """A unit whose worker died (careful) shrinks its kept tests: ``TextCalendar(firstweekday=
    1416707424)`` stayed fuzz when it did not. Only ``shrinking=False`` (``--raw``, or a unit
    that only replays after its workers died) keeps the search's values."""

    def values(**options: bool) -> list[object]:
        reduction = reduce_suite(
            [calling("grade", 731)], SignRunner(), lambda target: False,
            time.monotonic() + 30, **options,
        )  # fmt: skip
        return [s.value for r in reduction.tests for s in r.test if s.kind == "value"]

    assert values(careful=True) == [1]
    assert values(careful=True, shrinking=False) == [731]


def test_the_floor_of_runs_stays_within_the_allowance():
    """Ten tests whose runs take 0.2 s, each kept for its exact value (every candidate fails),
    no time left in the unit's share: the floor alone would take 10 x 17 runs, 34 s;
    shrinking stops at the allowance (checked with a wide margin)."""

    class SlowRunner(SignRunner):
        def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
            time.sleep(0.2)
            values = [s.value for s in test if s.kind == "value"]
            return test, frozenset(f"{s.name}:{values}" for s in test if s.kind == "call")

    tests = [calling(f"grade{n}", 731 + n) for n in range(10)]
    started = time.monotonic()
    reduction = reduce_suite(tests, SlowRunner(), lambda target: False, started, allowance=0.5)
    assert [r.test for r in reduction.tests] == tests
    assert time.monotonic() - started < 15.0 and reduction.extra_seconds <= 0.5


def test_when_runs_run_out_the_fuzziest_test_is_made_plain_first():
    """Two kept tests and two runs left after the cover (0 and 1 for a positive value): the
    test with the fuzzier value gets them (``rank(1416707424)`` reads worse than ``grade(7)``),
    though it comes second."""

    class OneMoreRun(SignRunner):
        runs = 0

        def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
            self.runs += 1
            if self.runs > 4:  # the cover's two runs and two more: refused, as at a deadline
                return test[:0], frozenset()
            calls = [s.name for s in test if s.kind == "call"]
            signs = super().__call__(test)[1]
            return test, frozenset(f"{call}:{sign}" for call in calls for sign in signs)

    tests = [calling("grade", 7), calling("rank", 1416707424)]
    reduction = reduce_suite(tests, OneMoreRun(), lambda target: False, time.monotonic() + 30)
    values = [[s.value for s in r.test if s.kind == "value"] for r in reduction.tests]
    assert values == [[7], [1]]


class KillRunner:
    """Runs tests whole on a clock that moves a second per run; a call covers its name, and a
    ``grade`` call with a value other than 0 kills the mutants "k1" and "k2" (optional
    targets), which are checked, as by the worker's runner, only until its deadline."""

    def __init__(self, clock: Clock, until: float) -> None:
        self.clock, self.until = clock, until
        self.wanted: set[Hashable] | None = None

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        self.clock.now += 1.0
        covered: set[Hashable] = {s.name for s in test if s.kind == "call"}
        graded = [test[i].value for s in test if s.name == "grade" for _, i in s.args]
        if any(graded) and self.clock.now < self.until:
            covered |= {k for k in ("k1", "k2") if self.wanted is None or k in self.wanted}
        return test, frozenset(covered)

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        self.wanted = None if optional is None else set(optional)
        if until is not None:
            self.until = until


def kill_suite(monkeypatch, has_optional: bool) -> list[tuple[list[object], list[str]]]:
    """The values and targets of the kept tests of ``grade(731)`` (kills) and ``grade(0);
    rank(0)``, the unit's deadline 3.5 runs away (the cover sees the kills), shrinking's
    allowance 100 (far past it)."""
    clock = Clock()
    for module in (suite, shrink, reduce):
        monkeypatch.setattr(module, "time", clock)
    both = (
        Statement("value", value=0), Statement("call", "grade", (("x", 0),)),
        Statement("call", "rank", (("x", 0),)),
    )  # fmt: skip
    deadline = clock.now + 3.5
    reduction = reduce_suite(
        [calling("grade", 731), both], KillRunner(clock, deadline), lambda t: t in ("k1", "k2"),
        deadline, has_optional=has_optional, allowance=100.0,
    )  # fmt: skip
    return sorted(
        ([s.value for s in r.test if s.kind == "value"], sorted(map(str, r.targets)))
        for r in reduction.tests
    )


def test_a_test_kept_for_kills_is_shrunk_past_the_units_deadline(monkeypatch):
    """Shrinking runs past the unit's deadline (its allowance): the kills a test is kept for
    are checked as long as it does, else every candidate fails and ``grade(731)`` stays."""
    assert ([1], ["grade", "k1", "k2"]) in kill_suite(monkeypatch, has_optional=False)


def test_the_recount_after_shrinking_still_counts_the_kills(monkeypatch):
    """The cover runs again over the shrunk tests with every kill counted: past the unit's
    deadline, unchecked, the test would lose the kills it is kept for (or be dropped)."""
    assert ([1], ["grade", "k1", "k2"]) in kill_suite(monkeypatch, has_optional=True)


class LoneKillRunner:
    """Runs ``calling`` tests whole: each covers the branch ``"called"``; a value of 1700 or
    more also kills the mutant ``("m", 0)`` (alone), and 0 kills ``("m", 1)`` and ``("m", 2)``."""

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        value = test[0].value if test and test[0].kind == "value" else None
        covered: set[Hashable] = {"called"}
        if isinstance(value, int) and value >= 1700:
            covered.add(("m", 0))
        if value == 0:
            covered |= {("m", 1), ("m", 2)}
        return test, frozenset(covered)

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        return None


def test_beside_a_projects_suite_a_test_that_kills_one_mutant_alone_is_kept():
    tests = [calling("easter", 0), calling("easter", 1700)]

    def kept(lone_kills: bool) -> list[object]:
        reduction = reduce_suite(
            tests, LoneKillRunner(), lambda target: isinstance(target, tuple),
            time.monotonic() + 30, has_optional=True, shrinking=False, lone_kills=lone_kills,
        )  # fmt: skip
        return sorted(r.test[0].value for r in reduction.tests)

    # Alone, one kill is not worth a test of its own (MIN_MUTANT_GAIN); beside a project's
    # suite it is the kind the suite leaves alive, and the host judges it.
    assert kept(lone_kills=False) == [0]
    assert kept(lone_kills=True) == [0, 1700]
