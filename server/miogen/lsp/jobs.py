"""Generation jobs: a queue with a parallel limit, a worker process per job, throttled progress.

Each job runs in a worker process started ahead of it when one fits (``host.spare``: a
spare for the job's settings, past Python's start and miogen's imports, that may have analysed
the saved text already); the next spare starts once the job has streamed its first progress.

The event loop never waits on user code: ``run_job`` (which runs the unit's code only in a worker
process, invariant 1) and the coverage.py verification run in threads, and their events are
handed back to the loop. Cancelling sets a flag that ``run_job`` polls every 50 ms and then kills
the worker; a job cancelled while its tests are being verified gives up its slot at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from miogen.common.project import ModuleLocation
from miogen.common.records import (
    Crash,
    Event,
    JobOutcome,
    Progress,
    TestData,
    TestRecord,
    UnitJob,
    UnitOutcome,
)
from miogen.host.adds import Gain
from miogen.host.baseline import Baseline
from miogen.host.measure import Measurement
from miogen.host.spare import Spares, SpareSource
from miogen.lsp.insert import test_path
from miogen.lsp.protocol import JobState
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.run.gate import project_gate
from miogen.run.job import ModuleJob, VerificationAhead, run_and_verify
from miogen.run.result import Dropped, ModuleRun
from miogen.run.shares import suite_shares
from miogen.run.verify import CachedSuite

logger = logging.getLogger(__name__)

THROTTLE_SECONDS = 0.25  # at most about four progress updates a second reach the client
# (the first covered branches of a job go out at once: they are what a save waits to see)


@dataclass(eq=False)
class Job:
    """One unit's generation, from the version of the file that was saved."""

    uri: str
    shape: UnitShape
    snapshot: Snapshot  # the source the worker reads (the saved file)
    location: ModuleLocation
    settings: Settings
    seeds: list[TestData] = field(default_factory=list)  # earlier tests, replayed first
    state: JobState = "queued"
    cancel_reason: str = ""  # user | superseded | closed | broken | shutdown
    progress: Progress | None = None  # the latest progress event of the search
    streamed: list[TestData] = field(default_factory=list)  # tests the search streamed
    crashes: list[str] = field(default_factory=list)
    outcome: JobOutcome | None = None
    result: ModuleRun | None = None  # the verified run (state done)
    message: str = ""  # why it failed, for diagnostics and logs
    token: str | None = None  # work-done progress token, when the client shows progress
    # The unit's targets the project's suite covers (its cached measurement, when current):
    # the search aims at the rest; shown covered from the start (set on the job's thread).
    suite_covered: tuple[int, ...] = ()
    _stop: threading.Event = field(default_factory=threading.Event)
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _finished: asyncio.Future[Job] | None = None
    _flush: asyncio.TimerHandle | None = None
    _last_flush: float = float("-inf")

    @property
    def unit(self) -> str:
        return self.shape.name

    @property
    def key(self) -> tuple[str, str]:
        return self.uri, self.unit

    @property
    def active(self) -> bool:
        return self.state in ("queued", "running") and not self._stop.is_set()

    @property
    def fraction(self) -> float:
        return self.progress.fraction if self.progress else 0.0

    @property
    def covered_ids(self) -> list[int]:
        """What the search covered so far, with what the project's suite covers."""
        found = self.progress.covered if self.progress else ()
        return sorted(set(found) | set(self.suite_covered)) if self.suite_covered else list(found)

    @property
    def tests(self) -> list[TestRecord]:
        """The verified tests (state done)."""
        return self.result.unit(self.unit).tests if self.result is not None else []

    @property
    def measurement(self) -> Measurement | None:
        return self.result.measurement if self.result is not None else None

    @property
    def dropped(self) -> Dropped | None:
        """What the verification dropped, by cause."""
        return self.result.dropped if self.result is not None else None

    @property
    def gain(self) -> Gain | None:
        """What the kept tests add to the project's own suite."""
        return self.result.unit(self.unit).gain if self.result is not None else None

    @property
    def verify_seconds(self) -> float:
        """coverage.py's run of the emitted tests."""
        return self.result.seconds.get("verify", 0.0) if self.result is not None else 0.0

    @property
    def unit_outcome(self) -> UnitOutcome | None:
        """What became of the job's unit (once the worker is done)."""
        if self.outcome is None:
            return None
        found = [u for u in self.outcome.units if u.unit == self.unit]
        return found[0] if found else None

    def finished(self) -> Awaitable[Job]:
        """Resolves with the job once it is done, failed or cancelled."""
        if self._finished is None:
            self._finished = asyncio.get_running_loop().create_future()
            if self.state in ("done", "failed", "cancelled"):
                self._finished.set_result(self)
        return asyncio.shield(self._finished)

    def _resolve(self) -> None:
        if self._finished is not None and not self._finished.done():
            self._finished.set_result(self)

    def stop(self, reason: str) -> bool:
        """Ask the running job to stop (its thread polls the flag); False when it had ended.

        A queued job is cancelled through ``Scheduler.cancel``, which also takes it off the queue.
        """
        if not self.active:
            return False
        self.cancel_reason = reason
        self._stop.set()
        self._stopped.set()
        return True


