"""The goals' control-dependence graph on nested conditions, and DynaMOSA activating it."""

from __future__ import annotations

import random

from harness import branch, unit_problem
from miogen.criteria import Criterion
from miogen.worker.search import Archive, Budget, run_dynamosa

NESTED = """
def nested(a: int, b: int) -> int:
    if a > 100:
        if b * 3 == 2403:
            return 1
        c = 2
        return c
    return 3
"""


def test_inner_branches_and_lines_depend_on_the_outer_branch(write_module):
    problem = unit_problem(write_module("nested", NESTED), "nested", "all")
    parents = problem.control_dependencies()
    outer, inner = branch(problem, 2, True), branch(problem, 3, True)
    assert parents[outer.id] == ()  # free: the function's top level
    assert parents[inner.id] == (outer.id,)
    assert parents[branch(problem, 3, False).id] == (outer.id,)
    lines = {
        g.line: p for g, p in parents.items() if getattr(g, "criterion", None) is Criterion.LINE
    }
    assert lines[4] == (inner.id,)
    # after a guard clause (an if whose body returns) the code runs on the other side of it
    assert lines[5] == lines[6] == (branch(problem, 3, False).id,)
    assert lines[2] == () and lines[7] == (branch(problem, 2, False).id,)


def test_dynamosa_aims_at_inner_branches_only_once_the_outer_one_is_covered(write_module):
    problem = unit_problem(write_module("nested2", NESTED), "nested", "branch")
    outer, inner = branch(problem, 2, True), branch(problem, 3, True)
    archive = Archive(random.Random(0), 1, feedback_directed=False)
    active = []

    def check(generation):
        active.append(set(generation.active))
        if inner.id in generation.active:
            assert archive.is_covered(outer.id)

    run_dynamosa(problem, Budget(evaluations=3000), random.Random(2), archive=archive,
                 on_generation=check)  # fmt: skip
    assert inner.id not in active[0] or archive.is_covered(outer.id)
    assert any(inner.id in a for a in active)  # activated at some point
    assert archive.is_covered(inner.id)
