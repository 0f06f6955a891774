"""The generation run for one module, inside a worker process: one named phase per line.

The module is analysed and imported once; then its units take turns. Under a time budget the
units' phases share the one budget the user set, from the end of the import: each unit gets
a slice of what is left (``sharing``): its search first, then its reduction and rendering in
the rest of the slice (``unit_deadlines``; the post-processing's own split: ``phases``). A unit
the budget stopped (it could still gain) keeps its post-processing time aside and may get more search time at the end, from what the others left.
Each unit's result goes out as soon as it is final, so a crash later costs only the units after.
Everything a unit does in its slice is bounded by it, the loading of its mutants included
(``phases``); a unit that overran anyway is charged to the units after it, and none of them
gets less than its floor (``sharing``).
"""

from __future__ import annotations

import dataclasses
import importlib
import time
import types
from dataclasses import dataclass

from miogen.analysis.model import ModuleModel
from miogen.analysis.module import analyze_file
from miogen.common.heartbeat import Heartbeat
from miogen.common.records import JobSpec, Loaded, UnitJob, UnitStarted
from miogen.common.sharing import MIN_EXTRA_SECONDS, POST_SHARE, floors, running_order, slice_of
from miogen.testcase.examples import project_values, read_project_tests
from miogen.worker.objectives import Objectives
from miogen.worker.phases import Emit, Phases, UnitRun, load
from miogen.worker.search import Budget

# Of a unit's search time, at most this part goes to the examples that seed it (its doctests,
# call sites, the project's tests': ``phases.replay_seeds``). Evaluated without a bound, the
# seeds of idna's units took 1.8 s of a 2 s module budget, leaving its searches 0.08 s.
SEED_SHARE = 0.5


def generate(spec: JobSpec, emit: Emit, heartbeat: Heartbeat | None = None) -> None:
    """Analyse and import the module, then generate each unit's tests; ``emit`` every event.

    Under a time budget the units share ``spec.budget_seconds`` from the end of the module's
    import: a large module's analysis on a busy machine (seconds) never leaves its units
    without a search, and the budget means the same as in the benchmarks' comparisons.
    Raises ``miogen.common.errors.MiogenError`` (syntax, import, unknown unit) before any unit runs.
    """
    phases = Phases()
    model = phases.timed("analyse", analyze_file, spec.path, spec.module_name)
    for job in spec.units:
        model.unit(job.name)  # an unknown unit fails the job before the import
    if not spec.units:
        spec = dataclasses.replace(spec, units=tuple(UnitJob(u.name) for u in model.default_units))
    objectives = Objectives.of(spec, model)  # counters and probes for the job's goals
    module = phases.timed("import", load, spec, objectives)
    # The project's test files (call sites that seed every unit) are read once for the module,
    # like its import, rather than in the slice of whichever unit runs first.
    names = [job.name for job in spec.units]
    phases.timed("import", read_project_tests, spec.cwd, names, model.source)
    phases.timed("import", project_values, spec.cwd, tuple(names))
    # The criteria report's counted copy of the units, compiled once like the import, rather
    # than in the post-processing of whichever unit reports first (after its deadline).
    phases.timed("import", objectives.compile_report, model, module, spec)
    end = time.monotonic() + spec.budget_seconds
    emit(Loaded(phases.seconds, {job.name: _weight(job, model) for job in spec.units}))
    context = (model, module, heartbeat, emit, objectives)
    if spec.evaluations is not None:
        _by_evaluations(spec, *context)
    else:
        _by_time(spec, *context, end)


def _by_evaluations(
    spec: JobSpec,
    model: ModuleModel,
    module: types.ModuleType,
    heartbeat: Heartbeat | None,
    emit: Emit,
    objectives: Objectives,
) -> None:
    """Every unit gets ``spec.evaluations`` evaluations and the post-processing allowance."""
    taken: set[str] = set()
    for job in spec.units:
        emit(UnitStarted(job.name))
        run = UnitRun(spec, job, model, module, heartbeat, emit, objectives)
        run.search(Budget(evaluations=spec.evaluations))
        emit(run.finish(time.monotonic() + spec.post_deadline(), taken))


