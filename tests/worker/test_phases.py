"""A unit's phases in the worker: its post-processing spends no time it does not have."""

from __future__ import annotations

import sys
import tempfile
import time

from miogen.analysis.module import analyze_file
from miogen.common.records import JobSpec, UnitJob
from miogen.minimize.reduce import ReducedTest
from miogen.minimize.suite import concatenate
from miogen.testcase.model import Statement
from miogen.worker import phases
from miogen.worker.objectives import Objectives
from miogen.worker.search import Budget

STATEFUL = """
SEEN = []


def clamp(x: int, low: int, high: int) -> int:
    SEEN.append(x)
    if x < low:
        return low
    if x > high:
        return high
    return x
"""


def unit_run(path, unit: str = "clamp", **options) -> phases.UnitRun:
    spec = JobSpec(
        path=str(path), module_name=path.stem, import_root=str(path.parent),
        units=(UnitJob(unit),), scratch=tempfile.mkdtemp(), **options,
    )  # fmt: skip
    sys.modules.pop(path.stem, None)
    model = analyze_file(path, path.stem)
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    return phases.UnitRun(spec, spec.units[0], model, module, None, lambda _: None, objectives)


def test_a_unit_without_tests_loads_no_mutants(write_module):
    run = unit_run(write_module("clamps", STATEFUL))
    assert len(run.mutants) > 0 and not run.mutants.ready
    result = run.finish(time.monotonic() + 30, set())
    assert result.tests == () and not run.mutants.ready


def test_past_its_deadline_a_unit_renders_its_tests_without_loading_mutants(write_module):
    """Loading compiles the module once per mutant (the whole module where it keeps state):
    past the deadline the assertions are chosen without the mutants anyway."""
    run = unit_run(write_module("clamps2", STATEFUL), mutation_share=0.0)
    run.search(Budget(evaluations=100))
    assert not run.mutants.ready  # the search has no mutation phase
    result = run.finish(time.monotonic() - 1, set())
    assert result.tests and not run.mutants.ready


def test_in_time_a_unit_judges_its_assertions_by_its_mutants(write_module):
    run = unit_run(write_module("clamps3", STATEFUL), mutation_share=0.0)
    run.search(Budget(evaluations=100))
    result = run.finish(time.monotonic() + 30, set())
    assert result.tests and run.mutants.ready and result.mutation.mutants > 0


GAUGE = """
class Gauge:
    def __init__(self, level: int = 0) -> None:
        self.level = level

    def lift(self, step: int) -> int:
        self.level += step
        return self.level

    def check(self) -> None:
        if self.level < 0:
            raise ValueError("below zero")
"""


def test_a_joined_test_is_rendered_under_a_name_for_all_its_parts(write_module):
    """The reduction joins kept tests (minimize.suite.join_tests); the name says what each does."""
    run = unit_run(write_module("gauges", GAUGE), "Gauge")
    lifting = (
        Statement("construct", "Gauge"),
        Statement("value", value=2),
        Statement("method", "lift", (("step", 1),), receiver=0),
    )
    checking = (
        Statement("value", value=-1),
        Statement("construct", "Gauge", (("level", 0),)),
        Statement("method", "check", receiver=1),
    )
    joined = ReducedTest(concatenate(lifting, checking), frozenset(), (len(lifting),))
    for reduced, name in (
        (joined, "test_lift_check_raises_value_error"),
        (ReducedTest(joined.test, frozenset()), "test_check_raises_value_error"),  # one part
    ):
        deadline = time.monotonic() + 30
        rendering = phases.render(run.problem, [reduced], "gauges", deadline, run.mutants, set())
        assert [test.name for test in rendering.tests] == [name]


def test_tests_follow_the_source_order_of_what_they_call(write_module):
    run = unit_run(write_module("gauges", GAUGE), "Gauge")
    build = (Statement("value", value=-1), Statement("construct", "Gauge", (("level", 0),)))
    checking = ReducedTest((*build, Statement("method", "check", receiver=1)), frozenset())
    lifting = ReducedTest(
        (
            *build,
            Statement("value", value=2),
            Statement("method", "lift", (("step", 2),), receiver=1),
        ),
        frozenset(),
    )
    building = ReducedTest(build, frozenset())
    deadline = time.monotonic() + 30
    suite = [checking, lifting, building]
    rendering = phases.render(run.problem, suite, "gauges", deadline, run.mutants, set())
    assert [t.name for t in rendering.tests] == [
        "test_gauge_init_with_negative_level", "test_lift_returns_1", "test_check_raises_value_error",
    ]  # fmt: skip


