"""Targets the project's suite covers are covered for the search from the start (issue 23)."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from miogen.analysis.module import analyze_file
from miogen.assertions.mutants import list_mutants
from miogen.common.records import Algorithm, JobSpec, StopReason, UnitJob
from miogen.worker import phases
from miogen.worker.objectives import Objectives
from miogen.worker.search import Budget

# Each branch asks for one value out of many: the search needs hundreds of evaluations for each.
# The project's suite covers the first two (route(77, 0, 0), route(0, 123, 0)); c = 191 is left.
ROUTE = """
def route(a: int, b: int, c: int) -> str:
    if a * 7 == 539:
        return "a"
    if b * 11 == 1353:
        return "b"
    if c * 13 == 2483:
        return "c"
    return "none"
"""
SUITE_ARCS = {(2, 3), (2, 4), (4, 5)}  # what route(77, 0, 0) and route(0, 123, 0) cover
HARD = (6, 7)  # c * 13 == 2483


def unit_run(
    path: Path, settle: bool, seed: int = 1, **options: Any
) -> tuple[phases.UnitRun, dict[tuple[int, int], int]]:
    """The unit's run in this process, the suite's targets settled or not; the ids by arc."""
    sys.modules.pop(path.stem, None)
    model = analyze_file(path, path.stem)
    ids = {t.arc: t.id for t in model.unit("route").targets if t.arc is not None}
    suite = tuple(ids[arc] for arc in sorted(SUITE_ARCS)) if settle else ()
    job = UnitJob("route", suite_covered=suite)
    options = {"criteria": "branch", "mutation_share": 0.0, **options}
    spec = JobSpec(
        path=str(path), module_name=path.stem, import_root=str(path.parent), units=(job,),
        scratch=tempfile.mkdtemp(), seed=seed, **options,
    )  # fmt: skip
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    run = phases.UnitRun(spec, job, model, module, None, lambda _: None, objectives)
    return run, ids


class FirstCover:
    """Stands in for the run's progress: the evaluation at which ``target`` was first covered."""

    def __init__(self, run: phases.UnitRun, target: Hashable) -> None:
        self.inner, self.run, self.target = run.progress, run, target
        self.at: int | None = None
        self.budget = Budget()
        self.archive = run.archive

    def __call__(self, evaluated: Any, improved: bool) -> None:
        if self.at is None and self.run.archive.is_covered(self.target):
            self.at = self.budget.evaluations_used
        self.inner(evaluated, improved)

    def flush(self, budget: Budget) -> None:
        self.inner.flush(budget)


def test_the_suites_targets_draw_no_population_and_keep_no_test(write_module):
    path = write_module("routes", ROUTE)
    results = {}
    for settle in (False, True):
        run, ids = unit_run(path, settle)
        assert run.search(Budget(evaluations=5000)) == StopReason.ALL_COVERED
        result = run.finish(time.monotonic() + 30, set())
        results[settle] = (run, ids, result)
    run, ids, result = results[True]
    settled = {ids[arc] for arc in SUITE_ARCS}
    populations = run.archive.populations()
    assert not settled & set(populations)  # never sampled, never evolved
    assert all(run.archive.counter(target) == 0 for target in settled)
    assert run.archive.is_covered(ids[HARD])
    kept = [set(test.targets) for test in result.tests]
    assert kept and all(targets and not targets & settled for targets in kept)
    assert not settled & set(result.covered)  # the search claims only what it covered
    # Without the suite's ids the search covers them itself and keeps tests for them.
    run, ids, result = results[False]
    assert settled <= set(run.archive.populations())
    assert len(result.tests) > len(results[True][2].tests)
    assert settled <= {t for test in result.tests for t in test.targets}


def test_the_open_target_is_covered_in_fewer_evaluations(write_module):
    """MIO's effort goes to what the suite misses: over a few fixed seeds, the hard target is
    covered after fewer evaluations in all (on 30 seeds: 519 against 862 on average)."""
    path = write_module("routes_effort", ROUTE)
    spent = {False: 0, True: 0}
    for seed in range(4):
        for settle in (False, True):
            run, ids = unit_run(path, settle, seed)
            first = run.progress = FirstCover(run, ids[HARD])  # type: ignore[assignment]
            run.search(Budget(evaluations=5000))
            assert first.at is not None
            spent[settle] += first.at
    assert spent[True] < spent[False]


