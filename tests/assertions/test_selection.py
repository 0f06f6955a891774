"""Assertions are chosen by the mutants they kill; every test keeps at least one."""

from __future__ import annotations

import itertools
import time

from miogen.assertions.kills import MutantSet
from miogen.assertions.mutants import list_mutants
from miogen.assertions.observe import observe
from miogen.assertions.select import MutationAnalysis
from miogen.testcase.model import Statement
from subjects import LOOPING
from worker.helpers import problem_for

STACK = """
class Stack:
    def __init__(self, capacity: int = 2) -> None:
        self.capacity = capacity
        self.items: list[int] = []
        self.label = "stack"

    def push(self, item: int) -> int:
        if len(self.items) >= self.capacity:
            raise OverflowError("full")
        self.items.append(item)
        return len(self.items)

    def peek(self) -> int:
        return self.items[-1] * 1
"""


def stack_test():
    return (
        Statement("construct", "Stack"),
        Statement("value", value=7),
        Statement("method", "push", (("item", 1),), receiver=0),
        Statement("method", "peek", receiver=0),
    )


def analysis_for(path, problem):
    unit = problem.unit
    mutants = MutantSet(problem.factory.model.source, str(path), unit, "stackmod", timeout=0.2)
    return MutationAnalysis(mutants)


def test_mutants_cover_the_operators():
    from miogen.analysis.module import analyze_source

    unit = analyze_source(STACK, "stackmod.py", "stackmod").unit("Stack")
    operators = {m.operator for m in list_mutants(STACK, unit)}
    assert {"ROR", "CRP", "COND", "AOR"} <= operators


def test_selected_assertions_kill_what_all_observations_kill(write_module):
    path = write_module("stackmod", STACK)
    problem = problem_for(path, "Stack")
    seen = observe(problem.executor, stack_test(), "stackmod")
    test, observed = seen.test, seen.observations
    kinds = {(o.kind, o.detail) for o in observed}
    assert ("attribute", "capacity") in kinds and ("attribute", "label") in kinds
    analysis = analysis_for(path, problem)
    kept = analysis.select(test, observed, time.monotonic() + 10)
    assert 1 <= len(kept) < len(observed)
    assert ("attribute", "label") not in {(o.kind, o.detail) for o in kept}  # no mutant changes it
    assert analysis.report.mutants > 0 and analysis.report.killed


def test_a_raising_test_keeps_its_pytest_raises(write_module):
    path = write_module("stackmod", STACK)
    problem = problem_for(path, "Stack")
    full = (
        Statement("value", value=0),
        Statement("construct", "Stack", (("capacity", 0),)),
        Statement("value", value=1),
        Statement("method", "push", (("item", 2),), receiver=1),
    )
    seen = observe(problem.executor, full, "stackmod")
    test, observed = seen.test, seen.observations
    kept = analysis_for(path, problem).select(test, observed, time.monotonic() + 10)
    assert any(o.kind == "raises" and o.value == "OverflowError" for o in kept)


def test_without_time_the_fallback_keeps_the_last_value_and_no_dropped_result(write_module):
    path = write_module("stackmod", STACK)
    problem = problem_for(path, "Stack")
    seen = observe(problem.executor, stack_test(), "stackmod")
    test, observed = seen.test, seen.observations
    kept = analysis_for(path, problem).select(test, observed, time.monotonic() - 1)
    # The last call's value, and the result of push that nothing else uses or checks.
    assert [(o.index, o.kind, o.value) for o in kept] == [(3, "equals", "7"), (2, "equals", "1")]


COUNTER = """
class Counter:
    def __init__(self) -> None:
        self.count = 0

    def add(self, step: int) -> None:
        self.count += step

    def total(self) -> int:
        return self.count
"""


