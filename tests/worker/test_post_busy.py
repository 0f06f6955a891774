"""Under an evaluation budget the post-processing's deadlines are on the test clock: a busy
machine loads the same mutants to choose the assertions by as a quiet one (``phases.finish``).

Loading a mutant of a module with module-level state runs the whole module: here 0.02 s of
running each. Beside three processes spinning on its core the worker gets about a quarter of
it, and each load takes about 0.08 s by the wall clock: on the wall clock the loading share of
the deadline (0.5 s of 1 s) ends after a few of them, on the test clock after all of them.
"""

from __future__ import annotations

import functools
import sys
import tempfile
import time

import busy
from miogen.analysis.module import analyze_file
from miogen.assertions.kills import MutantSet
from miogen.common import waits
from miogen.minimize.suite import Reduction
from miogen.worker import phases
from miogen.worker.objectives import Objectives
from miogen.worker.search import Budget
from worker.helpers import spec_for

SLOW_LOADING = """
import time

_LOADED = time.thread_time() + 0.02
while time.thread_time() < _LOADED:  # loading takes 0.02 s of running
    pass

CALLS = 0


def step(x: int) -> int:
    global CALLS
    CALLS += 1
    if x > 3:
        return x - 1
    return x + 1
"""
HOGS = 3


def unit_run(write_module) -> phases.UnitRun:
    path = write_module("slow_loading", SLOW_LOADING)
    spec = spec_for(path, "step", scratch=tempfile.mkdtemp(), evaluations=20, mutation_share=0.0)
    sys.modules.pop("slow_loading", None)
    model = analyze_file(path, "slow_loading")
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    return phases.UnitRun(spec, spec.units[0], model, module, None, lambda _: None, objectives)


def test_a_busy_machine_loads_every_mutant_a_quiet_one_loads(write_module, monkeypatch):
    run = unit_run(write_module)
    run.search(Budget(evaluations=20))
    assert run.archive.solution() and not run.mutants.available  # none loaded by the search
    chosen = len(run.mutants.chosen)
    assert 4 <= chosen <= 12  # 0.02 s each: 0.24 s at most, within 0.5 s of running
    judges: list[MutantSet] = []
    render = run._render

    def rendering(suite, until, taken, mutants, kills):
        judges.append(mutants)
        return render(suite, until, taken, mutants, kills)

    monkeypatch.setattr(run, "_reduce", lambda mutants, until: Reduction([], 0, 0, {}, {}, 0.0))
    monkeypatch.setattr(run, "_render", rendering)
    # The cap (ten times the time by the wall clock, tested in tests/common/test_waits.py)
    # raised: a machine busy already leaves the test less than its quarter of a core.
    monkeypatch.setattr(phases, "TestClock", functools.partial(waits.TestClock, cap_factor=100.0))
    with busy.busy_core(HOGS):
        run.finish(time.monotonic() + 1.0, set())
    (loaded,) = judges
    assert len(loaded.available) == chosen and loaded.ready


def test_the_reduction_is_given_the_post_processing_clock(write_module, monkeypatch):
    run = unit_run(write_module)
    run.search(Budget(evaluations=20))
    clocks = []

    def reducing(*args, **kwargs):
        clocks.append(args[-1])
        return Reduction([], 0, 0, {}, {}, 0.0)

    monkeypatch.setattr(phases, "reduce_suite", reducing)
    run.finish(time.monotonic() + 30.0, set())
    assert clocks == [run.clock] and isinstance(run.clock, waits.TestClock)
