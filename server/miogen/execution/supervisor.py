"""Runs a job in a worker process and watches it: deadlines, hung tests, crashes and restarts.

The caller (CLI or language server) never waits on a worker without a deadline. A test that hangs
past its timeout (even inside C code, where the worker's own alarm cannot fire) gets the worker
killed; a worker that dies names the test it was running (the heartbeat page), and the job restarts
with that test blocked and the tests found so far as seeds. After MAX_RESTARTS the job replays what
it has and ends with a report. However often workers die, the whole job ends within one attempt's
allowance (``JobSpec.attempt_seconds``: start-up, budget, post-processing, slack) of its start.
"""

from __future__ import annotations

import dataclasses
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from miogen.execution.heartbeat import Heartbeat
from miogen.execution.job import JobSpec
from miogen.testcase.model import CALLS, drop_unused_values, from_json, to_json

MAX_RESTARTS = 3
HARD_KILL_GRACE = 1.0  # past the per-test timeout before the worker is killed

OnEvent = Callable[[dict], None]


@dataclass
class JobOutcome:
    status: str  # ok | failed | cancelled
    result: dict | None = None  # the worker's result message
    error: dict | None = None  # the worker's error message (syntax/import/unknown-unit/internal)
    crashes: list[dict] = field(default_factory=list)  # {"reason", "test"} per killed worker
    message: str = ""
    wall_seconds: float = 0.0
    statement: int = 0  # for a crash: the statement that was running


class _Attempt:
    """One worker process."""

    def __init__(self, spec: JobSpec) -> None:
        self.spec = spec
        self.heartbeat_path = os.path.join(spec.scratch, "heartbeat")
        self.heartbeat = Heartbeat(self.heartbeat_path, create=True)
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "miogen.execution.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=spec.scratch,
                env=env,
                start_new_session=True,  # a kill takes the user's child processes along
            )
        except OSError:
            self.heartbeat.close()
            raise
        try:
            self.process.stdin.write(spec.dumps().encode())
            self.process.stdin.close()
        except OSError:  # the worker died at start: the watch sees the end of its stream
            pass
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.buffer = b""

    def read_messages(self, timeout: float) -> list[dict] | None:
        """Messages available within ``timeout``; None at end of stream."""
        messages = []
        if self.selector.select(timeout):
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self.buffer += chunk
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                try:
                    messages.append(json.loads(line))
                except ValueError:
                    continue
        return messages

    def hung_for(self) -> float:
        started = self.heartbeat.running_since()
        return time.monotonic() - started if started else 0.0

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def death_reason(self) -> str:
        code = self.process.poll()
        if code is None:
            return "worker stopped answering"
        if code < 0:
            return f"worker killed by signal {signal.Signals(-code).name}"
        return f"worker exited with status {code}"

    def close(self) -> None:
        self.selector.close()
        self.process.stdout.close()
        self.heartbeat.close()


def run_job(
    spec: JobSpec, on_event: OnEvent | None = None, should_cancel: Callable[[], bool] | None = None
) -> JobOutcome:
    """Run ``spec`` in worker processes until it has a result, fails for good, or is cancelled."""
    own_scratch = not spec.scratch
    if own_scratch:
        spec = dataclasses.replace(spec, scratch=tempfile.mkdtemp(prefix="miogen-"))
    started = time.monotonic()
    try:
        outcome = _supervise(spec, on_event or (lambda _: None), should_cancel or (lambda: False))
    finally:
        if own_scratch:
            shutil.rmtree(spec.scratch, ignore_errors=True)
    outcome.wall_seconds = time.monotonic() - started
    return outcome


def _supervise(spec: JobSpec, on_event: OnEvent, should_cancel: Callable[[], bool]) -> JobOutcome:
    crashes: list[dict] = []
    seeds = list(spec.seeds)
    seen_seeds = {json.dumps(s) for s in seeds}
    blocked = list(spec.blocked)
    job_start = time.monotonic()
    job_deadline = job_start + spec.attempt_seconds()
    for attempt_number in range(MAX_RESTARTS + 2):
        elapsed = time.monotonic() - job_start
        remaining = spec.budget_seconds - elapsed
        replay_only = attempt_number > MAX_RESTARTS or (attempt_number > 0 and remaining < 0.5)
        current = dataclasses.replace(
            spec,
            seeds=seeds,
            blocked=blocked,
            budget_seconds=max(remaining, 0.1) if attempt_number else spec.budget_seconds,
            replay_only=replay_only or spec.replay_only,
            careful=spec.careful or attempt_number > 0,
        )
        try:
            attempt = _Attempt(current)
        except OSError as error:  # e.g. no processes or memory left for a new worker
            return JobOutcome(
                "failed", crashes=crashes, message=f"could not start a worker: {error}"
            )
        try:
            deadline = min(time.monotonic() + current.attempt_seconds(), job_deadline)
            verdict = _watch(attempt, current, deadline, on_event, should_cancel, seeds, seen_seeds)
        finally:
            attempt.kill()
            attempt.close()
        if verdict.status != "crashed":
            verdict.crashes = crashes
            return verdict
        crashes.append({"reason": verdict.message, "test": verdict.result})
        on_event({"event": "crash", "reason": verdict.message})
        if verdict.result is not None:
            blocked.append(verdict.result)
            prefix = _safe_prefix(verdict.result, verdict.statement)
            if prefix and json.dumps(prefix) not in seen_seeds:
                seen_seeds.add(json.dumps(prefix))
                seeds.append(prefix)
        if replay_only:
            break
    return JobOutcome(
        "failed",
        crashes=crashes,
        message=f"worker crashed {len(crashes)} times: " + crashes[-1]["reason"],
    )


def _watch(
    attempt: _Attempt,
    spec: JobSpec,
    deadline: float,
    on_event: OnEvent,
    should_cancel: Callable[[], bool],
    seeds: list,
    seen: set,
) -> JobOutcome:
    while True:
        if should_cancel():
            return JobOutcome("cancelled", message="cancelled")
        messages = attempt.read_messages(0.05)
        if messages is None:
            return _crashed(attempt)
        for message in messages:
            event = message.get("event")
            if event == "progress":
                for entry in message.get("new_tests", []):
                    key = json.dumps(entry["test"])
                    if key not in seen:
                        seen.add(key)
                        seeds.append(entry["test"])
                on_event(message)
            elif event == "result":
                return JobOutcome("ok", result=message)
            elif event == "error":
                return JobOutcome("failed", error=message, message=message.get("message", ""))
        if attempt.hung_for() > spec.test_timeout + HARD_KILL_GRACE:
            attempt.kill()
            outcome = _crashed(attempt)
            outcome.message = f"a test ran longer than {spec.test_timeout:g} s and was killed"
            return outcome
        if time.monotonic() > deadline:
            attempt.kill()
            return JobOutcome("failed", message="the worker did not finish within its deadline")


def _crashed(attempt: _Attempt) -> JobOutcome:
    try:
        attempt.process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        attempt.kill()
    killer = attempt.heartbeat.current_test()
    outcome = JobOutcome(
        "crashed", result=to_json(killer) if killer else None, message=attempt.death_reason()
    )
    outcome.statement = attempt.heartbeat.current_statement()
    return outcome


def _safe_prefix(test_json: list, statement: int) -> list | None:
    """The statements that ran before the one that killed the worker: they are safe to replay."""
    test = drop_unused_values(from_json(test_json)[:statement])
    return to_json(test) if any(s.kind in CALLS for s in test) else None
