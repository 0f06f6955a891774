"""The document store: per file its analysed text, per unit its views, failures, seeds and job.

Analysis is static (invariant 1) and runs in another process (analyser.py); an older, slower
analysis never replaces a newer one, and requests take the latest finished one rather than wait.
What a save generates is planned here, from the saved analysis and the units' records
(``plan_save``), and each unit's next job starts from its record's seeds (``Document.next_job``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from miogen.analysis.source import read_source
from miogen.common.errors import SourceSyntaxError
from miogen.common.project import ModuleLocation
from miogen.common.records import TestData
from miogen.host.config import SaveMode
from miogen.lsp.analyser import Analyser
from miogen.lsp.jobs import Job
from miogen.lsp.protocol import CommandError, UnitState
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import Outline, Snapshot, UnitShape, outline, quick_fingerprints
from miogen.lsp.views import UnitView

MAX_SEEDS = 200  # tests handed to the next job; the newest win
PATIENCE = 0.05  # seconds a request waits for the analysis of a newer text before answering
# The longest text outlined for lenses before its first analysis (characters, about 5,000 lines):
# the parse holds the GIL, a few tens of ms at this size; a longer text waits for its analysis.
OUTLINE_CHARACTERS = 200_000


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
    # Why the last result may no longer hold although the unit's code did not change (an
    # imported module, the settings or its inserted tests changed): hidden, generated next save.
    outdated: str | None = None
    inserted: bool = False  # the last result's tests went into the test file (applied, or seen)
    announced: bool = False  # told "queued" on save, before the saved text's analysis was done

    @property
    def view(self) -> UnitView | None:
        """What to show: the running job's claims, else the last result (unless outdated)."""
        running = self.job is not None and self.job.state == "running" and self.job.active
        if running and self.live is not None:
            return self.live
        return None if self.outdated else self.final

    def needs_job(self, fingerprint: str) -> bool:
        """Whether a save of the unit at ``fingerprint`` should start a job."""
        job = self.job
        if job is not None and job.active:
            return job.shape.fingerprint != fingerprint
        stale = self.failure is not None or self.outdated is not None
        return stale or fingerprint != self.reference

    def state(self, fingerprint: str) -> UnitState:
        """The unit's state in the coverage notification (docs/lsp-protocol.md)."""
        job = self.job
        if job is not None and job.active and job.shape.fingerprint == fingerprint:
            return "running" if job.state == "running" else "queued"
        if self.announced:
            return "queued"
        if self.failure is not None and self.failure[0] == fingerprint:
            return "failed"
        if self.outdated is not None:
            return "stale"
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


# --- what a save generates ---------------------------------------------------------------------
#
# A unit is untested when it has no result in this session (no job was ever started for it) and
# the continuous-generation history (``.miogen/history.sqlite``, common/history.py) has nothing
# for it. Untested units fill the job limit left after the changed ones, nearest to the last edit
# first, so that the first save of a file that never had tests starts generating where the user
# works.


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
    unseen = [  # untested, nearest to the last edit first
        shape
        for name, shape in snapshot.units.items()
        if untested(records.get(name)) and name not in recorded
    ]
    unseen.sort(key=lambda shape: (distance(shape, last_edit), shape.unit.line))
    changed = [  # a unit added since the file was opened has no record: it changed
        shape
        for name, shape in snapshot.units.items()
        if records.get(name, UnitRecord()).needs_job(shape.fingerprint)
    ]
    if mode == "changed":
        return SavePlan(changed)
    taken = {shape.name for shape in changed}
    candidates = [shape for shape in unseen if shape.name not in taken]
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


