"""What a save generates: the units whose code changed, then untested units near the last edit.

``Saves`` follows a save from the editor's notification to its jobs: debounced, read, analysed
(usually done already: it was the editor's text), planned (``plan_save``) and scheduled. The
file's place and settings are taken once per save (``Locator.place``) and handed down; what the
editor is to see goes out as events (``events``) to the one path that shows them.

A unit is untested when it has no result in this session (no job was ever started for it) and the
continuous-generation history (``.miogen/history.sqlite``, common/history.py) has nothing for it.
Untested units fill the job limit left after the changed ones, nearest to the last edit first, so
that the first save of a file that never had tests starts generating where the user works.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from miogen.common.errors import SourceSyntaxError
from miogen.common.history import DEFAULT_PATH, recorded_units
from miogen.host.config import SaveMode
from miogen.lsp.analyser import TooBig
from miogen.lsp.client import Client
from miogen.lsp.documents import Document, DocumentStore, UnitRecord
from miogen.lsp.events import AnalysisReady, Event, SaveAnnounced, SaveBroken, SaveDone, SaveParsed
from miogen.lsp.jobs import Job, Scheduler
from miogen.lsp.locator import Locator, Place
from miogen.lsp.snapshot import Snapshot, UnitShape, quick_fingerprints

SAVE_DEBOUNCE = 0.1  # saves closer together than this start one round of jobs


@dataclass(frozen=True)
class SavePlan:
    changed: list[UnitShape] = field(default_factory=list)
    untested: list[UnitShape] = field(default_factory=list)
    waiting: int = 0  # untested units beyond the job limit: a later save takes them

    @property
    def units(self) -> list[UnitShape]:
        return self.changed + self.untested

    def describe(self, mode: SaveMode) -> str:
        """The log's account: what runs and why, or why nothing does."""
        names = [f"{s.name} (changed)" for s in self.changed]
        names += [f"{s.name} (untested)" for s in self.untested]
        wait = f"; {self.waiting} more untested units wait for a later save" if self.waiting else ""
        if names:
            return "generating " + ", ".join(names) + wait
        if mode == "changed":
            return "nothing to generate: no unit changed (generateOnSave is changed)"
        if self.waiting:
            return "nothing to generate now: no unit changed and the job limit is reached" + wait
        return "nothing to generate: no unit changed, and every unit has a result or a history"


def untested(record: UnitRecord | None) -> bool:
    """No job ever ran for the unit in this session (results, failures, cancels all count)."""
    return record is None or (record.job is None and record.final is None and not record.failure)


def distance(shape: UnitShape, line: int | None) -> int:
    """Lines between the unit and ``line`` (0 inside it); without an edit, the file's order."""
    if line is None:
        return shape.unit.line
    return max(shape.unit.line - line, line - shape.unit.end_line, 0)


def plan_save(
    snapshot: Snapshot,
    records: Mapping[str, UnitRecord],
    mode: SaveMode,
    recorded: set[str],
    last_edit: int | None,
    limit: int,
    busy: set[str],
) -> SavePlan:
    """``recorded``: units with a history; ``limit``: the parallel job limit, which untested
    units fill after the changed ones and the units ``busy`` with a job already."""
    if mode == "off":
        return SavePlan()
    changed = [  # a unit added since the file was opened has no record: it changed
        shape
        for name, shape in snapshot.units.items()
        if records.get(name, UnitRecord()).needs_job(shape.fingerprint)
    ]
    if mode == "changed":
        return SavePlan(changed)
    taken = {shape.name for shape in changed}
    candidates = [
        shape
        for name, shape in snapshot.units.items()
        if untested(records.get(name)) and name not in recorded and name not in taken
    ]
    candidates.sort(key=lambda shape: (distance(shape, last_edit), shape.unit.line))
    room = max(0, limit - len(taken | busy))
    return SavePlan(changed, candidates[:room], max(0, len(candidates) - room))


def changed_at_a_glance(
    previous: Snapshot, source: str, records: Mapping[str, UnitRecord]
) -> list[str]:
    """The units of ``previous`` whose code changed in ``source``, from a parse and a few hashes
    (a fraction of an analysis): what a save can show as queued before its analysis is done.
    Reads no file; run it off the event loop."""
    helpers = {name: shape.helpers for name, shape in previous.units.items()}
    found = quick_fingerprints(source, helpers) or {}
    return [
        name for name, value in found.items() if records.get(name, UnitRecord()).needs_job(value)
    ]


def history_of(project_root: Path, path: Path) -> set[str]:
    """The units of the module at ``path`` that the project's history knows (reads a file)."""
    try:
        module = path.resolve().relative_to(project_root.resolve()).as_posix()
    except ValueError:
        return set()
    return recorded_units(project_root / DEFAULT_PATH, module)