HANGS = """
def spin(n: int) -> int:
    if n > 3:
        while True:
            pass
    return n
"""


def test_no_test_of_a_timed_search_runs_longer_than_the_search(write_module):
    """A test that hangs is stopped at the search's budget, not the (longer) test timeout: it
    would overrun the unit's slice by that much and take it from the units after."""
    path = write_module("spins", HANGS)
    spec = JobSpec(
        path=str(path), module_name="spins", import_root=str(path.parent),
        units=(UnitJob("spin"),), scratch=tempfile.mkdtemp(), test_timeout=30.0,
    )  # fmt: skip
    sys.modules.pop("spins", None)
    model = analyze_file(path, "spins")
    module = phases.load(spec, Objectives.of(spec, model))
    run = phases.UnitRun(spec, spec.units[0], model, module, None, lambda _: None)
    budget = Budget(seconds=0.3)
    run.search(budget)
    assert any("run longer than" in reason for reason in run.problem.refusals), run.problem.refusals
    # One hang to the test timeout alone would take 30 s; the budget is 0.3 s (a deadline
    # checked with a wide margin: the machine may be busy).
    assert budget.elapsed < 10.0
    assert run.problem.executor.timeout == 30.0  # post-processing re-runs get the whole timeout


def test_a_careful_unit_shrinks_unless_raw(write_module):
    """After a crash (careful) the kept tests are shrunk as any unit's, also when it only
    replays (its share spent); not under ``raw`` (``--raw``; the supervisor's last attempt)."""
    run = unit_run(write_module("gauges4", GAUGE), "Gauge")
    shrinking = {}
    for name, job in {
        "plain": UnitJob("Gauge"),
        "careful": UnitJob("Gauge", careful=True),
        "replaying": UnitJob("Gauge", careful=True, replay_only=True),
        "raw": UnitJob("Gauge", careful=True, replay_only=True, raw=True),
    }.items():
        run.job = job
        shrinking[name] = run._shrinking()
    assert shrinking == {"plain": True, "careful": True, "replaying": True, "raw": False}


SEEDED = """
import random


class Dist:
    def __init__(self, mu: float = 0.0) -> None:
        self.mu = mu

    def shift(self, step: float) -> float:
        if step < 0:
            self.mu -= 1.0
        else:
            self.mu += 1.0
        return self.mu

    def pick(self, seed=None):
        return random.Random(seed).random() + self.mu
"""


def test_a_raise_of_the_interpreter_on_a_value_of_an_unmeant_type_is_no_raises_test(
    write_module,
):
    """``random.Random(<a Dist>)`` raises from 3.11 on, 3.10 hashed it: the raising call goes,
    and what the calls before it show stays a test while it covers what the test was kept for."""
    run = unit_run(write_module("seeded", SEEDED), "Dist")
    picking = (
        Statement("construct", "Dist"),
        Statement("method", "pick", (("seed", 0),), receiver=0),
    )
    shifting = (
        Statement("construct", "Dist"),
        Statement("value", value=2.0),
        Statement("method", "shift", (("step", 1),), receiver=0),
    )
    covered = {t for t, h in run.problem.evaluate(shifting).h.items() if h >= 1.0}
    suite = [
        ReducedTest(picking, frozenset(covered)),  # its construction is the other test's too
        ReducedTest(
            (*shifting, Statement("method", "pick", (("seed", 0),), receiver=0)), frozenset(covered)
        ),
    ]
    rendering = phases.render(
        run.problem, suite, "seeded", time.monotonic() + 30, run.mutants, set()
    )
    [test] = rendering.tests
    assert "raises" not in test.source and "pick" not in test.source
    assert "dist.shift(2.0)" in test.source and test.targets == phases.branch_ids(covered)