@dataclass
class Document:
    """An open Python file."""

    uri: str
    path: Path
    snapshot: Snapshot | None = None  # the latest analysed text that parses (may lag the editor)
    version: int | None = None  # the editor's version of ``snapshot``'s text (None: the disk's)
    broken: bool = False  # the last save did not parse: nothing is shown until it does
    import_error: str | None = None  # the module could not be imported (Error at line 1)
    units: dict[str, UnitRecord] = field(default_factory=dict)
    published: object = None  # the last payload sent, to skip identical updates
    baselined: bool = False  # the units' references were taken from the first text that parsed
    asked: int = 0  # analyses asked for, in order: an older one never replaces a newer one
    shown: int = 0  # the order number of ``snapshot``
    served_stale: bool = False  # a lens was answered from an older text: refresh them later
    last_edit: int | None = None  # 1-based line of the last edit (untested units near it first)
    saving: asyncio.Task[None] | None = None  # a save still in its debounce (a newer one wins)

    def record(self, unit: str) -> UnitRecord:
        return self.units.setdefault(unit, UnitRecord())

    def next_job(
        self, shape: UnitShape, snapshot: Snapshot, location: ModuleLocation, settings: Settings
    ) -> Job:
        """The unit's next job, from the saved ``snapshot``: it starts from the unit's earlier
        tests, those its previous job streamed so far included (the scheduler cancels that one)."""
        record = self.record(shape.name)
        if record.job is not None:
            record.add_seeds(record.job.streamed)
        record.job = Job(self.uri, shape, snapshot, location, settings, seeds=list(record.seeds))
        return record.job

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


