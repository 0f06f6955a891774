"""Strong mutation: a test kills a mutant when an assertion from the original run would fail."""

from __future__ import annotations

import itertools

from miogen.assertions.kills import MutantSet, MutantTarget, differs, fails
from miogen.assertions.observation import Observation
from miogen.assertions.observe import observations_of
from miogen.testcase.model import Statement
from miogen.worker.problem import EvaluationMode
from subjects import LOOPING
from worker.helpers import problem_for

SUBJECT = """
def grade(score: int) -> str:
    if score >= 90:
        return "A"
    return "C"


def ratio(a: float, b: float) -> float:
    return a / (b + 1)
"""


def call(name: str, **values):
    statements = [Statement("value", value=v) for v in values.values()]
    args = tuple((key, index) for index, key in enumerate(values))
    return (*statements, Statement("call", name, args))


def setup(write_module, unit: str):
    path = write_module("subject", SUBJECT)
    problem = problem_for(path, unit)
    model = problem.factory.model
    mutants = MutantSet(model.source, str(path), problem.unit, "subject", timeout=0.5)
    return problem, mutants


def target_of(mutants: MutantSet, description: str) -> MutantTarget:
    (found,) = [m.target for m in mutants.loaded if m.mutant.description == description]
    return found


def test_only_the_boundary_kills_the_relational_mutant(write_module):
    problem, mutants = setup(write_module, "grade")
    boundary = target_of(mutants, "GtE -> Gt")
    at_boundary = mutants.kills(problem.executor.run(call("grade", score=90)))
    inside = mutants.kills(problem.executor.run(call("grade", score=91)))
    assert boundary in at_boundary
    assert boundary not in inside
    # 91 still tells the negated condition apart: the return value changes.
    assert inside


def test_mutants_of_a_function_the_test_never_runs_are_not_run(write_module):
    problem, mutants = setup(write_module, "grade")
    execution = problem.executor.run(call("grade", score=90))
    assert {loaded.mutant.line for loaded in mutants.reached(execution)} == {2}
    before = mutants.executions
    mutants.kills(execution)
    assert mutants.executions - before == len(mutants.reached(execution))


def test_skipped_mutants_are_not_run(write_module):
    problem, mutants = setup(write_module, "grade")
    execution = problem.executor.run(call("grade", score=90))
    before = mutants.executions
    assert mutants.kills(execution, skip=lambda target: True) == set()
    assert mutants.executions == before


def test_the_mutation_phase_heuristic_rewards_closeness_to_the_boundary(write_module):
    problem, mutants = setup(write_module, "grade")
    problem = problem.under(EvaluationMode(mutants))
    boundary = target_of(mutants, "GtE -> Gt")
    far = problem.evaluate(call("grade", score=20)).h[boundary]
    near = problem.evaluate(call("grade", score=88)).h[boundary]
    killed = problem.evaluate(call("grade", score=90)).h[boundary]
    assert 0 < far < near < killed == 1.0
    assert len(problem.targets()) == len(problem.by_id) + len(mutants)


def test_floats_within_approx_tolerance_do_not_kill():
    expected = [Observation(1, "approx", "0.30000000000000004")]
    assert not differs(expected, [Observation(1, "approx", "0.3")])
    assert differs(expected, [Observation(1, "approx", "0.31")])
    assert fails(Observation(1, "equals", "3"), [Observation(1, "equals", "4")])


def test_a_raise_the_original_did_not_have_kills():
    expected = [Observation(0, "equals", "1")]
    assert differs(expected, [Observation(0, "equals", "1"), Observation(1, "raises", "KeyError")])
    assert not differs(expected, [Observation(0, "equals", "1")])


HELPERS = """
from __future__ import annotations

IMPORTS = []
IMPORTS.append("ran")


def area(shape: Square) -> int:
    return _side(shape) * _side(shape)


def _side(shape: Square) -> int:
    return shape.side + 0


class Square:
    def __init__(self, side: int) -> None:
        self.side = side
"""


def test_a_mutant_module_reruns_only_the_unit_and_sees_its_mutated_helpers(write_module):
    from miogen.analysis.module import analyze_file
    from miogen.assertions.mutants import MutantFactory, list_mutants

    path = write_module("shapes", HELPERS)
    model = analyze_file(path, "shapes")
    unit = model.unit("area")
    base = {"IMPORTS": ["ran"], "Square": object(), "__name__": "shapes"}
    base_module = type(__import__("sys"))("shapes")
    vars(base_module).update(base)
    factory = MutantFactory(model.source, str(path), unit, "shapes", base_module)
    # The same mutants, in the same order, as when the whole module is walked.
    assert factory.mutants == list_mutants(model.source, unit)
    (constant,) = [m for m in factory.mutants if m.operator == "CRP"]  # `+ 0` in the helper
    mutant = factory.load(constant.index)
    assert mutant.IMPORTS is base["IMPORTS"] and mutant.IMPORTS == ["ran"]  # not run again
    assert mutant.Square is base["Square"]  # outside the unit: the original's
    square = type("Square", (), {"side": 3})()
    assert mutant.area(square) == 16  # (3 + 1) * (3 + 1): area calls the mutated helper
    whole = MutantFactory(model.source, str(path), unit, "shapes").load(constant.index)
    assert whole.area(square) == 16 and whole.Square is not base["Square"]


def test_complex_numbers_within_approx_tolerance_do_not_kill():
    expected = [Observation(1, "approx", "(0.16047214752482825-0.16047214752482822j)")]
    assert not differs(
        expected, [Observation(1, "approx", "(0.1604721475248282-0.1604721475248282j)")]
    )
    assert differs(expected, [Observation(1, "approx", "(0.16-0.17j)")])


def test_float_containers_within_approx_tolerance_do_not_kill():
    expected = [Observation(1, "approx", "(0.30000000000000004, 2)")]
    assert not differs(expected, [Observation(1, "approx", "(0.3, 2)")])
    assert differs(expected, [Observation(1, "approx", "(0.31, 2)")])
    assert differs(expected, [Observation(1, "approx", "[0.3, 2]")])  # a list is not a tuple
    assert differs(expected, [Observation(1, "approx", "(0.3, 2, 1)")])
    mapping = [Observation(1, "approx", '{"a": 0.1}')]
    assert not differs(mapping, [Observation(1, "approx", '{"a": 0.1000000000001}')])
    assert differs(mapping, [Observation(1, "approx", '{"b": 0.1}')])


def test_a_mutant_stopped_by_the_wall_clock_cap_is_not_a_timeout_kill(write_module):
    """A mutant that loops times out and is killed; stopped instead by the cap on the wall
    clock (a machine that never let it run: its wait for a CPU read here as always growing),
    whether it would have timed out is not known, and it is not counted a kill."""
    path = write_module("looping", LOOPING)
    problem = problem_for(path, "count_down")
    model = problem.factory.model
    mutants = MutantSet(model.source, str(path), problem.unit, "looping", timeout=0.05)
    test = call("count_down", n=3)
    expected = observations_of(problem.executor.run(test), "looping")
    looping = [
        loaded for loaded in mutants.loaded if loaded.executor.run(test, trace=False).timed_out
    ]
    assert looping
    for loaded in looping:
        assert mutants.kills_one(loaded, test, expected)
        loaded.executor.deadline.waits = itertools.count(0, 10**12).__next__  # 1000 s more per read
        execution = loaded.executor.run(test, trace=False)
        assert execution.timed_out and execution.capped
        assert not mutants.kills_one(loaded, test, expected)
