"""Runs a job in a worker process and watches it: deadlines, hung tests, crashes and restarts.

The caller (CLI or language server) never waits on a worker without a deadline. A test that hangs
past its timeout (even inside C code, where the worker's own alarm cannot fire) gets the worker
killed; a worker that dies names the unit and the test it was running (the heartbeat page), and
the job restarts for the units without a result yet: the dying unit with that test blocked, its
tests found so far as seeds and no mutants (careful), the others as they were. A unit whose
workers died MAX_RESTARTS times replays what it has; one more death and it fails alone, with a
report, while the other units go on. However often workers die, the whole job ends within one
attempt's allowance (``JobSpec.attempt_seconds``: start-up, budget, post-processing, slack) of
its start.
"""

from __future__ import annotations

import dataclasses
import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from miogen.common.heartbeat import Heartbeat
from miogen.common.records import (
    SLACK_SECONDS,
    Crash,
    Event,
    JobOutcome,
    JobSpec,
    Loaded,
    Progress,
    TestData,
    UnitJob,
    UnitOutcome,
    UnitResult,
    UnitStarted,
    WorkerError,
    WorkerStart,
    event_from_json,
)
from miogen.common.waits import CAP_FACTOR, elapsed_on_test_clock, process_waits
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.spare import Spare, SpareSource, kill_worker, launch_worker
from miogen.testcase.model import CALLS, drop_unused_values, from_json, statement_slice, to_json

MAX_RESTARTS = 3  # per unit
MIN_SECONDS = 0.2  # a restarted unit with less of its share left only replays what it found
HARD_KILL_GRACE = 1.0  # past the per-test timeout before the worker is killed

OnEvent = Callable[[Event], None]
ShouldCancel = Callable[[], bool]