class DocumentStore:
    """The files the server knows (open in the editor, or asked about) and their analyses.

    ``editor_text(uri)`` is the editor's buffer of an open document and ``editor_version(uri)``
    its version; ``module_name(path)`` the dotted name the file is imported under;
    ``refreshed(uri)`` is called when a newer analysis of the document arrived. Analyses run in
    the ``Analyser`` (another process); requests never wait long for them (``latest``).
    """

    def __init__(
        self,
        editor_text: Callable[[str], str],
        editor_version: Callable[[str], int | None],
        module_name: Callable[[Path], str],
        refreshed: Callable[[str], None],
        analyser: Analyser,
    ) -> None:
        self.documents: dict[str, Document] = {}
        self.open: set[str] = set()
        self.editor_text = editor_text
        self.editor_version = editor_version
        self.module_name = module_name
        self.refreshed = refreshed
        self.analyser = analyser

    def document(self, uri: str) -> Document:
        doc = self.documents.get(uri)
        if doc is None:
            path = to_fs_path(uri)
            if path is None:
                raise CommandError(f"miogen only works on files, not {uri}")
            doc = self.documents[uri] = Document(uri, Path(path))
        return doc

    # --- analyses ---------------------------------------------------------------------------

    def analysis(
        self, doc: Document, source: str, version: int | None, *, keep: bool = False
    ) -> asyncio.Future[Snapshot]:
        """The analysis of ``source`` (raises SourceSyntaxError, or Superseded unless ``keep``);
        when it arrives it becomes the document's snapshot unless a newer one did first."""
        future = self.analyser.analysis(
            doc.uri, source, str(doc.path), self.module_name(doc.path), keep=keep
        )
        doc.asked += 1
        order = doc.asked
        future.add_done_callback(lambda done: self._arrived(doc, order, version, done))
        return future

    def _arrived(
        self, doc: Document, order: int, version: int | None, done: asyncio.Future[Snapshot]
    ) -> None:
        if done.cancelled() or done.exception() is not None or order < doc.shown:
            return  # mid-edit text that does not parse: the last text that parsed stays
        doc.shown, doc.snapshot, doc.version = order, done.result(), version
        doc.remember_baseline(doc.snapshot)
        if self.documents.get(doc.uri) is doc:
            self.refreshed(doc.uri)

    def edited(self, uri: str) -> None:
        """The editor's text changed: analyse it (without waiting)."""
        doc = self.documents.get(uri)
        if doc is not None and uri in self.open:
            self.analysis(doc, self.editor_text(uri), self.editor_version(uri))

    async def analyse_disk(self, doc: Document) -> Snapshot:
        """The file as saved (raises OSError or SourceSyntaxError)."""
        return await self.saved_analysis(doc, await self.read(doc))

    async def read(self, doc: Document) -> str:
        """The file's text on disk, decoded as Python would (raises OSError, SourceSyntaxError)."""
        return await asyncio.to_thread(_read, doc.path)

    def saved_analysis(self, doc: Document, source: str) -> asyncio.Future[Snapshot]:
        """The analysis of the saved ``source`` (the editor's, usually under way already)."""
        editor = doc.uri in self.open and self.editor_text(doc.uri) == source
        version = self.editor_version(doc.uri) if editor else None
        return self.analysis(doc, source, version, keep=True)

    async def changed_meanwhile(
        self, doc: Document, source: str, analysis: asyncio.Future[Snapshot]
    ) -> tuple[tuple[str, int], ...]:
        """The units whose code changed in the saved ``source``, with their branch targets, if
        a parse and a few hashes (``changed_at_a_glance``, on a thread) find them before
        ``analysis`` is done: what a save shows as queued meanwhile. () once it is done."""
        previous = doc.snapshot
        if previous is None or analysis.done():
            return ()
        glance = asyncio.ensure_future(
            asyncio.to_thread(changed_at_a_glance, previous, source, doc.units)
        )
        first: set[asyncio.Future[Any]] = {analysis, glance}
        await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
        if analysis.done() or not glance.done() or glance.exception() is not None:
            glance.cancel()  # too late to tell
            return ()
        return tuple((name, len(previous.units[name].targets)) for name in glance.result())

    async def latest(
        self, uri: str, patience: float = PATIENCE, *, parsing: bool = False
    ) -> Snapshot | None:
        """The analysis of the editor's text if it is there within ``patience`` seconds, else the
        latest that finished (and the lenses are refreshed once the newer one arrives). When the
        editor's text does not parse: the last text that did, or None if ``parsing``.
        """
        doc = self.documents.get(uri)
        if doc is None or uri not in self.open:
            return None
        source = self.editor_text(uri)
        if doc.snapshot is not None and doc.snapshot.source == source:
            return None if doc.broken else doc.snapshot
        future = self.analysis(doc, source, self.editor_version(uri))
        if not future.done():
            await asyncio.wait({future}, timeout=self._patience(doc, source, patience))
        failure = future.exception() if future.done() and not future.cancelled() else None
        if future.done() and not future.cancelled() and failure is None:
            return None if doc.broken else future.result()
        if parsing and isinstance(failure, SourceSyntaxError):
            return None
        doc.served_stale = True
        return None if doc.broken else doc.snapshot

    async def first_look(self, uri: str) -> Snapshot | Outline | None:
        """What lenses are made of: ``latest``, except on a file just opened whose analysis is
        not done: then at once an outline of the editor's text from a parse (in a thread; the
        analysis would give the same lenses: a file just opened has no results to count), and
        the lenses are refreshed when the analysis arrives. A text longer than
        ``OUTLINE_CHARACTERS`` waits for its analysis (and past the analyser's limit gets none)."""
        doc = self.documents.get(uri)
        if doc is None or uri not in self.open or doc.snapshot is not None:
            return await self.latest(uri)
        source = self.editor_text(uri)
        if len(source) > OUTLINE_CHARACTERS:
            return await self.latest(uri)
        future = self.analysis(doc, source, self.editor_version(uri))
        if future.done() or doc.snapshot is not None:
            return await self.latest(uri)
        doc.served_stale = True
        return await asyncio.to_thread(outline, source)

    def _patience(self, doc: Document, source: str, patience: float) -> float | None:
        """How long to wait for the analysis of ``source``: all of it for a file just opened
        (nothing older to answer from), else up to ``patience``, and not at all when it will
        not be done by then (typing into a long file: the older analysis answers at once)."""
        if doc.snapshot is None:
            return None
        expected = self.analyser.expected_in(doc.uri, source)
        return 0.0 if expected is not None and expected > patience else patience

    async def any_text(self, uri: str) -> Snapshot | None:
        """The editor's text of an open file, the disk's of a closed one; None if unreadable."""
        if uri in self.open:
            return await self.latest(uri, parsing=True)
        try:
            return await self.analyse_disk(self.document(uri))
        except (CommandError, OSError, SourceSyntaxError):
            return None

    def close(self, uri: str) -> None:
        self.open.discard(uri)
        self.analyser.forget(uri)

    def counts(self, uri: str, shape: UnitShape) -> tuple[int, int] | None:
        """(covered, total) of the unit's current result; None before the first or when stale."""
        view = self.current_view(uri, shape)
        return (len(view.covered), view.total) if view is not None else None

    def current_view(self, uri: str, shape: UnitShape) -> UnitView | None:
        """The unit's current result, if it is of the unit as it is now (not stale)."""
        doc = self.documents.get(uri)
        view = doc.record(shape.name).view if doc is not None else None
        if view is None or view.fingerprint != shape.fingerprint:
            return None
        return view


def _read(path: Path) -> str:
    return read_source(path)
