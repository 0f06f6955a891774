"""Loading a unit's mutants within a deadline: spread over the unit, resumable, measured."""

from __future__ import annotations

from collections.abc import Callable

from miogen.assertions.kills import MutantSet
from worker.helpers import problem_for

SUBJECT = """
def band(x: int) -> int:
    if x < 10:
        return 0
    if x < 20:
        return 1
    if x < 30:
        return 2
    if x < 40:
        return 3
    return 4
"""


def mutant_set(write_module, name: str) -> MutantSet:
    path = write_module(name, SUBJECT)
    problem = problem_for(path, "band")
    model = problem.factory.model
    return MutantSet(model.source, str(path), problem.unit, name, timeout=0.5)


def ticking() -> Callable[[], float]:
    """A clock that advances one second each time it is read: every load measures 1 s."""
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    return clock


def test_a_deadline_bounds_the_loading_and_a_later_call_goes_on(write_module):
    mutants = mutant_set(write_module, "bands1")
    chosen = len(mutants.chosen)
    assert chosen >= 12
    clock = ticking()
    # Reads: check (1), start (2), end (3) -> one load measured at 1 s; the next check (4)
    # expects it to end at 5, after the deadline.
    assert mutants.load(deadline=4.5, clock=clock) == 1
    assert not mutants.ready and len(mutants) == chosen  # not all loaded: still the chosen count
    assert mutants.expected_load_seconds() == 1.0
    assert len(mutants.loaded) == 1  # ``load`` was called: no implicit loading of the rest
    assert mutants.load(deadline=clock() + 6.5, clock=clock) == 3  # 2 more (3 reads each)
    assert mutants.load() == chosen and mutants.ready and len(mutants) == chosen
    indices = [loaded.mutant.index for loaded in mutants.loaded]
    assert indices == sorted(indices)  # kept in source order whatever the loading order


def test_a_past_deadline_loads_nothing(write_module):
    mutants = mutant_set(write_module, "bands2")
    assert mutants.load(deadline=0.0, clock=ticking()) == 0
    assert mutants.available == [] and not mutants.ready


def test_a_partial_load_is_spread_over_the_unit(write_module):
    mutants = mutant_set(write_module, "bands3")
    clock = ticking()
    mutants.load(deadline=clock() + 9.5, clock=clock)  # three loads
    lines = sorted(loaded.mutant.line for loaded in mutants.available)
    all_lines = [mutant.line for mutant in mutants.chosen]
    assert len(lines) == 3
    assert lines[0] == min(all_lines) and lines[-1] > (min(all_lines) + max(all_lines)) / 2


def test_without_a_call_to_load_the_first_use_loads_them_all(write_module):
    mutants = mutant_set(write_module, "bands4")
    assert len(mutants.loaded) == len(mutants.chosen) and mutants.ready
