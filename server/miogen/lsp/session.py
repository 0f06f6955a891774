"""The server's reactions: files opened, edited, saved and closed; jobs started; results shown.

A session is made of parts that each do one thing, handed to whoever needs them: the ``Client``
(what the editor is told and asked), the ``Locator`` (folders, project roots, settings per file),
the ``DocumentStore`` (texts, analyses, per-unit records), the ``Scheduler`` (jobs), the
``JobReporter`` (jobs into records and messages) and ``Commands`` (actions and commands). Every
method runs on the event loop; slow work goes to threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from miogen.errors import SourceSyntaxError
from miogen.lsp import convert
from miogen.lsp.client import Client
from miogen.lsp.commands import Commands
from miogen.lsp.documents import Document, DocumentStore
from miogen.lsp.jobs import Job, Scheduler
from miogen.lsp.locator import Locator
from miogen.lsp.present import present
from miogen.lsp.protocol import COVERAGE, CommandError, UnitInfo
from miogen.lsp.reporting import JobReporter
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.project import is_test_file

SAVE_DEBOUNCE = 0.25  # saves closer together than this start one round of jobs
CHANGE_DEBOUNCE = 0.15  # typing re-analyses the buffer at most this often


class Session:
    """A save is debounced, the saved text analysed off the loop, and each unit whose
    fingerprint differs from its reference gets a job; ``publish`` renders a document's records
    on its current text and sends diagnostics plus ``miogen/coverage`` when they changed. Typing
    re-renders too, so a unit whose code is edited goes stale at once.
    """

    def __init__(self, ls: LanguageServer) -> None:
        self.client = Client(ls)
        self.locator = Locator(self.client.folders, self.client.warn)
        self.store = DocumentStore(self.client.text, self._module_name, self.publish)
        self.reporter = JobReporter(self.client, self.store, self.publish, self._cancel_job)
        self.scheduler = Scheduler(self.reporter)
        self.commands = Commands(self.store, self.locator, self.client, self)

    def _module_name(self, path: Path) -> str:
        return self.locator.location(path).module_name

    # --- settings -------------------------------------------------------------------------------

    def configure(self, raw: Any, origin: str) -> None:
        settings = self.locator.configure(raw, origin)
        self.client.log(f"miogen: settings: {settings.describe()}")
        for uri in self.store.open:
            self.publish(uri)
        self.scheduler.pump()

    async def pull_configuration(self) -> None:
        """Ask for section ``miogen`` once unscoped and once per workspace folder (``scopeUri``);
        a folder's answer wins over the unscoped one for its files."""
        folders = self.client.folders()
        answer = await self.client.configuration(folders)
        if not answer:
            return
        self.locator.configure_folders(dict(zip(folders, answer[1:], strict=False)))
        self.configure(answer[0], "workspace/configuration")
        for folder in folders:
            if self.locator.folder_layers.get(folder, {}) != self.locator.config_layer:
                described = self.locator.settings_in(folder).describe()
                self.client.log(f"miogen: settings for {folder}: {described}")

    def folders_changed(self) -> None:
        folders = ", ".join(str(folder) for folder in self.client.folders()) or "none"
        self.client.log(f"miogen: workspace folders: {folders}")
        self.scheduler.cancel_where(
            lambda job: self.locator.folder_of(job.location.path) is None, "outside the workspace"
        )

    # --- documents ------------------------------------------------------------------------------

    def opened(self, uri: str) -> None:
        try:
            doc = self.store.document(uri)
        except CommandError:
            return
        self.store.open.add(uri)
        self.client.spawn(self._opened(doc))

    async def _opened(self, doc: Document) -> None:
        try:
            await self.store.analyse(doc, self.client.text(doc.uri))
        except SourceSyntaxError:
            return
        doc.published = None
        self.publish(doc.uri)

    def changed(self, uri: str) -> None:
        doc = self.store.documents.get(uri)
        if doc is not None:
            doc.change_timer = self._debounce(
                doc.change_timer, CHANGE_DEBOUNCE, lambda: self.store.refresh(doc)
            )

    async def units(self, uri: str) -> list[UnitInfo]:
        """The ``miogen/units`` answer: from the editor's text, or from disk for a closed file."""
        snapshot = await self.store.any_text(uri)
        if snapshot is None:
            return []
        codec = self.client.codec
        return [convert.unit_json(snapshot, shape, codec) for shape in snapshot.units.values()]

    def saved(self, uri: str) -> None:
        doc = self.store.documents.get(uri)
        if doc is not None:
            doc.save_timer = self._debounce(doc.save_timer, SAVE_DEBOUNCE, lambda: self._saved(doc))

    def _debounce(
        self,
        timer: asyncio.TimerHandle | None,
        delay: float,
        work: Callable[[], Coroutine[Any, Any, Any]],
    ) -> asyncio.TimerHandle:
        """Run ``work()`` after ``delay`` unless called again first (the older call is dropped)."""
        if timer is not None:
            timer.cancel()
        return asyncio.get_running_loop().call_later(delay, lambda: self.client.spawn(work()))

    async def _saved(self, doc: Document) -> None:
        doc.save_timer = None
        try:
            snapshot = await self.store.analyse_disk(doc)
        except OSError as error:
            self.client.warn(f"miogen: cannot read {doc.path}: {error}")
            return
        except SourceSyntaxError as error:
            self._broken(doc, error)
            return
        doc.broken = False
        settings = self.locator.settings_for(doc.path)
        if not settings.on_save:
            self.client.log(f"miogen: {doc.path.name} saved; onSave is off", types.MessageType.Log)
        elif is_test_file(doc.path):
            self.client.log(
                f"miogen: {doc.path.name} is a test file; nothing to generate",
                types.MessageType.Log,
            )
        elif self._allowed(doc.path):
            self._schedule_changed(doc, snapshot)
        self.publish(doc.uri)

    def _broken(self, doc: Document, error: SourceSyntaxError) -> None:
        doc.broken = True
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri, "broken")
        self.client.log(
            f"miogen: {doc.path.name} does not parse (line {error.line}); its results are hidden "
            "until it does"
        )
        self.publish(doc.uri)

    def _allowed(self, path: Path) -> bool:
        if self.locator.folder_of(path) is not None:
            return True
        self.client.warn(f"miogen: not running {path}: it is outside the workspace folders")
        return False

    def _schedule_changed(self, doc: Document, snapshot: Snapshot) -> None:
        changed = [s for n, s in snapshot.units.items() if doc.record(n).needs_job(s.fingerprint)]
        for shape in changed:
            self.start_job(doc, shape, snapshot)
        names = ", ".join(shape.name for shape in changed) or "nothing (no unit changed)"
        self.client.log(f"miogen: {doc.path.name} saved; generating {names}", types.MessageType.Log)
        gone = set(doc.units) - set(snapshot.units)
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri and job.unit in gone, "removed")

    def closed(self, uri: str) -> None:
        self.store.open.discard(uri)
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        for timer in (doc.save_timer, doc.change_timer):
            if timer is not None:
                timer.cancel()
        self.scheduler.cancel_where(lambda job: job.uri == uri, "closed")
        doc.published = None
        self.client.publish_diagnostics(uri, [])

    def shutdown(self) -> None:
        self.client.stopped = True
        self.scheduler.cancel_where(lambda job: True, "shutdown")

    # --- jobs (``commands.JobControl``) ---------------------------------------------------------

    def start_job(self, doc: Document, shape: UnitShape, snapshot: Snapshot) -> Job:
        """A newer job for a unit cancels the older one and starts from its tests."""
        record = doc.record(shape.name)
        if record.job is not None and record.job.active:
            self.scheduler.cancel(record.job, "superseded")
        if record.job is not None:
            record.add_seeds(record.job.streamed)
        location = self.locator.location(doc.path)
        settings: Settings = self.locator.settings_for(doc.path)
        job = Job(doc.uri, shape, snapshot, location, settings, seeds=list(record.seeds))
        record.job = job
        return self.scheduler.submit(job)

    def cancel(self, uri: str, unit: str) -> bool:
        job = self.scheduler.job(uri, unit)
        return job is not None and self.scheduler.cancel(job, "user")

    def summary(self, job: Job) -> str:
        return self.reporter.summary(job)

    def _cancel_job(self, job: Job) -> None:
        self.scheduler.cancel(job, "user")

    # --- publishing -----------------------------------------------------------------------------

    def publish(self, uri: str) -> None:
        """Send diagnostics and the coverage notification when what they show has changed."""
        doc = self.store.documents.get(uri)
        if doc is None or uri not in self.store.open or self.client.stopped:
            return
        version = self.client.version(uri)
        settings = self.locator.settings_for(doc.path)
        diagnostics, coverage = present(doc, settings, self.client.codec, version)
        key = (diagnostics, {**coverage, "version": None})
        if key == doc.published:
            return
        doc.published = key
        self.client.publish_diagnostics(uri, diagnostics, version)
        self.client.notify(COVERAGE, coverage)
