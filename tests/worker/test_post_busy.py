"""Under an evaluation budget the post-processing loads every mutant to choose the assertions
by, as the search does (``phases.UnitRun._mutants_by``): a busy machine loads the same ones.

Loading a mutant of a module with module-level state runs the whole module: here 0.02 s of
running each. Beside three processes spinning on its core the worker gets a quarter of it or
less, and each load takes 0.08 s or more by the wall clock: with the loading share of a 1 s
deadline (0.5 s) on the wall clock it stopped after a few of them (1 of 12 at load 15).
"""

from __future__ import annotations

import sys
import tempfile
import time

import busy
from miogen.analysis.module import analyze_file
from miogen.assertions.kills import MutantSet
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
    assert 4 <= chosen <= 16  # 14 since + and - with an int literal have a parity mutant
    judges: list[MutantSet] = []
    render = run._render

    def rendering(suite, until, taken, mutants, kills):
        judges.append(mutants)
        return render(suite, until, taken, mutants, kills)

    monkeypatch.setattr(run, "_reduce", lambda mutants, until: Reduction([], 0, 0, {}, {}, 0.0))
    monkeypatch.setattr(run, "_render", rendering)
    with busy.busy_core(HOGS):
        run.finish(time.monotonic() + 1.0, set())
    (loaded,) = judges
    assert len(loaded.available) == chosen and loaded.ready
