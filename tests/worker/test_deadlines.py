"""The worker honours the one budget the user set: its phases' deadlines are derived from it.

No wall-clock threshold: a fake clock stands for time, and each phase of a fake unit takes all
the time it is given (as a search under its budget does), so the job ends exactly where the
deadlines say.
"""

from __future__ import annotations

import sys
import tempfile
import types

import pytest
from miogen.analysis.module import analyze_file
from miogen.common.records import EVALUATION_SHRINK_SECONDS, StopReason, UnitResult
from miogen.common.sharing import POST_SHARE
from miogen.minimize.suite import Reduction
from miogen.worker import engine, phases
from miogen.worker.engine import SEED_SHARE, unit_deadlines
from miogen.worker.objectives import Objectives
from miogen.worker.search import Budget
from worker.helpers import spec_for

UNITS = """
def small(x: int) -> int:
    if x > 0:
        return 1
    return 0


def large(x: int, y: int) -> int:
    if x > 0:
        return 1
    if y > 0:
        return 2
    if x == y:
        return 3
    return 0
"""


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


def test_a_units_phases_split_its_slice_and_end_with_it():
    deadlines = unit_deadlines(10.0, 4.0)
    assert 10.0 < deadlines.seeding < deadlines.search < deadlines.end == 14.0
    assert deadlines.search - 10.0 == pytest.approx(4.0 * (1.0 - POST_SHARE))
    assert deadlines.seeding - 10.0 == pytest.approx(4.0 * (1.0 - POST_SHARE) * SEED_SHARE)


class _FakeRun:
    """A unit that takes every second it is given: its search to the end of its budget, its
    post-processing to its deadline; it records each phase's end."""

    ends: list[tuple[str, str, float]]
    clock: Clock

    def __init__(self, spec, job, model, module, heartbeat, emit, objectives, seeding_end=None):
        self.name = job.name
        self.can_continue = False

    def search(self, budget: Budget) -> StopReason:
        assert budget.seconds is not None
        self.clock.now += budget.seconds
        self.ends.append((self.name, "search", self.clock.now))
        return StopReason.BUDGET

    def finish(self, deadline: float, taken: set[str]) -> UnitResult:
        self.clock.now = max(self.clock.now, deadline)
        self.ends.append((self.name, "post", self.clock.now))
        return UnitResult(self.name, 1, (), (), (), StopReason.BUDGET)


def _fake_job(monkeypatch, write_module, seconds: dict[str, float]):
    """A fake clock for the engine; ``seconds``: what the module's analysis and import take."""
    clock = Clock()
    ends: list[tuple[str, str, float]] = []
    monkeypatch.setattr(engine, "time", types.SimpleNamespace(monotonic=clock.monotonic))
    monkeypatch.setattr(_FakeRun, "clock", clock, raising=False)
    monkeypatch.setattr(_FakeRun, "ends", ends, raising=False)
    monkeypatch.setattr(engine, "UnitRun", _FakeRun)

    def taking(name: str, function):
        def taken(*args, **kwargs):
            clock.now += seconds.get(name, 0.0)
            return function(*args, **kwargs)

        return taken

    monkeypatch.setattr(engine, "analyze_file", taking("analyse", engine.analyze_file))
    monkeypatch.setattr(engine, "load", taking("import", engine.load))
    path = write_module("shared", UNITS)
    sys.modules.pop("shared", None)
    spec = spec_for(path, ["small", "large"], budget_seconds=5.0, scratch=tempfile.mkdtemp())
    return clock, ends, spec


def test_the_units_phases_end_at_their_deadlines_and_the_job_with_its_budget(
    monkeypatch, write_module
):
    clock, ends, spec = _fake_job(monkeypatch, write_module, {})
    started = clock.now  # the fake analysis and import take no time
    engine.generate(spec, lambda event: None)
    # smallest first; each unit's phases end at its deadlines, one slice after the other
    assert [(name, phase) for name, phase, _ in ends] == [
        ("small", "search"), ("small", "post"), ("large", "search"), ("large", "post"),
    ]  # fmt: skip
    small_end, large_end = ends[1][2], ends[3][2]
    small = unit_deadlines(started, small_end - started)
    assert ends[0][2] == pytest.approx(small.search)
    large = unit_deadlines(small_end, large_end - small_end)
    assert ends[2][2] == pytest.approx(large.search)
    # the slices are the units' parts of the one budget (by size: 1 and 3 targets' weight)
    assert large_end - small_end > small_end - started > 0
    assert large_end == pytest.approx(started + 5.0)


def test_a_slow_analysis_and_import_leave_the_units_the_whole_budget(monkeypatch, write_module):
    """A worker that took 1.5 s to analyse and import the module (a large module on a busy
    machine) still gives its units the 5 s budget: they share it from the import's end, so a
    short budget never leaves them without a search."""
    clock, ends, spec = _fake_job(monkeypatch, write_module, {"analyse": 1.0, "import": 0.5})
    started = clock.now
    engine.generate(spec, lambda event: None)
    assert ends[-1][2] == pytest.approx(started + 1.5 + 5.0)