class _Attempt:
    """One worker process: a spare started ahead (``host.spare``), or one started now."""

    def __init__(self, spec: JobSpec, spare: Spare | None = None) -> None:
        self.spec = spec
        self.heartbeat = Heartbeat(os.path.join(spec.scratch, "heartbeat"), create=True)
        self.spare = spare is not None
        self.started = time.monotonic()  # the job's start: a spare's launch is off its clock
        try:
            interpreter = Interpreter(spec.python, spec.shim) if spec.python else OWN
            self.process = (
                spare.process if spare else launch_worker(spec.scratch, False, interpreter)
            )
        except OSError:
            self.heartbeat.close()
            raise
        self.answered = False  # the worker sent something
        self.stdout: IO[bytes] = self.process.stdout  # type: ignore[assignment]
        try:
            stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
            stdin.write(spec.dumps().encode())
            stdin.close()
        except OSError:  # the worker died at start: the watch sees the end of its stream
            pass
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stdout, selectors.EVENT_READ)
        self.buffer = b""
        # The test the heartbeat names (its start) and the worker's wait for a CPU when first
        # seen running (``hung_past``)
        self.seen: tuple[float, int | None] = (0.0, None)

    def read_events(self, timeout: float) -> list[Event] | None:
        """Events available within ``timeout``; None at end of stream."""
        events: list[Event] = []
        if self.selector.select(timeout):
            chunk = os.read(self.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self.answered = True
            self.buffer += chunk
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                try:
                    events.append(event_from_json(json.loads(line)))
                except ValueError:
                    continue
        return events

    def hung_past(self, timeout: float) -> bool:
        """Whether the running test is past ``timeout`` and ``HARD_KILL_GRACE`` on the test clock
        (the worker's alarm's, ``common.waits``: time the worker waited for a CPU does not
        count), or past the alarm's wall-clock cap and the grace: its alarm could not stop it
        (C code that never checks for signals). The wait at the test's start is read as the
        watch first sees it running (a poll later, at most: the wait before that counts)."""
        started = self.heartbeat.running_since()
        if not started:
            return False
        if self.seen[0] != started:
            self.seen = (started, process_waits(self.process.pid))
        return _hung(
            time.monotonic() - started,
            timeout,
            self.seen[1],
            lambda: process_waits(self.process.pid),
        )

    def kill(self) -> None:
        kill_worker(self.process)

    def death_reason(self) -> str:
        code = self.process.poll()
        if code is None:
            return "worker stopped answering"
        if code < 0:
            return f"worker killed by signal {signal.Signals(-code).name}"
        return f"worker exited with status {code}"

    def close(self) -> None:
        self.selector.close()
        self.stdout.close()
        self.heartbeat.close()


def _hung(
    wall: float, timeout: float, waited_at_start: int | None, waits: Callable[[], int | None]
) -> bool:
    """Whether a test that has run ``wall`` seconds by the wall clock is hung (``hung_past``):
    ``waits`` reads the worker's wait for a CPU now (ns), only once the wall clock is past."""
    limit = timeout + HARD_KILL_GRACE
    if wall <= limit:
        return False
    if wall > CAP_FACTOR * timeout + HARD_KILL_GRACE:
        return True
    return elapsed_on_test_clock(wall, waited_at_start, waits()) > limit


@dataclass
class _UnitState:
    """What the supervisor knows about one unit across attempts."""

    job: UnitJob
    outcome: UnitOutcome
    seeds: list[TestData] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # seeds as JSON text
    blocked: list[TestData] = field(default_factory=list)
    careful: bool = False
    charged: float = 0.0  # seconds of budget its crashed attempts used

    def add_seed(self, test: TestData) -> None:
        key = json.dumps(test)
        if key not in self.seen:
            self.seen.add(key)
            self.seeds.append(test)

    @property
    def done(self) -> bool:
        return self.outcome.result is not None or self.outcome.status != "ok"

    def next_job(self, share: float | None) -> UnitJob:
        """The unit in the next attempt; ``share``: its seconds left (None: evaluations)."""
        dying = len(self.outcome.crashes)
        short = share is not None and share < MIN_SECONDS
        return dataclasses.replace(
            self.job,
            seeds=tuple(self.seeds),
            blocked=tuple(self.blocked),
            careful=self.job.careful or self.careful,
            replay_only=self.job.replay_only or short or dying > MAX_RESTARTS,
            raw=self.job.raw or dying > MAX_RESTARTS,  # one more death fails it: nothing new
            share=max(share, MIN_SECONDS) if share is not None else self.job.share,
        )


def run_job(
    spec: JobSpec,
    on_event: OnEvent | None = None,
    should_cancel: ShouldCancel | None = None,
    spares: SpareSource | None = None,
) -> JobOutcome:
    """Run ``spec`` in worker processes until every unit has a result, failed, or is cancelled.

    ``spares``: workers started ahead; the job runs in one when one fits, and the source is
    asked for a new one once the search has streamed its first progress (or the worker ended).
    """
    own_scratch = not spec.scratch
    if own_scratch:
        spec = dataclasses.replace(spec, scratch=tempfile.mkdtemp(prefix="miogen-"))
    started = time.monotonic()
    try:
        outcome = _Supervisor(spec, on_event, should_cancel, spares).run()
    finally:
        if own_scratch:
            shutil.rmtree(spec.scratch, ignore_errors=True)
    outcome.wall_seconds = time.monotonic() - started
    return outcome


class _Supervisor:
    def __init__(
        self,
        spec: JobSpec,
        on_event: OnEvent | None,
        should_cancel: ShouldCancel | None,
        spares: SpareSource | None = None,
    ) -> None:
        self.spec = spec
        self.spares = spares
        self.on_event = on_event or (lambda _: None)
        self.should_cancel = should_cancel or (lambda: False)
        self.units: dict[str, _UnitState] = {}
        self.outcome = JobOutcome("ok")
        for job in spec.units:
            self._add(job)
        self.unnamed = not spec.units  # every unit of the module: the worker names them
        self.start = time.monotonic()
        self.deadline = self.start + spec.attempt_seconds()
        self.attempt_deadline = self.deadline
        self.weights: dict[str, float] = {}  # from the worker's first answer
        self.running: tuple[str, float] | None = None  # the unit at work, since when
        self.refilled = False

    def _add(self, job: UnitJob) -> None:
        state = self.units[job.name] = _UnitState(job, UnitOutcome(job.name))
        for seed in job.seeds:
            state.add_seed(seed)
        state.blocked = list(job.blocked)
        self.outcome.units.append(state.outcome)

    @property
    def finished(self) -> bool:
        return not self.unnamed and all(state.done for state in self.units.values())

    def run(self) -> JobOutcome:
        first, use_spare = True, True
        while not self.finished:
            attempt_spec = self._attempt_spec(first)
            try:
                attempt = self._launch(attempt_spec, use_spare)
            except OSError as error:  # e.g. no processes or memory left for a new worker
                return self._fail_rest(f"could not start a worker: {error}")
            try:
                self.attempt_deadline = time.monotonic() + attempt_spec.attempt_seconds()
                ended = self._watch(attempt, attempt_spec)
            finally:
                attempt.kill()
                attempt.close()
                self._refill()
            if ended:
                break
            # A spare that died before it answered (killed while it waited, or by the module's
            # import) is no crash: the same attempt again, and the job's next ones, in workers
            # started for them.
            spare_lost = attempt.spare and not attempt.answered
            use_spare = use_spare and not spare_lost
            first = first and spare_lost
        return self.outcome

    def _launch(self, spec: JobSpec, use_spare: bool) -> _Attempt:
        # Spares run in miogen's own interpreter: a job for another one starts its own worker.
        use_spare = use_spare and not self.spec.python
        spare = self.spares.take() if self.spares is not None and use_spare else None
        attempt = _Attempt(spec, spare)
        self.outcome.workers.append(WorkerStart(attempt.process.pid, attempt.spare))
        return attempt

    def _refill(self) -> None:
        if self.spares is not None:
            self.spares.refill()

    def _attempt_spec(self, first: bool) -> JobSpec:
        """The job for the units still open: all of it first; after a crash, each open unit's
        own share of the budget (a crashed unit's less what its crashes used), within the
        job's deadline. Crashes cost the unit that caused them, not the others."""
        if first:
            return self.spec
        open_units = [s for s in self.units.values() if not s.done]
        if self.spec.evaluations is not None:
            units = tuple(s.next_job(None) for s in open_units)
            return dataclasses.replace(self.spec, units=units)
        total = sum(self.weights.get(s.job.name, 1.0) for s in self.units.values())
        shares = {
            s.job.name: self.spec.budget_seconds * self.weights.get(s.job.name, 1.0) / total
            - s.charged
            for s in open_units
        }
        room = self.deadline - time.monotonic() - SLACK_SECONDS
        room -= len(open_units) * self.spec.post_allowance()
        scale = min(1.0, max(room, 0.0) / max(sum(shares.values()), 1e-9))
        units = tuple(s.next_job(shares[s.job.name] * scale) for s in open_units)
        budget = sum(u.share or 0.0 for u in units)
        return dataclasses.replace(self.spec, units=units, budget_seconds=budget)

    def _watch(self, attempt: _Attempt, spec: JobSpec) -> bool:
        """Follow one worker; True when the job has ended (done, failed or cancelled)."""
        current: str | None = None
        while True:
            if self.should_cancel():
                self._cancel_rest()
                return True
            events = attempt.read_events(0.05)
            if events is None and attempt.spare and not attempt.answered:
                return self.finished  # the spare died before the job reached it: not a crash
            if events is None:
                return self.finished or self._crashed(attempt, current, None)
            for event in events:
                current = self._handle(event, attempt, current)
                if isinstance(event, WorkerError):
                    return True
            if attempt.hung_past(spec.test_timeout):
                attempt.kill()
                reason = f"a test ran longer than {spec.test_timeout:g} s and was killed"
                return self._crashed(attempt, current, reason)
            if time.monotonic() > min(self.attempt_deadline, self.deadline):
                attempt.kill()
                self._fail_rest("the worker did not finish within its deadline")
                return True

    def _handle(self, event: Event, attempt: _Attempt, current: str | None) -> str | None:
        """Record one event; returns the unit now running."""
        if isinstance(event, UnitStarted):
            current = event.unit
            self.running = (event.unit, time.monotonic())
        elif isinstance(event, Loaded):
            self.weights = self.weights or dict(event.weights)
            if self.unnamed:  # now the deadlines can count the units
                for name in event.weights:
                    self._add(UnitJob(name))
                self.unnamed = False
                named = dataclasses.replace(
                    self.spec, units=tuple(s.job for s in self.units.values())
                )
                extra = named.attempt_seconds() - self.spec.attempt_seconds()
                self.deadline += extra
                self.attempt_deadline += extra
            if event.analysed_ahead:
                workers = self.outcome.workers
                workers[-1] = dataclasses.replace(workers[-1], analysed_ahead=True)
            phases = self.outcome.phases
            phases["start"] = phases.get("start", 0.0) + time.monotonic() - attempt.started
            for name, seconds in event.phases.items():
                phases.setdefault(name, seconds)
        elif isinstance(event, Progress) and event.unit in self.units:
            for entry in event.new_tests:
                self.units[event.unit].add_seed(entry.test)
        elif isinstance(event, UnitResult) and event.unit in self.units:
            self.units[event.unit].outcome.result = event
        elif isinstance(event, WorkerError):
            self.outcome.status, self.outcome.error = "failed", event
            self.outcome.message = event.message
            for state in self.units.values():
                if not state.done:
                    state.outcome.status, state.outcome.message = "failed", event.message
        self.on_event(event)
        if isinstance(event, Progress) and not self.refilled:
            self.refilled = True  # the job's first news is out: now a spare for the next job
            self._refill()
        return current

    def _crashed(self, attempt: _Attempt, unit: str | None, reason: str | None) -> bool:
        """A worker died in ``unit``: block its killer, seed the safe prefix, try again.

        ``reason``: why it was killed; None when it died by itself (its exit status says why).
        """
        try:
            attempt.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            attempt.kill()
        if reason is None:
            reason = attempt.death_reason()
        open_units = [s for s in self.units.values() if not s.done]
        if not open_units:  # it died before it named the module's units
            self._fail_rest(f"the worker died before it loaded the module: {reason}")
            return True
        state = self.units.get(unit) if unit else None
        if state is None or state.done:
            state = open_units[0]  # died before naming a unit: the first open one pays
        if self.running is not None and self.running[0] == state.job.name:
            state.charged += time.monotonic() - self.running[1]
        self.running = None
        killer = attempt.heartbeat.current_test()
        test = to_json(killer) if killer else None
        crash = Crash(state.job.name, reason, test)
        state.outcome.crashes.append(crash)
        state.careful = True
        self.on_event(crash)
        if test is not None:
            state.blocked.append(_killer(test, attempt.heartbeat.current_statement()))
            prefix = _safe_prefix(test, attempt.heartbeat.current_statement())
            if prefix is not None:
                state.add_seed(prefix)
        if len(state.outcome.crashes) > MAX_RESTARTS + 1:
            state.outcome.status = "failed"
            count = len(state.outcome.crashes)
            state.outcome.message = f"worker crashed {count} times: {reason}"
        return False

    def _fail_rest(self, message: str) -> JobOutcome:
        for state in self.units.values():
            if not state.done:
                state.outcome.status, state.outcome.message = "failed", message
        if not any(state.outcome.result for state in self.units.values()):
            self.outcome.status, self.outcome.message = "failed", message
        return self.outcome

    def _cancel_rest(self) -> None:
        self.outcome.status, self.outcome.message = "cancelled", "cancelled"
        for state in self.units.values():
            if state.outcome.result is None:
                state.outcome.status, state.outcome.message = "cancelled", "cancelled"


def _killer(test_json: TestData, statement: int) -> TestData:
    """What to block of a test that killed the worker at ``statement``: that call with what it
    depends on (``statement_slice``), which the next attempt's search would put in other tests again
    (the same seed makes the same values): blocked by the whole test, ``format("month_abbr",
    colwidth=1864343715, spacing=-9)`` killed stdlib_calendar's ``format`` four times, and a
    unit that dies that often is emitted as found, unshrunk. The whole test when the
    statement is not known."""
    test = from_json(test_json)
    if not 0 <= statement < len(test) or test[statement].kind not in CALLS:
        return test_json
    return to_json(statement_slice(test, statement))


def _safe_prefix(test_json: TestData, statement: int) -> TestData | None:
    """The statements that ran before the one that killed the worker: they are safe to replay."""
    test = drop_unused_values(from_json(test_json)[:statement])
    return to_json(test) if any(s.kind in CALLS for s in test) else None
