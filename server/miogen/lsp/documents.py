"""The document store: per file its analysed text, per unit its views, failures, seeds and job.

Analysis is static (invariant 1) and runs off the event loop; an older, slower analysis never
replaces a newer one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pygls.uris import to_fs_path

from miogen.errors import SourceSyntaxError
from miogen.lsp.jobs import Job
from miogen.lsp.protocol import CommandError, UnitState
from miogen.lsp.snapshot import Snapshot, UnitShape, take
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

    def state(self, fingerprint: str) -> UnitState:
        """The unit's state in the coverage notification (docs/lsp-protocol.md)."""
        job = self.job
        if job is not None and job.active and job.shape.fingerprint == fingerprint:
            return "running" if job.state == "running" else "queued"
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


class DocumentStore:
    """The files the server knows (open in the editor, or asked about) and their analyses.

    ``editor_text(uri)`` is the editor's buffer of an open document; ``module_name(path)`` the
    dotted name the file is imported under; ``refreshed(uri)`` is called when a re-analysis of
    the editor's text may have changed what the document shows.
    """

    def __init__(
        self,
        editor_text: Callable[[str], str],
        module_name: Callable[[Path], str],
        refreshed: Callable[[str], None],
    ) -> None:
        self.documents: dict[str, Document] = {}
        self.open: set[str] = set()
        self.editor_text = editor_text
        self.module_name = module_name
        self.refreshed = refreshed

    def document(self, uri: str) -> Document:
        doc = self.documents.get(uri)
        if doc is None:
            path = to_fs_path(uri)
            if path is None:
                raise CommandError(f"miogen only works on files, not {uri}")
            doc = self.documents[uri] = Document(uri, Path(path))
        return doc

    async def analyse(self, doc: Document, source: str) -> Snapshot:
        """Raises SourceSyntaxError; a slower analysis of older text never replaces a newer one."""
        doc.analysis += 1
        ticket = doc.analysis
        module = self.module_name(doc.path)
        snapshot = await asyncio.to_thread(take, source, str(doc.path), module)
        if ticket == doc.analysis or doc.snapshot is None:
            doc.snapshot = snapshot
        doc.remember_baseline(snapshot)
        return snapshot

    async def analyse_disk(self, doc: Document) -> Snapshot:
        """The file as saved (raises OSError or SourceSyntaxError)."""
        return await self.analyse(doc, await asyncio.to_thread(_read, doc.path))

    async def refresh(self, doc: Document) -> Snapshot | None:
        """Re-analyse the editor's text; a unit whose code changed goes stale at once."""
        source = self.editor_text(doc.uri)
        if doc.snapshot is None or doc.snapshot.source != source:
            try:
                await self.analyse(doc, source)
            except SourceSyntaxError:
                return None  # mid-edit: keep showing the last text that parsed
        doc.broken = False
        self.refreshed(doc.uri)
        return doc.snapshot

    async def current(self, uri: str) -> Snapshot | None:
        """The analysis of the editor's current text, or None when it does not parse."""
        doc = self.documents.get(uri)
        if doc is None or uri not in self.open:
            return None
        source = self.editor_text(uri)
        if doc.snapshot is not None and doc.snapshot.source == source:
            return None if doc.broken else doc.snapshot
        return await self.refresh(doc)

    async def any_text(self, uri: str) -> Snapshot | None:
        """The editor's text of an open file, the disk's of a closed one; None if unreadable."""
        if uri in self.open:
            return await self.current(uri)
        try:
            return await self.analyse_disk(self.document(uri))
        except (CommandError, OSError, SourceSyntaxError):
            return None

    def last_good(self, uri: str) -> Snapshot | None:
        """The last analysed text that parsed (while the user is mid-edit), unless a save broke it."""
        doc = self.documents.get(uri)
        return doc.snapshot if doc is not None and not doc.broken else None

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
    return path.read_text(encoding="utf-8")