# What the scheduler tells, on the event loop, as a job changes: ``Scheduler(emit)`` hands each
# to the one path that updates the documents and the editor (``reporting.Reporter``).


@dataclass(frozen=True)
class JobQueued:
    job: Job


@dataclass(frozen=True)
class JobStarted:
    job: Job


@dataclass(frozen=True)
class JobProgress:
    """The search found more (throttled: at most one per ``throttle`` seconds and job)."""

    job: Job


@dataclass(frozen=True)
class JobFinished:
    """Done, failed or cancelled."""

    job: Job


JobEvent = JobQueued | JobStarted | JobProgress | JobFinished


class Scheduler:
    """Queued and running jobs, at most one per (document, unit)."""

    def __init__(
        self, emit: Callable[[JobEvent], None], throttle: float = THROTTLE_SECONDS
    ) -> None:
        self.emit = emit
        self.throttle = throttle
        self.queue: list[Job] = []
        self.running: set[Job] = set()
        self.latest: dict[tuple[str, str], Job] = {}
        self.threads = ThreadPoolExecutor(max_workers=32, thread_name_prefix="miogen-job")
        self.spares = Spares()
        self._tasks: set[asyncio.Task[None]] = set()
        # The job's unit with its targets, when its snapshot (a long text's) has only its outline.
        self.details: Callable[[Snapshot, str], Awaitable[UnitShape]] | None = None

    def submit(self, job: Job) -> Job:
        """Queue ``job``; an older job for the same unit is cancelled (the newer one wins)."""
        old = self.latest.get(job.key)
        if old is not None:
            self.cancel(old, "superseded")
        self.latest[job.key] = job
        self.queue.append(job)
        self.emit(JobQueued(job))
        self.pump()
        return job

    def renew(self, jobs: list[Job], stale: Callable[[Job], bool], reason: str) -> None:
        """A save's jobs: those ``stale`` stop (for ``reason``), then ``jobs`` are queued (each
        cancels the older job of its unit)."""
        self.cancel_where(stale, reason)
        for job in jobs:
            self.submit(job)

    def job(self, uri: str, unit: str) -> Job | None:
        job = self.latest.get((uri, unit))
        return job if job is not None and job.active else None

    def cancel(self, job: Job, reason: str) -> bool:
        """Stop ``job``; False when it had already ended."""
        if not job.stop(reason):
            return False
        if job.state == "queued":
            self.queue.remove(job)
            job.state = "cancelled"
            self._end(job)
        return True

    def cancel_where(self, predicate: Callable[[Job], bool], reason: str) -> int:
        jobs = [job for job in self.latest.values() if job.active and predicate(job)]
        return sum(self.cancel(job, reason) for job in jobs)

    def warm_up(self, settings: Settings) -> None:
        """Have a worker for a job with ``settings`` waiting (one for other settings is replaced)."""
        self.spares.refill(settings)

    def prepare(self, location: ModuleLocation, source: str) -> None:
        """Have the waiting worker analyse ``source``, the module's text a save may run next."""
        self.spares.prepare(str(location.path), location.module_name, source)

    def close(self, wait_seconds: float = 3.0) -> bool:
        """Cancel everything; True when every job thread ended within ``wait_seconds``."""
        self.spares.close()
        for job in list(self.latest.values()):
            job.cancel_reason = job.cancel_reason or "shutdown"
            job._stop.set()
        self.threads.shutdown(wait=False, cancel_futures=True)
        done = threading.Event()

        def wait_for_threads() -> None:
            self.threads.shutdown(wait=True)
            done.set()

        threading.Thread(target=wait_for_threads, daemon=True).start()
        return done.wait(wait_seconds)

    # --- running ---------------------------------------------------------------------------

    def pump(self) -> None:
        """Start queued jobs while the parallel limit (of the job next in line) allows."""
        while self.queue and len(self.running) < self.queue[0].settings.max_parallel_jobs:
            job = self.queue.pop(0)
            job.state = "running"
            self.running.add(job)
            task = asyncio.get_running_loop().create_task(self._run(job))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, job: Job) -> None:
        try:
            if not job.shape.detailed and self.details is not None:
                job.shape = await self.details(job.snapshot, job.unit)
                if job._stop.is_set():
                    job.state = "cancelled"
                    return
            self.emit(JobStarted(job))
            await self._execute(job)
        except asyncio.CancelledError:  # the event loop is going away: start nothing more
            job._stop.set()
            job.state = "cancelled"
            self.queue.clear()
            raise
        except Exception:  # noqa: BLE001 - a bug here must not end the session
            logger.exception("job %s failed", job.key)
            job.state, job.message = "failed", "internal error: " + traceback.format_exc(limit=3)
        finally:
            self.running.discard(job)
            if job._flush is not None:
                job._flush.cancel()
            self._end(job)
            self.pump()

    async def _execute(self, job: Job) -> None:
        """The run of one unit, verified (``run.job.run_and_verify``); a cancelled job gives
        up its slot at once, and its verification's processes are stopped."""
        loop = asyncio.get_running_loop()

        def on_event(event: Event) -> None:  # called on the job's thread
            loop.call_soon_threadsafe(self._on_event, job, event)

        request = ModuleJob(
            job.location, job.settings, (UnitJob(job.unit, seeds=tuple(job.seeds)),),
            model=job.snapshot.model, analysed=(job.shape.unit,),
        )  # fmt: skip
        ahead = VerificationAhead(job.location, on_event)  # pytest starts during the search
        spares = self.spares.keyed(job.settings)
        suite = CachedSuite(job.location.project_root)
        running = loop.run_in_executor(
            self.threads, _run_in_project, job, request, on_event, spares, suite, ahead
        )
        try:
            result = await _unless_stopped(job, running)
        finally:
            ahead.close()  # also stops a verification the job no longer waits for
        job.outcome = result.job if result is not None else None
        if result is None or result.job is None or result.job.status == "cancelled":
            job.state = "cancelled"
            return
        job.crashes = [crash.reason for crash in result.job.crashes]
        unit = job.unit_outcome
        if unit is None or unit.status != "ok" or unit.result is None:
            job.state, job.message = "failed", _failure_message(result.job, unit)
            return
        job.result = _as_shown(result)
        job.state = "done"

    def _on_event(self, job: Job, event: Event) -> None:
        if job.state != "running" or job._stop.is_set():
            return
        first_coverage = False
        if isinstance(event, Progress):
            first_coverage = bool(event.covered) and not (job.progress and job.progress.covered)
            job.progress = event
            job.streamed += [entry.test for entry in event.new_tests]
        elif isinstance(event, Crash):
            job.crashes.append(event.reason)
        if first_coverage and job._flush is not None:
            job._flush.cancel()  # the first covered branches are the news the user waits for
            job._flush = None
        if job._flush is None:
            loop = asyncio.get_running_loop()
            delay = 0.0 if first_coverage else job._last_flush + self.throttle - loop.time()
            job._flush = loop.call_later(max(0.0, delay), self._flush_progress, job)

    def _flush_progress(self, job: Job) -> None:
        job._flush = None
        job._last_flush = asyncio.get_running_loop().time()
        if job.state == "running" and not job._stop.is_set():
            self.emit(JobProgress(job))

    def _end(self, job: Job) -> None:
        job._resolve()
        self.emit(JobFinished(job))


