"""Each criterion on a small unit whose goals are known by hand."""

from __future__ import annotations

from harness import (
    branch,
    call,
    calling,
    construct,
    goals_of,
    h_of,
    method,
    unit_problem,
    value,
)
from miogen.criteria import Criterion, Goal
from miogen.criteria.providers import Run
from miogen.testcase.model import Statement

EC, OC = Criterion.EXCEPTION, Criterion.OUTPUT
TMC, NTMC = Criterion.METHOD, Criterion.METHOD_NO_EXCEPTION

PARSE = """
    def parse(a: str) -> int:
        if not a:
            raise ValueError("empty")
        if a == "x":
            raise KeyError(a)
        return int(a)
"""


def test_two_exception_types_are_two_goals_found_as_they_are_raised(write_module):
    problem = unit_problem(write_module("parsing", PARSE), "parse")
    assert problem.criteria.reported[EC].goals() == []  # dynamic: nothing known before a run
    empty, x, seven, word = (problem.evaluate(calling("parse", v)) for v in ("", "x", "7", "w"))
    assert goals_of(empty, EC) == {Goal(EC, "parse", 0, "ValueError")}
    assert goals_of(x, EC) == {Goal(EC, "parse", 0, "KeyError")}
    assert goals_of(seven, EC) == set()
    assert goals_of(word, EC) == {Goal(EC, "parse", 0, "ValueError")}  # int("w") raises it too
    assert set(problem.criteria.reported[EC].goals()) == {
        Goal(EC, "parse", 0, "ValueError"), Goal(EC, "parse", 0, "KeyError")
    }  # fmt: skip
    assert set(problem.targets()) >= set(problem.criteria.reported[EC].goals())


def test_a_call_with_arguments_the_callable_does_not_take_raises_no_goal(write_module):
    problem = unit_problem(write_module("parsing3", PARSE), "parse")
    wrong = problem.evaluate((value("7"), call("parse", ("b", 0))))  # TypeError before parse runs
    assert wrong.individual and goals_of(wrong, EC) == set()
    assert problem.criteria.reported[EC].goals() == []


def test_a_call_that_raises_covers_the_method_but_not_its_no_exception_goal(write_module):
    problem = unit_problem(write_module("parsing2", PARSE), "parse")
    raised, returned = (
        problem.evaluate(calling("parse", "")),
        problem.evaluate(calling("parse", "4")),
    )
    assert h_of(raised, Goal(TMC, "parse")) == 1.0
    assert h_of(raised, Goal(NTMC, "parse")) == 0.25  # reached: called, then raised
    assert h_of(returned, Goal(NTMC, "parse")) == 1.0
    arguments_only = problem.evaluate((value("4"),))
    assert h_of(arguments_only, Goal(TMC, "parse")) == 0.0


BOOLEAN = """
    def is_even(a: int) -> bool:
        return a % 2 == 0

    def sign(a: float) -> float:
        return a

    def find(a: list[int], b: int) -> int | None:
        return b if b in a else None

    def untyped(a):
        return a
"""


def test_a_boolean_output_has_a_true_and_a_false_goal(write_module):
    problem = unit_problem(write_module("outputs", BOOLEAN), "is_even")
    assert [g.detail for g in problem.criteria.reported[OC].goals()] == ["true", "false"]
    odd = problem.evaluate(calling("is_even", 3))
    assert h_of(odd, Goal(OC, "is_even", 0, "false")) == 1.0
    assert h_of(odd, Goal(OC, "is_even", 0, "true")) == 0.25  # the other side, one K away


def test_a_number_output_has_three_goals_with_distances_to_each(write_module):
    problem = unit_problem(write_module("outputs2", BOOLEAN), "sign")
    three = problem.evaluate(calling("sign", 3.0))
    scores = {g.detail: h_of(three, g) for g in problem.criteria.reported[OC].goals()}
    assert scores == {"negative": 0.5 / 5, "zero": 0.5 / 4, "positive": 1.0}


def test_optional_and_unannotated_outputs(write_module):
    path = write_module("outputs3", BOOLEAN)
    problem = unit_problem(path, "find")
    details = [g.detail for g in problem.criteria.reported[OC].goals()]
    assert details == ["negative", "zero", "positive", "none", "not-none"]
    missing = problem.evaluate((value([1]), value(5), call("find", ("a", 0), ("b", 1))))
    assert h_of(missing, Goal(OC, "find", 0, "none")) == 1.0
    untyped = unit_problem(path, "untyped")
    assert untyped.criteria.reported[OC].goals() == []  # found as values come back
    untyped.evaluate(calling("untyped", ""))
    assert {g.detail for g in untyped.criteria.reported[OC].goals()} == {"empty", "non-empty"}


LONG_BLOCK = """
    def long_block(a: int) -> int:
        b = a + 1
        c = b * 2
        d = c - 3
        e = 100 // (d - 7)
        f = e * 5
        g = f - 6
        h = g + 7
        i = h + 8
        return i

    def short_block(a: int) -> int:
        b = a + 1
        return b
"""


def test_smart_selection_keeps_the_last_line_of_a_block_of_eight_lines(write_module):
    path = write_module("blocks", LONG_BLOCK)
    smart = unit_problem(path, "long_block", "smart")
    lines = [p for p in smart.criteria.searched if p.criterion is Criterion.LINE][0]
    assert [g.line for g in lines.goals()] == [10]  # lines 2..10: 10 - 2 >= 8
    assert [
        g.line for g in unit_problem(path, "short_block", "smart").criteria.goals()
        if g.criterion is Criterion.LINE
    ] == []  # fmt: skip
    every = unit_problem(path, "long_block", "all").criteria.reported[Criterion.LINE].goals()
    assert [g.line for g in every] == list(range(2, 11))
    fine, raises = (
        smart.evaluate(calling("long_block", 1)),
        smart.evaluate(calling("long_block", 4)),
    )
    last = Goal(Criterion.LINE, "long_block", 10)
    assert h_of(fine, last) == 1.0
    assert h_of(raises, last) == 0.5  # the function ran, but a = 4 divides by zero on line 5


