"""Under an evaluation budget the post-processing's phases that judge mutants (the set cover's
kills, the choice of assertions) are bounded by their input: every candidate once, every kept
test against every mutant. The wall clock is only a safety net at the end of the unit's
post-processing allowance, so a machine that stalls for a while (here a clock that jumps past
the post-processing's own deadline) gives the same tests for the same seed and evaluations.
"""

from __future__ import annotations

import sys
import tempfile
import time
import types

from miogen.analysis.module import analyze_file
from miogen.assertions import select
from miogen.minimize import suite
from miogen.worker import phases
from miogen.worker.objectives import Objectives
from miogen.worker.search import Budget
from worker.helpers import spec_for

GRADES = """
def grade(score: int, bonus: int = 0) -> str:
    total = score + bonus
    if total >= 90:
        return "A"
    if total >= 75:
        return "B"
    if total > 50:
        return "C"
    return "F"
"""
EVALUATIONS = 300
JUMP = 45.0  # seconds: past the post-processing's deadline (30 s), short of its allowance


class JumpingClock:
    """The real clock, that jumps ``JUMP`` seconds ahead once the reduction has run a few
    candidates (a machine that stalled there)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.offset


def rendered(write_module, monkeypatch, jump: bool) -> list[str]:
    path = write_module("grades", GRADES)
    spec = spec_for(path, "grade", scratch=tempfile.mkdtemp(), evaluations=EVALUATIONS, seed=4)
    sys.modules.pop("grades", None)
    model = analyze_file(path, "grades")
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    run = phases.UnitRun(spec, spec.units[0], model, module, None, lambda _: None, objectives)
    run.search(Budget(evaluations=EVALUATIONS))
    assert run.mutation_on
    deadline = time.monotonic() + spec.post_deadline()
    if jump:
        clock = JumpingClock()
        fake = types.SimpleNamespace(monotonic=clock.monotonic)
        for module_of_phase in (phases, suite, select):
            monkeypatch.setattr(module_of_phase, "time", fake)
        runs = {"count": 0}
        real_call = phases._SuiteRunner.__call__

        def stalling(self, test):
            runs["count"] += 1
            if runs["count"] == 3:
                clock.offset = JUMP
            return real_call(self, test)

        monkeypatch.setattr(phases._SuiteRunner, "__call__", stalling)
    result = run.finish(deadline, set())
    if jump:
        monkeypatch.undo()
    return [test.source for test in result.tests]


def test_a_stall_past_the_post_deadline_does_not_change_the_tests(write_module, monkeypatch):
    quiet = rendered(write_module, monkeypatch, jump=False)
    stalled = rendered(write_module, monkeypatch, jump=True)
    assert quiet and any("==" in source for source in quiet)
    assert stalled == quiet
