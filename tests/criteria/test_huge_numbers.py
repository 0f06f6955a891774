"""Ints past float's range: the probes measure them without raising inside the user's code.

An OverflowError raised by a probe looks like the unit's own exception: the search records an
exception goal, and the emitted test expecting it fails under pytest, where nothing is
instrumented (fractions' ``round(f, f)`` and ``f ** f`` lost their tests, and their branches).
"""

from __future__ import annotations

from harness import branch, calling, goals_of, h_of, unit_problem
from miogen.criteria import Criterion, Goal

GROW = """
    def grow(a: int) -> int:
        power = 10**a
        if power:
            power = power * 3
        if power > a:
            return power - 1
        return -power
"""


def test_an_int_past_floats_range_raises_nothing_and_scores_every_criterion(write_module):
    problem = unit_problem(write_module("huge", GROW), "grow", criteria="all")
    evaluated = problem.evaluate(calling("grow", 400))
    assert not goals_of(evaluated, Criterion.EXCEPTION)
    assert goals_of(evaluated, Criterion.METHOD_NO_EXCEPTION)
    assert h_of(evaluated, Goal(Criterion.OUTPUT, "grow", 0, "positive")) == 1.0
    assert 0.0 < h_of(evaluated, Goal(Criterion.OUTPUT, "grow", 0, "zero")) < 0.5
    for line in (3, 5):  # both conditions true
        assert h_of(evaluated, branch(problem, line, True).id) == 1.0


def test_weak_mutation_still_scores_comparisons_of_huge_ints(write_module):
    problem = unit_problem(write_module("huge2", GROW), "grow", criteria="all")
    small, huge = (problem.evaluate(calling("grow", n)) for n in (1, 400))
    mutants = {g for g in small.h if isinstance(g, Goal) and g.criterion is Criterion.WEAK_MUTATION}
    assert mutants
    assert {g for g in huge.h if g in mutants}  # reached and judged, not dropped by a raise