def _by_time(
    spec: JobSpec,
    model: ModuleModel,
    module: types.ModuleType,
    heartbeat: Heartbeat | None,
    emit: Emit,
    objectives: Objectives,
    end: float,
) -> None:
    """The module's units share the seconds until ``end`` (see the module docstring)."""
    if spec.algorithm.genetic:
        # The GA ranks with numpy: imported here, in the module's time, rather than in the
        # middle of the first unit's slice (a few tenths of a second).
        importlib.import_module("miogen.worker.search.ranking")
    taken: set[str] = set()
    jobs = {job.name: job for job in spec.units}
    weights = {name: max(_weight(job, model), 1.0) for name, job in jobs.items()}
    floor = floors(spec.budget_seconds, weights)
    # Units whose worker died before run last: the others' results are out before any new crash.
    order = running_order({n: w for n, w in weights.items() if not jobs[n].careful})
    order += running_order({n: w for n, w in weights.items() if jobs[n].careful})
    runs: dict[str, UnitRun] = {}
    reserved: dict[str, float] = {}  # post-processing time set aside for units that wait
    for position, name in enumerate(order):
        emit(UnitStarted(name))
        started = time.monotonic()  # the unit's preparation (its mutants, seeds) is in its slice
        left = end - started - sum(reserved.values())
        weights_left = [weights[n] for n in order[position:]]
        share = slice_of(left, weights[name], weights_left, floor[name])
        deadlines = unit_deadlines(started, share)
        run = runs[name] = UnitRun(
            spec, jobs[name], model, module, heartbeat, emit, objectives, deadlines.seeding
        )
        run.search(Budget(seconds=max(deadlines.search - time.monotonic(), 0.0)))
        if run.can_continue:
            reserved[name] = max(deadlines.end - time.monotonic(), 0.0)
        else:
            emit(run.finish(max(deadlines.end, time.monotonic()), taken))
    _continue(runs, reserved, end, emit)
    for name in list(reserved):
        seconds = _post_slice(reserved, name, end)
        del reserved[name]
        emit(UnitStarted(name))
        emit(runs[name].finish(time.monotonic() + seconds, taken))


@dataclass(frozen=True)
class UnitDeadlines:
    """When a unit's phases end (``time.monotonic()``), one after the other within its slice."""

    seeding: float  # the examples stop seeding its archive
    search: float  # its search ends (its preparation, mutants and seeds included)
    end: float  # its post-processing (reduce, render, measure) ends: the slice's end


def unit_deadlines(started: float, share: float) -> UnitDeadlines:
    """The deadlines of a unit whose slice of ``share`` seconds starts at ``started``: the
    search in ``1 - POST_SHARE`` of it (the seeds in ``SEED_SHARE`` of that), the rest for its
    post-processing; the phases add nothing to the slice.

    >>> unit_deadlines(10.0, 5.0)
    UnitDeadlines(seeding=12.0, search=14.0, end=15.0)
    """
    search = started + share * (1.0 - POST_SHARE)
    return UnitDeadlines(started + (search - started) * SEED_SHARE, search, started + share)


def _weight(job: UnitJob, model: ModuleModel) -> float:
    """A unit's first share of the module's budget: given (CTG's allocation), or its size."""
    return job.share if job.share is not None else float(len(model.unit(job.name).targets))


def _continue(runs: dict[str, UnitRun], reserved: dict[str, float], end: float, emit: Emit) -> None:
    """The time the others left goes to the units that can still gain, by what they can gain."""
    gains = {name: float(runs[name].remaining_gain()) for name in reserved}
    waiting = [name for name in reserved if gains[name] > 0]
    for position, name in enumerate(waiting):
        left = end - time.monotonic() - sum(reserved.values())
        if left < MIN_EXTRA_SECONDS:
            return
        share = slice_of(left, gains[name], [gains[n] for n in waiting[position:]])
        if share >= MIN_EXTRA_SECONDS / 2:
            emit(UnitStarted(name))
            runs[name].search(Budget(seconds=share))


def _post_slice(reserved: dict[str, float], name: str, end: float) -> float:
    """A waiting unit's part of the time left, by the post-processing time it set aside."""
    left = max(end - time.monotonic(), 0.0)
    total = sum(reserved.values())
    return left * reserved[name] / total if total > 0 else left / len(reserved)