def test_dynamosa_counts_the_suites_targets_as_covered(write_module):
    path = write_module("routes_dynamosa", ROUTE)
    run, ids = unit_run(path, True, algorithm=Algorithm.DYNAMOSA)
    settled = {ids[arc] for arc in SUITE_ARCS}
    graph = run.problem.control_dependencies()
    assert not settled & set(graph)
    assert graph[ids[(4, 6)]] == ()  # under a settled branch: reachable from the start
    assert graph[ids[HARD]] == (ids[(4, 6)],)
    assert run.search(Budget(evaluations=5000)) == StopReason.ALL_COVERED
    assert not settled & set(run.archive.populations())
    assert run.archive.is_covered(ids[HARD])
    unsettled, _ = unit_run(path, False, algorithm=Algorithm.DYNAMOSA)
    assert unsettled.problem.control_dependencies()[ids[(4, 6)]] == (ids[(2, 4)],)


def test_a_unit_the_suite_covers_completely_searches_only_for_mutants(write_module):
    path = write_module("routes_complete", ROUTE)
    sys.modules.pop(path.stem, None)
    model = analyze_file(path, path.stem)
    every = tuple(t.id for t in model.unit("route").targets)

    def run_with(**options: Any) -> phases.UnitRun:
        job = UnitJob("route", suite_covered=every)
        spec = JobSpec(
            path=str(path), module_name=path.stem, import_root=str(path.parent), units=(job,),
            scratch=tempfile.mkdtemp(), seed=1, criteria="branch", **options,
        )  # fmt: skip
        objectives = Objectives.of(spec, model)
        module = phases.load(spec, objectives)
        return phases.UnitRun(spec, job, model, module, None, lambda _: None, objectives)

    branches = run_with(mutation_share=0.0)
    assert branches.search(Budget(evaluations=2000)) == StopReason.ALL_COVERED
    assert branches.record.evaluations == 0
    result = branches.finish(time.monotonic() + 30, set())
    assert result.tests == () and result.uncovered == ()  # nothing the suite leaves
    mutants = run_with(mutation_share=0.5)
    mutants.search(Budget(evaluations=300))
    assert mutants.record.mutation_started and mutants.record.evaluations > 0


def test_with_the_suites_branches_settled_the_other_goals_may_stall(write_module):
    """The other criteria's goals stop the search once they stop coming and every branch the
    suite leaves is covered: the suite's branches, never covered by the search, do not wait."""
    path = write_module("routes_goals", ROUTE)
    run, ids = unit_run(path, True, criteria="smart")
    reason = run.search(Budget(evaluations=20000))
    assert reason in (StopReason.STAGNATION, StopReason.ALL_COVERED)
    assert run.record.evaluations < 20000


# Kills of ``y // 101`` for ``y // 100`` need a year just past a multiple of 100 (2200, not
# 2250): no other mutant of the unit dies with them, so a test for it kills it alone.
CENTURY = """
def century(year):
    y = year
    if y < 1583 or y > 4099:
        raise ValueError("outside the Gregorian range")
    return y // 100
"""


def test_beside_the_suite_a_test_that_kills_one_mutant_alone_is_kept(write_module):
    path = write_module("century", CENTURY)
    model = analyze_file(path, path.stem)
    [divisor] = [
        m.index
        for m in list_mutants(model.source, model.unit("century"))
        if m.description == "100 -> 101"
    ]
    kept: dict[bool, set[int]] = {}
    for suite in (False, True):
        sys.modules.pop(path.stem, None)
        model = analyze_file(path, path.stem)
        first = tuple(t.id for t in model.unit("century").targets)[:1]
        job = UnitJob("century", suite_covered=first if suite else ())
        spec = JobSpec(
            path=str(path), module_name=path.stem, import_root=str(path.parent), units=(job,),
            scratch=tempfile.mkdtemp(), seed=1, evaluations=1500,
        )  # fmt: skip
        objectives = Objectives.of(spec, model)
        module = phases.load(spec, objectives)
        run = phases.UnitRun(spec, job, model, module, None, lambda _: None, objectives)
        run.search(Budget(evaluations=1500))
        result = run.finish(time.monotonic() + 60, set())
        kept[suite] = {index for test in result.tests for index in test.killed}
    # The search kills it either way; alone, a test for one kill is not kept (MIN_MUTANT_GAIN).
    assert divisor not in kept[False]
    assert divisor in kept[True]