def _run_in_project(
    job: Job,
    request: ModuleJob,
    on_event: Callable[[Event], None],
    spares: SpareSource,
    suite: CachedSuite,
    ahead: VerificationAhead,
) -> ModuleRun:
    """``run_and_verify`` for the unit's test file (``insert.test_path``), as ``miogen
    generate`` runs it: the tests are verified where they will be inserted, by the project's
    own pytest at its root (``run.check.verify``), those its mypy and ruff refuse there left
    out first (``run.gate``), and the search aims at what the project's suite misses
    (``_aimed``). On the job's thread: finding the file reads the project's
    pytest configuration, the suite's cached measurement the project's files."""
    location = request.location
    test_file = test_path(location, job.settings)
    request = _aimed(request, suite.current())
    job.suite_covered = next((u.suite_covered for u in request.units if u.name == job.unit), ())
    # the project's mypy and ruff on the tests before they are verified, as ``miogen generate``
    # runs them (``run.gate``): here, on the job's thread, never on the event loop
    gate = project_gate(test_file, location.project_root, location.module_name)
    try:
        return run_and_verify(
            request, on_event, job._stop, spares, suite, ahead, test_file, gate=gate
        )
    finally:
        suite.refresh()


def _aimed(request: ModuleJob, suite: Baseline | None) -> ModuleJob:
    """The request with each unit's targets the project's ``suite`` covers
    (``UnitJob.suite_covered``, from ``run.shares`` as for ``miogen generate``): the search
    treats them as covered. Unchanged without a current measurement of a suite that ran."""
    if suite is None or not suite.ran or suite.error or request.model is None:
        return request
    units = list(request.analysed)
    covered = suite.covered(request.location.path, request.model.source, units)
    # Every unit is one the user asked for (a save, a command): each is searched.
    shares = suite_shares(units, covered, named=[unit.name for unit in units])
    found = {unit.name: unit.suite_covered for unit in shares.units}
    return dataclasses.replace(
        request,
        units=tuple(
            dataclasses.replace(unit, suite_covered=found.get(unit.name, ()))
            for unit in request.units
        ),
    )


async def _unless_stopped(job: Job, work: asyncio.Future[ModuleRun]) -> ModuleRun | None:
    """``work``'s result, or None as soon as the job is cancelled (the thread finishes alone)."""
    stopped = asyncio.ensure_future(job._stopped.wait())
    waiting: set[asyncio.Future[Any]] = {work, stopped}
    try:
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    if work in done and not job._stop.is_set():
        return work.result()
    work.add_done_callback(lambda f: f.exception())  # consumed: no "never retrieved" warning
    return None


def _failure_message(outcome: JobOutcome, unit: UnitOutcome | None) -> str:
    if outcome.error is not None:
        return outcome.error.message or outcome.message
    if unit is not None and unit.message:
        return unit.message
    return outcome.message or "the worker failed"


def _as_shown(result: ModuleRun) -> ModuleRun:
    """The marks show the project's suite and the kept tests together; a project without a
    suite of its own has no gain over it to tell."""
    measurement = result.measurement
    for unit in result.units:
        if unit.gain is not None and measurement is not None:
            measurement.covered[unit.name] = sorted(unit.gain.combined)
        if result.suite is not None and not result.suite.ran:
            unit.gain = None
    return result
