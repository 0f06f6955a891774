"""--criteria parsing, smart selection's subsets, and weak mutation's goals on small units."""

from __future__ import annotations

import ast

import pytest
from harness import calling, h_of, unit_problem
from miogen.analysis.model import Unit
from miogen.assertions.mutants import mutation_points
from miogen.criteria import Criterion, Goal, parse_criteria
from miogen.criteria.selection import smart_lines, smart_mutants

WM = Criterion.WEAK_MUTATION
ANYWHERE = Unit("u", "function", 1, 100, "", ranges=((1, 100),))


def test_criteria_names():
    assert parse_criteria("branch").criteria == (Criterion.BRANCH,)
    assert parse_criteria("all").criteria == tuple(Criterion)
    assert parse_criteria("line,output").criteria == (
        Criterion.BRANCH,
        Criterion.LINE,
        Criterion.OUTPUT,
    )  # fmt: skip  (branches are always searched)
    smart = parse_criteria("smart")
    assert smart.smart and Criterion.METHOD not in smart and Criterion.METHOD_NO_EXCEPTION in smart
    with pytest.raises(ValueError, match="unknown criteria lines"):
        parse_criteria("branch,lines")


def described(source: str) -> list[str]:
    points = smart_mutants(mutation_points(ast.parse(source), ANYWHERE))
    return [p.mutant.description for p in points]


def test_smart_mutants_are_the_subsuming_relational_arithmetic_and_bitwise_ones():
    assert described("x = a < b") == ["Lt -> LtE", "Lt -> NotEq"]
    assert sorted(described("x = a + b - c * d")) == ["Add -> Mult", "Mult -> Add", "Sub -> Mult"]
    assert described("x = a & b | c") == ["BitAnd -> BitOr", "BitOr -> BitAnd", "BitOr -> BitXor"]
    assert described("x = a % b") == ["Mod -> FloorDiv", "Mod -> Mult"]  # no rule: all kept
    assert described("x = (a and b) if 3 else 4") == []  # LCR, COND and CRP are dropped


def test_smart_lines_keep_the_last_line_of_long_blocks_only():
    assert smart_lines([(2, 9), (2, 10), (12, 30)]) == [10, 30]


ORDER = """
def ordered(a: int, b: int) -> bool:
    return a < b
"""


def test_a_relational_mutant_is_covered_on_its_boundary_and_guided_to_it(write_module):
    problem = unit_problem(write_module("order", ORDER), "ordered", "smart")
    goals = [g for g in problem.criteria.goals() if g.criterion is WM]
    assert len(goals) == 2
    to_less_equal = next(g for g in goals if g.detail == "0")  # mutant 0: < becomes <=
    far, near, on = (problem.evaluate(calling("ordered", a, 5)) for a in (1, 4, 5))
    assert 0.12 < h_of(far, to_less_equal) < h_of(near, to_less_equal) < 1.0
    assert h_of(on, to_less_equal) == 1.0
    assert h_of(problem.evaluate(calling("ordered", 7, 5)), Goal(WM, "ordered", 2, "1")) == 1.0


def test_branch_only_runs_place_no_probes_and_count_nothing(write_module):
    problem = unit_problem(write_module("order2", ORDER), "ordered", "branch")
    assert problem.criteria.counters is None and problem.criteria.goals() == []
    assert list(problem.targets()) == list(problem.by_id)
