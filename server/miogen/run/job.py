"""One module's job on the host: run the worker, verify its tests, return the module's result.

    ModuleJob -> spec (JobSpec) -> run (supervised worker; the module analysed meanwhile)
              -> verify_outcomes (run.verify) -> keep what adds to the project's suite
              -> ModuleRun

The data goes one way: ``run_and_verify`` hands the worker's outcome to ``run.verify`` (which
also keeps only what adds to the project's suite). ``miogen generate`` (``run.generate``) and
the language server (one unit per job) call ``run_and_verify``; ``miogen ctg`` builds its jobs
with ``job_spec``, runs them in its pool and verifies each module with
``run.verify.verify_outcomes``. User code runs only in the worker and the verification's pytest
processes (invariant 1).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from miogen.analysis.model import ModuleModel, Unit
from miogen.analysis.module import analyze_file
from miogen.common.project import ModuleLocation, project_folder, pytest_warning_filters
from miogen.common.records import Event, JobOutcome, JobSpec, Progress, UnitJob, UnitOutcome
from miogen.host.config import DEFAULTS, Options
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.measure import Ahead, start_ahead
from miogen.host.spare import SpareSource
from miogen.host.supervisor import OnEvent, ShouldCancel, run_job
from miogen.run.check import VERIFY_RUNS
from miogen.run.gate import Gate
from miogen.run.result import ModuleRun
from miogen.run.shares import COVERED_BY_SUITE
from miogen.run.verify import SuiteSource, verify_outcomes


def job_spec(
    location: ModuleLocation,
    units: Sequence[str | UnitJob],
    options: Options = DEFAULTS,
    budget: float | None = None,
    interpreter: Interpreter = OWN,
) -> JobSpec:
    """The job for ``units`` of the module at ``location`` with the engine's ``options``
    (``budget``: the job's seconds, when not the options'), its worker in ``interpreter``."""
    return JobSpec(
        path=str(location.path),
        module_name=location.module_name,
        import_root=str(location.import_root),
        units=tuple(UnitJob(u) if isinstance(u, str) else u for u in units),
        budget_seconds=options.budget_seconds if budget is None else budget,
        evaluations=options.evaluations,
        seed=options.seed,
        algorithm=options.algorithm,
        criteria=options.criteria,
        performance=options.performance,
        join_tests=options.join_tests,
        test_timeout=options.test_timeout,
        mutation_share=options.mutation_share,
        cwd=str(location.project_root),
        warning_filters=pytest_warning_filters(location.project_root),
        python="" if interpreter.own else interpreter.executable,
        shim="" if interpreter.own else interpreter.shim,
    )


def run(
    spec: JobSpec,
    on_event: OnEvent | None = None,
    should_cancel: ShouldCancel | None = None,
    spares: SpareSource | None = None,
) -> JobOutcome:
    """Run the job in supervised worker processes (user code never runs in this process);
    ``spares``: workers started ahead (the language server's), used when one fits."""
    return run_job(spec, on_event, should_cancel, spares)


class VerificationAhead:
    """The verification's pytest processes, started once the search has reported its first
    progress (so that they slow neither the worker's start nor the first tests it streams):
    they import pytest and coverage.py during the rest of the search.

    Use it as the job's ``on_event`` (it passes events on) and hand ``processes`` to ``verify``.
    """

    def __init__(
        self,
        location: ModuleLocation,
        on_event: OnEvent | None,
        runs: int = VERIFY_RUNS,
        interpreter: Interpreter = OWN,
    ) -> None:
        self.location, self.forward, self.runs = location, on_event, runs
        self.interpreter = interpreter
        # The runs are the project's (``start_ahead``) when the tests are verified in it: set
        # by ``run_and_verify`` before the job starts.
        self.project: Path | None = None
        self.processes: list[Ahead] = []
        self.lock = threading.Lock()
        self.closed = False

    def __call__(self, event: Event) -> None:
        if self.forward is not None:
            self.forward(event)  # first: the first progress is what a save waits to see
        if isinstance(event, Progress):
            with self.lock:
                if not self.processes and not self.closed:
                    self.processes = start_ahead(
                        self.location.import_root, range(self.runs), self.interpreter,
                        self.project,
                    )  # fmt: skip

    def close(self) -> None:
        with self.lock:
            self.closed = True
            for process in self.processes:
                process.close()


# --- one module's run --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModuleJob:
    """One module's generation job, as every front end asks for it."""

    location: ModuleLocation
    options: Options = DEFAULTS
    units: tuple[UnitJob, ...] = ()  # empty: the module's default units (``select``)
    interpreter: Interpreter = OWN  # the project's: the worker and the verification run in it
    model: ModuleModel | None = None  # the module analysed already (the editor's snapshot)
    analysed: tuple[Unit, ...] = ()  # ... and its units, in ``units``' order
    # Units the project's suite covers completely (``run.shares``): not searched, but verified
    # and reported with the others (``analysed`` holds them too, in the module's order).
    covered_by_suite: tuple[str, ...] = ()

    @property
    def searches(self) -> bool:
        """Whether a worker runs: not when every unit asked for is covered by the suite."""
        return bool(self.units) or not self.covered_by_suite

    def spec(self) -> JobSpec:
        return job_spec(self.location, self.units, self.options, interpreter=self.interpreter)


def run_and_verify(
    job: ModuleJob,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    spares: SpareSource | None = None,
    suite: SuiteSource | None = None,
    ahead: VerificationAhead | None = None,
    test_file: Path | None = None,
    gate: Gate | None = None,
) -> ModuleRun:
    """Run ``job`` and verify its tests: the module's result, each unit with its kept tests.

    The worker starts at once; this process analyses the module meanwhile (unless the job
    brings the analysis), to refuse a file that does not parse or a unit that does not exist.
    The verification's pytest processes start while the search runs (``ahead``: the caller's,
    to close them sooner, else made here). A job cancelled (``cancel`` set: by the caller, or
    here on an error or Ctrl-C) is not verified. ``test_file``: where the tests will be
    written (``run.check.Verifier``: in the project, they are verified there). ``gate``: the
    project's checkers on the tests before they are verified (``run.gate``; None: none).
    """
    started = time.monotonic()
    location = job.location
    own_ahead = ahead is None
    ahead = ahead or VerificationAhead(location, on_event, interpreter=job.interpreter)
    # Where the tests are verified, found once for the job: in the project's folder the file
    # will be in, by the project's runs (started ahead, they import its pytest plugins while
    # they wait), else in a folder of their own.
    folder = project_folder(location, test_file)
    if folder is not None:
        ahead.project = location.project_root
    cancel = cancel or threading.Event()
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="miogen-job") as pool:
            running = pool.submit(_run_spec, job, ahead, cancel.is_set, spares)
            try:
                # The module analysed here (or the job's analysis: the editor's snapshot);
                # None public: an error naming the rest
                if job.model is not None:
                    model = job.model
                    units = list(job.analysed) or model.select([u.name for u in job.units])
                else:
                    model = analyze_file(location.path, location.module_name)
                    units = model.select([u.name for u in job.units] or None)
                if suite is not None:
                    suite.start()  # the project's suite runs meanwhile
                analysed = time.monotonic() - started
                spec, outcome = running.result()
            except BaseException:  # also Ctrl-C while the job runs: its supervisor stops
                cancel.set()  # the worker, and the pool's exit need not wait for the budget
                raise
        # A unit the worker never answered for failed with the job; those it was not asked
        # for (covered by the project's suite) have nothing to show.
        covered = job.covered_by_suite
        outcomes = [
            UnitOutcome(u.name) if u.name in covered else outcome.outcome_of(u.name) for u in units
        ]
        cancelled = cancel.is_set() or outcome.status == "cancelled"
        if cancelled:  # nothing to verify
            outcomes = [UnitOutcome(o.unit, "cancelled", crashes=o.crashes) for o in outcomes]
        result = verify_outcomes(
            location, model, units, outcomes, job.options.test_timeout, ahead=ahead.processes,
            interpreter=job.interpreter, suite=None if cancelled else suite, folder=folder,
            warning_filters=spec.warning_filters, gate=gate,
        )  # fmt: skip
    finally:
        if own_ahead:
            ahead.close()
    for unit in result.units:
        if unit.name in job.covered_by_suite:
            unit.skipped = COVERED_BY_SUITE
    result.job = outcome if job.searches else None
    result.seconds = {"analyse": analysed, "job": outcome.wall_seconds, **result.seconds}
    return result


def _run_spec(
    job: ModuleJob, on_event: OnEvent, should_cancel: ShouldCancel, spares: SpareSource | None
) -> tuple[JobSpec, JobOutcome]:
    """The job's spec and ``run``'s outcome of it (none when the job searches nothing), made on
    the job's thread while the caller analyses the module. The spec reads the project's pytest
    configuration for its warning filters, once per job: the verification takes them from it."""
    spec = job.spec()
    return spec, run(spec, on_event, should_cancel, spares) if job.searches else JobOutcome("ok")