def kept_checks(write_module, *calls: str, typed: bool = False) -> list[tuple[int, str]]:
    path = write_module("countermod", COUNTER)
    problem = problem_for(path, "Counter")
    test = (Statement("construct", "Counter"), Statement("value", value=1)) + tuple(
        Statement("method", name, (("step", 1),) if name == "add" else (), receiver=0)
        for name in calls
    )
    seen = observe(problem.executor, test, "countermod")
    mutants = MutantSet(problem.factory.model.source, str(path), problem.unit, "countermod", 0.2)
    signatures = problem.factory.signature if typed else None
    kept = MutationAnalysis(mutants).select(
        seen.test, seen.observations, time.monotonic() - 1, signatures
    )
    return [(o.index, o.kind) for o in kept]


def test_a_query_whose_result_is_dropped_is_asserted(write_module):
    # ``counter.total()`` then ``counter.add(1)``: the fallback checks add's (None) result;
    # total's would be dropped, a query nobody checks.
    assert kept_checks(write_module, "total", "add") == [(3, "is_none"), (2, "equals")]


def test_a_call_declared_to_return_none_is_never_checked_for_none(write_module):
    # ``add`` is declared ``-> None``: ``assert counter.add(1) is None`` is mypy's
    # func-returns-value. Left out before the choice, the fallback takes total's value.
    assert kept_checks(write_module, "total", "add", typed=True) == [(2, "equals")]


def test_a_command_that_returns_none_is_left_unchecked(write_module):
    assert kept_checks(write_module, "add", "total") == [(3, "equals")]


def test_values_that_differ_between_runs_are_not_asserted(write_module):
    path = write_module(
        "clock",
        """
        import random

        def roll(sides: int) -> int:
            if sides < 1:
                raise ValueError("no sides")
            return random.randint(1, 10**9)
        """,
    )
    problem = problem_for(path, "roll")
    test = (Statement("value", value=6), Statement("call", "roll", (("sides", 0),)))
    observed = observe(problem.executor, test, "clock").observations
    assert not [o for o in observed if o.kind == "equals"]
    assert [o.kind for o in observed] == ["isinstance"]


def test_a_mutant_stopped_by_the_wall_clock_cap_kills_nothing(write_module):
    """A mutant that loops is killed by its timeout; stopped by the wall-clock cap instead (a
    machine that never let it run: its wait for a CPU read here as always growing), what it
    would show is not known, and no assertion is chosen for killing it."""
    path = write_module("looping_select", LOOPING)
    problem = problem_for(path, "count_down")
    unit, source = problem.unit, problem.factory.model.source
    test = (Statement("value", value=3), Statement("call", "count_down", (("n", 0),)))
    seen = observe(problem.executor, test, "looping_select")
    # Quiet: the thread is never seen waiting, so a looping mutant ends at its timeout by the
    # wall clock, a kill, however loaded the machine running this test is (on the real clock
    # it could meet the wall-clock cap there too). 0.2 s: no other mutant comes near it.
    loops = MutantSet(source, str(path), unit, "looping_select", timeout=0.2)
    for loaded in loops.loaded:
        loaded.executor.deadline.waits = lambda: 0
    quiet = MutationAnalysis(loops)
    quiet.select(seen.test, seen.observations, time.monotonic() + 60)
    capped = MutantSet(source, str(path), unit, "looping_select", timeout=0.2)
    for loaded in capped.loaded:
        loaded.executor.deadline.waits = itertools.count(0, 10**12).__next__  # 1000 s more per read
        loaded.executor.deadline.cap_factor = 2.0  # capped at 0.4 s: the test stays short
    busy = MutationAnalysis(capped)
    busy.select(seen.test, seen.observations, time.monotonic() + 60)
    looping = {
        loaded.mutant.index
        for loaded in capped.loaded
        if loaded.executor.run(seen.test, trace=False).capped
    }
    assert looping and looping <= quiet.report.killed
    assert not looping & busy.report.killed
    assert busy.report.killed == quiet.report.killed - looping