PAIR = """
    class Pair:
        def __init__(self, a: int) -> None:
            self.a = a

        def outer(self) -> int:
            return self.inner() + 1

        def inner(self) -> int:
            if self.a > 0:
                return 1
            return 0
"""


def test_a_branch_covered_through_another_method_is_not_directly_covered(write_module):
    problem = unit_problem(write_module("pair", PAIR), "Pair")
    taken = branch(problem, 9, True)
    goal = Goal(Criterion.DIRECT_BRANCH, "Pair.inner", 9, str(taken.id))
    through_outer = problem.evaluate((value(5), construct("Pair", ("a", 0)), method("outer", 1)))
    direct = problem.evaluate((value(5), construct("Pair", ("a", 0)), method("inner", 1)))
    assert h_of(through_outer, taken.id) == 1.0 and h_of(through_outer, goal) == 0.0
    assert h_of(direct, goal) == 1.0
    smart = unit_problem(write_module("pair2", PAIR), "Pair", "smart")
    direct_goals = [g for g in smart.criteria.goals() if g.criterion is Criterion.DIRECT_BRANCH]
    assert {g.callable for g in direct_goals} == {"Pair.inner"}  # outer is never called inside


def test_a_branch_covered_through_another_call_is_not_direct_because_the_test_calls_it_too(
    write_module,
):
    """``a.outer()`` takes ``inner``'s branch; ``b.inner()`` on a pair whose ``a`` is 0 takes
    the other one. Read per test, the test called ``inner`` and covered the branch: a goal only
    the two calls together held, which kept two behaviours in one test (issue 24,
    ``c.monthdays2calendar(0, 1)`` then ``c.itermonthdays2(0, 0)``)."""
    problem = unit_problem(write_module("pair3", PAIR), "Pair")
    taken = branch(problem, 9, True)
    goal = Goal(Criterion.DIRECT_BRANCH, "Pair.inner", 9, str(taken.id))
    both = (
        value(5), construct("Pair", ("a", 0)), method("outer", 1),
        value(0), construct("Pair", ("a", 3)), method("inner", 4),
    )  # fmt: skip
    evaluated = problem.evaluate(both)
    assert h_of(evaluated, taken.id) == 1.0
    assert h_of(evaluated, goal) < 1.0
    again = (*both[:3], method("inner", 1))  # taken first through outer, then directly
    assert h_of(problem.evaluate(again), goal) < 1.0
    alone = (value(5), construct("Pair", ("a", 0)), method("inner", 1))
    assert h_of(problem.evaluate(alone), goal) == 1.0


def test_a_runs_calls_by_statement_are_built_once_for_all_its_goals(write_module):
    """Each direct-branch goal asks which callable a statement calls: the run's one mapping,
    not a new dict per goal (``DirectBranches`` rebuilt it per goal on every evaluation)."""
    problem = unit_problem(write_module("pair4", PAIR), "Pair")
    test = (value(5), construct("Pair", ("a", 0)), method("outer", 1), method("inner", 1))
    run = Run(problem.executor.run(test), {}, problem.criteria.structure, None)
    assert run.call_at == dict(run.calls) and run.call_at is run.call_at
    assert run.call_at[2] == "Pair.outer" and run.call_at[3] == "Pair.inner"


MONTHS = """
    class Months:
        def __init__(self, first: int) -> None:
            self.first = first

        def days(self, month: int):
            for day in range(self.first, month):
                yield day

        def weeks(self, month: int) -> list:
            return list(self.days(month))
"""


def test_a_generators_branches_are_no_direct_goals_of_the_smart_selection(write_module):
    """Calling a generator runs none of its body: a test's statement never takes its
    branches itself, so the search does not aim at them (issue 24)."""
    smart = unit_problem(write_module("months", MONTHS), "Months", "smart")
    direct_goals = [g for g in smart.criteria.goals() if g.criterion is Criterion.DIRECT_BRANCH]
    assert direct_goals == []


def test_a_generators_branch_is_direct_where_the_test_iterates_its_own_call(write_module):
    """``m.days(3)`` runs nothing; ``list(result)`` after it takes the loop's branch: the test
    called ``days`` itself, so the branch is covered directly (the summary's direct-branch
    figure). Taken first by ``m.weeks(3)``, before any call of ``days``, it is not."""
    problem = unit_problem(write_module("months2", MONTHS), "Months")
    taken = branch(problem, 6, True)
    goal = Goal(Criterion.DIRECT_BRANCH, "Months.days", 6, str(taken.id))
    iterated = (
        value(0), construct("Months", ("first", 0)), value(3), method("days", 1, ("month", 2)),
        Statement("operator", "__iter__", receiver=3),
    )  # fmt: skip
    evaluated = problem.evaluate(iterated)
    assert h_of(evaluated, taken.id) == 1.0
    assert h_of(evaluated, goal) == 1.0
    through_weeks = (
        *iterated[:3],
        method("weeks", 1, ("month", 2)),
        method("days", 1, ("month", 0)),
    )
    assert h_of(problem.evaluate(through_weeks), taken.id) == 1.0
    assert h_of(problem.evaluate(through_weeks), goal) < 1.0