class Saves:
    """Saves and the jobs they start; the waiting worker gets the text a save will run.

    ``emit`` is the one update-and-publish path (``reporting.Reporter.handle``).
    """

    def __init__(
        self,
        store: DocumentStore,
        locator: Locator,
        client: Client,
        scheduler: Scheduler,
        emit: Callable[[Event], None],
    ) -> None:
        self.store, self.locator, self.client = store, locator, client
        self.scheduler, self.emit = scheduler, emit

    def saved(self, uri: str) -> None:
        """Debounced: saves closer together than ``SAVE_DEBOUNCE`` start one round of jobs."""
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        if doc.save_timer is not None:
            doc.save_timer.cancel()
        doc.save_timer = asyncio.get_running_loop().call_later(
            SAVE_DEBOUNCE, lambda: self.client.spawn(self._saved(doc))
        )
        self.client.spawn(self._prepare_saved(doc))

    def analysed(self, uri: str) -> None:
        """A newer analysis of the document arrived: it is shown; once typing pauses, the
        waiting worker analyses the text too (a save of it then starts its search sooner)."""
        self.emit(AnalysisReady(uri))
        doc = self.store.documents.get(uri)
        snapshot = doc.snapshot if doc is not None else None
        if doc is not None and snapshot is not None and not self.store.analyser.busy(uri):
            self.prepare(doc, snapshot.source)

    def warm_up(self, doc: Document | None = None) -> None:
        """A worker waiting for the next job of ``doc`` (else of an open document)."""
        if doc is None:
            docs = (self.store.documents.get(uri) for uri in sorted(self.store.open))
            doc = next((found for found in docs if found is not None), None)
        if doc is None or self.client.stopped:
            return
        settings = self.locator.place(doc.path).settings
        if settings.save_mode == "off":  # no save will want a worker soon
            self.scheduler.spares.discard()
        else:
            self.scheduler.warm_up(settings)

    def prepare(self, doc: Document, source: str) -> None:
        """Give ``source`` to the waiting worker if a save of the document would generate."""
        if self.client.stopped or doc.uri not in self.store.open:
            return
        place = self.locator.place(doc.path)
        if place.settings.save_mode == "off" or place.test_file:
            return
        if place.folder is not None:
            self.scheduler.prepare(place.location, source)

    def start_job(self, doc: Document, shape: UnitShape, snapshot: Snapshot, place: Place) -> Job:
        """A newer job for a unit cancels the older one and starts from its tests; ``place`` is
        the file's under the current settings (``Locator.place``)."""
        record = doc.record(shape.name)
        if record.job is not None and record.job.active:
            self.scheduler.cancel(record.job, "superseded")
        if record.job is not None:
            record.add_seeds(record.job.streamed)
        job = Job(
            doc.uri, shape, snapshot, place.location, place.settings, seeds=list(record.seeds)
        )
        record.job = job
        return self.scheduler.submit(job)

    async def _prepare_saved(self, doc: Document) -> None:
        """The waiting worker analyses the saved text while the save is debounced and analysed
        here (its job then starts past its analysis)."""
        try:
            source = await self.store.read(doc)
        except (OSError, SourceSyntaxError):
            return  # the save's own read reports it
        self.prepare(doc, source)

    async def _saved(self, doc: Document) -> None:
        doc.save_timer = None
        try:
            source = await self.store.read(doc)
        except OSError as error:
            self.client.warn(f"miogen: cannot read {doc.path}: {error}")
            return
        except SourceSyntaxError as error:  # Python could not decode it either
            self._broken(doc, error)
            return
        analysis = self.store.saved_analysis(doc, source)
        place = self.locator.place(doc.path)
        if not analysis.done() and self._generates(doc, place, quiet=True):
            self.client.spawn(self._announce(doc, source, analysis))
        try:
            snapshot = await analysis
        except SourceSyntaxError as error:
            self._broken(doc, error)
            return
        except TooBig:
            return  # the analyser told the client
        self.emit(SaveParsed(doc.uri))
        if place.version != self.locator.version:  # the settings changed meanwhile
            place = self.locator.place(doc.path)
        if self._generates(doc, place):
            await self._schedule(doc, snapshot, place)
        self.emit(SaveDone(doc.uri))

    def _generates(self, doc: Document, place: Place, quiet: bool = False) -> bool:
        """Whether a save of the document generates anything (if not, the log says why)."""
        name, settings = doc.path.name, place.settings
        if settings.save_mode == "off":
            switch = "generateOnSave" if settings.on_save else "onSave"
            reason = f"miogen: {name} saved; {switch} is off"
        elif place.test_file:
            reason = f"miogen: {name} is a test file; nothing to generate"
        elif place.folder is None:
            reason = (
                f"miogen: {name} saved; not generating: {doc.path} is outside the workspace folders"
            )
            if not quiet:
                self.client.warn(reason)
            return False
        else:
            return True
        if not quiet:
            self.client.log(reason, types.MessageType.Log)
        return False

    async def _announce(
        self, doc: Document, source: str, analysis: asyncio.Future[Snapshot]
    ) -> None:
        """Show the units whose code changed as queued while the saved text is analysed."""
        previous = doc.snapshot
        if previous is None:
            return
        names = await asyncio.to_thread(changed_at_a_glance, previous, source, doc.units)
        if analysis.done() or not names:
            return
        units = tuple((name, len(previous.units[name].targets)) for name in names)
        self.emit(SaveAnnounced(doc.uri, units))

    def _broken(self, doc: Document, error: SourceSyntaxError) -> None:
        self.emit(SaveBroken(doc.uri, error.line))
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri, "broken")

    async def _schedule(self, doc: Document, snapshot: Snapshot, place: Place) -> None:
        recorded: set[str] = set()
        if place.settings.save_mode == "untested":
            recorded = await asyncio.to_thread(history_of, place.project_root, doc.path)
            if place.version != self.locator.version:  # the settings changed meanwhile
                place = self.locator.place(doc.path)
        mode = place.settings.save_mode
        busy = {j.unit for j in self.scheduler.latest.values() if j.active and j.uri == doc.uri}
        limit = place.settings.max_parallel_jobs
        plan = plan_save(snapshot, doc.units, mode, recorded, doc.last_edit, limit, busy)
        for shape in plan.units:
            self.start_job(doc, shape, snapshot, place)
        self.client.log(
            f"miogen: {doc.path.name} saved; {plan.describe(mode)}", types.MessageType.Log
        )
        gone = set(doc.units) - set(snapshot.units)
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri and job.unit in gone, "removed")
