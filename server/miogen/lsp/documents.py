"""What the server remembers per open file and per unit: views, failures, seeds, the running job."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from miogen.lsp.jobs import Job
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.lsp.views import UnitView
from miogen.records import TestData

MAX_SEEDS = 200  # tests handed to the next job; the newest win


@dataclass
class UnitRecord:
    """One unit's history in one file."""

    # What a save compares the unit against: its fingerprint when the file was opened, when the
    # last result arrived, or when the user cancelled. A unit that was never generated and is
    # unchanged since the file was opened is left alone until asked (lens, action, command).
    reference: str | None = None
    final: UnitView | None = None  # the last verified result
    live: UnitView | None = None  # what the running job has claimed so far
    failure: tuple[str, str] | None = None  # (fingerprint, message): the last job failed
    warnings: tuple[str, tuple[str, ...]] | None = None  # (fingerprint, crash reasons) of a result
    seeds: list[TestData] = field(default_factory=list)  # tests for the next job
    job: Job | None = None

    @property
    def view(self) -> UnitView | None:
        running = self.job is not None and self.job.state == "running" and self.job.active
        return self.live if running and self.live is not None else self.final

    def needs_job(self, fingerprint: str) -> bool:
        """Whether a save of the unit at ``fingerprint`` should start a job."""
        job = self.job
        if job is not None and job.active:
            return job.shape.fingerprint != fingerprint
        return self.failure is not None or fingerprint != self.reference

    def state(self, fingerprint: str) -> str:
        """The unit's state in the coverage notification (docs/lsp-protocol.md)."""
        job = self.job
        if job is not None and job.active and job.shape.fingerprint == fingerprint:
            return job.state
        if self.failure is not None and self.failure[0] == fingerprint:
            return "failed"
        view = self.view
        if view is not None:
            return "done" if view.fingerprint == fingerprint else "stale"
        return "stale" if job is not None and job.active else "none"

    def add_seeds(self, tests: list[TestData]) -> None:
        known = {json.dumps(test, sort_keys=True) for test in self.seeds}
        for test in tests:
            key = json.dumps(test, sort_keys=True)
            if key not in known:
                known.add(key)
                self.seeds.append(test)
        del self.seeds[:-MAX_SEEDS]


@dataclass
class Document:
    """An open Python file."""

    uri: str
    path: Path
    snapshot: Snapshot | None = None  # the editor's latest text that parses
    broken: bool = False  # the last save did not parse: nothing is shown until it does
    import_error: str | None = None  # the module could not be imported (Error at line 1)
    units: dict[str, UnitRecord] = field(default_factory=dict)
    published: object = None  # the last payload sent, to skip identical updates
    baselined: bool = False  # the units' references were taken from the first text that parsed
    analysis: int = 0  # counts analyses so that a slower, older one cannot win
    save_timer: asyncio.TimerHandle | None = None
    change_timer: asyncio.TimerHandle | None = None

    def record(self, unit: str) -> UnitRecord:
        return self.units.setdefault(unit, UnitRecord())

    def shapes(self) -> list[UnitShape]:
        return list(self.snapshot.units.values()) if self.snapshot and not self.broken else []

    def remember_baseline(self, snapshot: Snapshot) -> None:
        """The first text that parses is the reference of the units it has.

        Units added later have no reference, so the next save generates tests for them.
        """
        if self.baselined:
            return
        self.baselined = True
        for name, shape in snapshot.units.items():
            record = self.record(name)
            if record.reference is None and record.final is None:
                record.reference = shape.fingerprint
