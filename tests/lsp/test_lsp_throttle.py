"""The scheduler's progress throttle: updates at most every ``throttle`` seconds, except a job's
first covered branches, which reach the client at once (what a save waits to see)."""

from __future__ import annotations

import asyncio
from typing import Any

from miogen.common.records import Progress
from miogen.lsp.jobs import Job, JobEvent, JobProgress, Scheduler

HOUR = 3600.0  # a throttle no test waits out: what is sent early was sent at once


class Hooks:
    def __init__(self) -> None:
        self.progress: list[tuple[int, ...]] = []

    def __call__(self, event: JobEvent) -> None:
        if isinstance(event, JobProgress):
            self.progress.append(tuple(event.job.covered_ids))


def _running_job() -> Job:
    nothing: Any = None  # the throttle reads none of the job's source or settings
    job = Job("file:///m.py", nothing, nothing, nothing, nothing)
    job.state = "running"
    return job


def _progress(*covered: int) -> Progress:
    return Progress("f", 10, 0.1, 0.1, covered, 4, 100.0)


async def _turns() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_later_progress_waits_for_the_throttle() -> None:
    hooks = Hooks()
    scheduler, job = Scheduler(hooks, throttle=HOUR), _running_job()
    scheduler._on_event(job, _progress(1))
    await _turns()
    scheduler._on_event(job, _progress(1, 2))
    await _turns()
    assert hooks.progress == [(1,)]
    assert job._flush is not None
    job._flush.cancel()


async def test_the_first_covered_branches_skip_the_throttle() -> None:
    hooks = Hooks()
    scheduler, job = Scheduler(hooks, throttle=HOUR), _running_job()
    scheduler._on_event(job, _progress())  # the search started: nothing covered yet
    await _turns()
    scheduler._on_event(job, _progress())
    await _turns()
    assert hooks.progress == [()]
    scheduler._on_event(job, _progress(3))
    await _turns()
    assert hooks.progress == [(), (3,)]
    scheduler._on_event(job, _progress(3, 4))
    await _turns()
    assert hooks.progress == [(), (3,)]
    assert job._flush is not None
    job._flush.cancel()