def _unit_run(write_module, **options) -> phases.UnitRun:
    path = write_module("halves", UNITS)
    spec = spec_for(path, "large", scratch=tempfile.mkdtemp(), **options)
    sys.modules.pop("halves", None)
    model = analyze_file(path, "halves")
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    return phases.UnitRun(spec, spec.units[0], model, module, None, lambda _: None, objectives)


def _post_deadlines(monkeypatch, run: phases.UnitRun, deadline: float) -> dict[str, float]:
    """The deadlines ``finish`` gives the reduction and the rendering; the reduction says that
    its shrinking took 5 s of allowance beyond half its time."""
    seen: dict[str, float] = {}
    reduce, render = run._reduce, run._render

    def reducing(mutants, until: float) -> Reduction:
        seen["reduce"] = until
        seen["allowance"] = run._shrink_allowance(until)
        done = reduce(mutants, until)
        return Reduction(done.tests, done.cache_hits, done.executions, {}, {}, 5.0)

    def rendering(suite, until: float, *args):
        seen["render"] = until
        return render(suite, until, *args)

    monkeypatch.setattr(run, "_reduce", reducing)
    monkeypatch.setattr(run, "_render", rendering)
    run.finish(deadline, set())
    return seen


def test_under_a_time_budget_the_reduction_ends_before_the_units_deadline(
    monkeypatch, write_module
):
    """The reduction gets ``REDUCE_SHARE`` of the post-processing, the rendering the rest up
    to the unit's deadline; when the reduction ends in its time (a quiet machine: shrinking
    is measured in runs), the rendering's deadline is the unit's."""
    run = _unit_run(write_module, budget_seconds=5.0)
    run.search(Budget(evaluations=50))
    deadline = phases.time.monotonic() + 30.0
    seen = _post_deadlines(monkeypatch, run, deadline)
    assert seen["reduce"] < deadline
    assert seen["reduce"] == pytest.approx(deadline - 30.0 * (1 - phases.REDUCE_SHARE), abs=5.0)
    assert seen["allowance"] == run.spec.shrink_allowance()
    assert seen["render"] == deadline  # not moved by the 5 s shrinking said it took


def test_shrinking_past_its_time_moves_the_rendering_by_its_overrun_at_most_its_allowance(
    monkeypatch, write_module
):
    """On a machine too slow for shrinking's runs the reduction ends late: the rendering keeps
    its share, moved by the overrun, never by more than shrinking's allowance."""
    clock = Clock()
    monkeypatch.setattr(phases.time, "monotonic", clock.monotonic)
    run = _unit_run(write_module, budget_seconds=5.0)
    seen: dict[str, float] = {}
    overrun = {"seconds": 0.0}

    def reducing(mutants, until: float) -> Reduction:
        seen["reduce"] = until
        clock.now = until + overrun["seconds"]
        return Reduction([], 0, 0, {}, {}, 0.0)

    render = run._render

    def rendering(suite, until: float, *args):
        seen["render"] = until
        return render(suite, until, *args)

    monkeypatch.setattr(run, "_reduce", reducing)
    monkeypatch.setattr(run, "_render", rendering)
    allowance = run.spec.shrink_allowance()
    for late, moved in ((1.0, 1.0), (allowance + 10.0, allowance)):
        overrun["seconds"] = late
        deadline = clock.now + 10.0
        run.finish(deadline, set())
        assert seen["render"] == pytest.approx(deadline + moved)


def test_under_an_evaluation_budget_the_reduction_has_the_whole_post_processing(
    monkeypatch, write_module
):
    run = _unit_run(write_module, evaluations=50)
    run.search(Budget(evaluations=50))
    deadline = phases.time.monotonic() + 30.0
    seen = _post_deadlines(monkeypatch, run, deadline)
    assert seen["reduce"] == deadline
    # Shrinking has seconds of its own beyond the deadline (fuzz24f: the set cover could use
    # the whole post-processing at load 14-18, and no test was shrunk at all).
    assert seen["allowance"] == run.spec.shrink_allowance() == EVALUATION_SHRINK_SECONDS > 0


def test_the_criteria_reports_copy_is_compiled_before_the_units_share_the_budget(
    monkeypatch, write_module
):
    """Compiling the report's counted copy took 0.1 s (0.4 s on a busy machine) of argparse's
    unit's post-processing, past its deadline; it is the module's cost, like its import."""
    from miogen.worker import objectives

    order: list[str] = []
    compile_code = objectives.counted_code

    def compiling(*args, **kwargs):
        order.append("compiled")
        return compile_code(*args, **kwargs)

    monkeypatch.setattr(objectives, "counted_code", compiling)
    path = write_module("reported", UNITS)
    spec = spec_for(path, ["small", "large"], evaluations=20, scratch=tempfile.mkdtemp())
    sys.modules.pop("reported", None)
    engine.generate(spec, lambda event: order.append(type(event).__name__))
    assert order.index("compiled") < order.index("UnitStarted")
    assert order.count("compiled") == 1
    results = [name for name in order if name == "UnitResult"]
    assert len(results) == 2
