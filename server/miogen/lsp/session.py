"""The server's reactions: files opened, edited, saved and closed; jobs started; results shown.

A session is made of parts that each do one thing, handed to whoever needs them: the ``Client``
(what the editor is told and asked), the ``Locator`` (folders, project roots, settings per file),
the ``Analyser`` (static analyses in another process), the ``DocumentStore`` (texts, analyses,
per-unit records), the ``Scheduler`` (jobs), the ``JobReporter`` (jobs into records and
messages), ``Commands`` (actions and commands) and the ``Watcher`` (files changed on disk).
Handlers (features/) call the session; it calls its parts; nothing here imports a handler.
Every method runs on the event loop; slow work goes to threads or processes.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from miogen.common.errors import SourceSyntaxError
from miogen.common.project import is_test_file
from miogen.lsp import convert
from miogen.lsp.analyser import Analyser, TooBig
from miogen.lsp.client import Client
from miogen.lsp.commands import Commands
from miogen.lsp.documents import Document, DocumentStore
from miogen.lsp.jobs import Job, Scheduler
from miogen.lsp.locator import Locator
from miogen.lsp.onsave import changed_at_a_glance, history_of, plan_save
from miogen.lsp.pathruns import PathRuns
from miogen.lsp.present import present, unit_summary
from miogen.lsp.protocol import COVERAGE, JOB_STATUS, CommandError, UnitInfo
from miogen.lsp.reporting import JobReporter
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.lsp.watching import Watcher

SAVE_DEBOUNCE = 0.1  # saves closer together than this start one round of jobs
_HEADER = re.compile(r"\s*(async\s+def|def|class)\b")


class Session:
    """A save is debounced, the saved text analysed (usually done already: it was the editor's
    text), and ``onsave.plan_save`` picks the units to run; ``publish`` renders a document's
    records on its latest analysis and sends diagnostics plus ``miogen/coverage`` when they
    changed. Typing re-analyses, so a unit whose code is edited goes stale.
    """

    def __init__(self, ls: LanguageServer) -> None:
        self.client = Client(ls)
        self.locator = Locator(self.client.folders, self.client.warn, self.client.log)
        self.analyser = Analyser(warn=self.client.warn)
        self.store = DocumentStore(
            self.client.text, self.client.version, self._module_name, self._analysed, self.analyser
        )
        self.reporter = JobReporter(self.client, self.store, self.publish, self.cancel_job)
        self.scheduler = Scheduler(self.reporter)
        self.scheduler.details = self.analyser.shape
        self.commands = Commands(self.store, self.locator, self.client, self)
        self.paths = PathRuns(self.locator, self.client)
        self.watcher = Watcher(self.store, self.locator, self.client, self.commands, self.publish)

    def _module_name(self, path: Path) -> str:
        return self.locator.location(path).module_name

    # --- settings and lifecycle -----------------------------------------------------------------

    def configure(self, raw: Any, origin: str) -> None:
        settings = self.locator.configure(raw, origin)
        self.client.log(f"miogen: settings: {settings.describe()}")
        for uri in self.store.open:
            self.publish(uri)
        self._warm_up()  # a spare started under other settings is replaced
        self.scheduler.pump()

    def _warm_up(self, doc: Document | None = None) -> None:
        """A worker waiting for the next job of ``doc`` (else of an open document)."""
        if doc is None:
            docs = (self.store.documents.get(uri) for uri in sorted(self.store.open))
            doc = next((found for found in docs if found is not None), None)
        if doc is None or self.client.stopped:
            return
        settings = self.locator.settings_for(doc.path)
        if settings.save_mode == "off":  # no save will want a worker soon
            self.scheduler.spares.discard()
        else:
            self.scheduler.warm_up(settings)

    async def initialized(self) -> None:
        self.analyser.warm_up()
        await self.pull_configuration()
        await self.watcher.register()

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

    def shutdown(self) -> None:
        self.client.stopped = True
        self.scheduler.cancel_where(lambda job: True, "shutdown")
        self.scheduler.spares.close()
        self.analyser.close()
        self.paths.close()

    # --- documents ------------------------------------------------------------------------------

    def opened(self, uri: str) -> None:
        try:
            doc = self.store.document(uri)
        except CommandError:
            return
        self.store.open.add(uri)
        doc.published = None
        self.store.analysis(doc, self.client.text(uri), self.client.version(uri), keep=True)
        self._warm_up(doc)

    def _analysed(self, uri: str) -> None:
        """A newer analysis of the document arrived: show it, and have lenses that were answered
        from an older one asked for again; once typing pauses, the waiting worker analyses the
        text too (a save of it then starts its search sooner)."""
        self.publish(uri)
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        if doc.served_stale:
            doc.served_stale = False
            self.client.refresh_code_lenses()
        snapshot = doc.snapshot
        if snapshot is not None and not self.analyser.busy(uri):
            self._prepare(doc, snapshot.source)

    def _prepare(self, doc: Document, source: str) -> None:
        """Give ``source`` to the waiting worker if a save of the document would generate."""
        if self.client.stopped or doc.uri not in self.store.open:
            return
        settings = self.locator.settings_for(doc.path)
        if settings.save_mode == "off" or is_test_file(doc.path):
            return
        if self.locator.folder_of(doc.path) is not None:
            self.scheduler.prepare(self.locator.location(doc.path), source)

    def changed(self, uri: str, changes: Sequence[object]) -> None:
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        line = _edited_line(changes, doc.snapshot, self.client.text(uri))
        doc.last_edit = line if line is not None else doc.last_edit
        self.store.edited(uri)

    async def units(self, uri: str) -> list[UnitInfo]:
        """The ``miogen/units`` answer: from the editor's text, or from disk for a closed file."""
        snapshot = await self.store.any_text(uri)
        if snapshot is None:
            return []
        codec = self.client.codec
        return [convert.unit_json(snapshot, shape, codec) for shape in snapshot.units.values()]

    async def hover(self, uri: str, line: int) -> types.Hover | None:
        """On a unit's first lines (decorators to ``def``/``class``): what miogen knows of it."""
        doc = self.store.documents.get(uri)
        snapshot = await self.store.latest(uri)
        if doc is None or snapshot is None or is_test_file(doc.path):
            return None
        for shape in snapshot.units.values():
            if shape.unit.line - 1 <= line <= _header_end(snapshot, shape) - 1:
                text = unit_summary(doc, shape)
                markdown = self.client.supports_markdown_hover()
                return convert.hover(text, snapshot, shape, self.client.codec, markdown)
        return None

    def saved(self, uri: str) -> None:
        doc = self.store.documents.get(uri)
        if doc is not None:
            doc.save_timer = self._debounce(doc.save_timer, SAVE_DEBOUNCE, lambda: self._saved(doc))
            self.client.spawn(self._prepare_saved(doc))

    async def _prepare_saved(self, doc: Document) -> None:
        """The waiting worker analyses the saved text while the save is debounced and analysed
        here (its job then starts past its analysis)."""
        try:
            source = await self.store.read(doc)
        except (OSError, SourceSyntaxError):
            return  # the save's own read reports it
        self._prepare(doc, source)

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
            source = await self.store.read(doc)
        except OSError as error:
            self.client.warn(f"miogen: cannot read {doc.path}: {error}")
            return
        except SourceSyntaxError as error:  # Python could not decode it either
            self._retract(doc)
            self._broken(doc, error)
            return
        analysis = self.store.saved_analysis(doc, source)
        settings = self.locator.settings_for(doc.path)
        if not analysis.done() and self._generates(doc, settings, quiet=True):
            self.client.spawn(self._announce(doc, source, analysis))
        try:
            snapshot = await analysis
        except SourceSyntaxError as error:
            self._retract(doc)
            self._broken(doc, error)
            return
        except TooBig:
            return  # the analyser told the client
        doc.broken = False
        settings = self.locator.settings_for(doc.path)
        if self._generates(doc, settings):
            await self._schedule(doc, snapshot, settings)
        self._retract(doc)
        self.publish(doc.uri)

    def _generates(self, doc: Document, settings: Settings, quiet: bool = False) -> bool:
        """Whether a save of the document generates anything (if not, the log says why)."""
        name = doc.path.name
        if settings.save_mode == "off":
            switch = "generateOnSave" if settings.on_save else "onSave"
            reason = f"miogen: {name} saved; {switch} is off"
        elif is_test_file(doc.path):
            reason = f"miogen: {name} is a test file; nothing to generate"
        elif self.locator.folder_of(doc.path) is None:
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
        for name in names:
            doc.record(name).announced = True
            shape = previous.units[name]
            status = convert.job_status(
                doc.uri, name, "queued", 0.0, 0, len(shape.targets), "queued"
            )
            self.client.notify(JOB_STATUS, status)
        self.publish(doc.uri)

    def _retract(self, doc: Document) -> None:
        """Announced units that got no job after all (a save that schedules nothing for them)."""
        for name, record in doc.units.items():
            if record.announced:
                record.announced = False
                if record.job is None or not record.job.active:
                    status = convert.job_status(
                        doc.uri, name, "cancelled", 0.0, 0, 0, "not generated"
                    )
                    self.client.notify(JOB_STATUS, status)

    def _broken(self, doc: Document, error: SourceSyntaxError) -> None:
        doc.broken = True
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri, "broken")
        self.client.log(
            f"miogen: {doc.path.name} saved; it does not parse at line {error.line}: nothing is "
            "generated, and its results are hidden until it parses"
        )
        self.publish(doc.uri)

    async def _schedule(self, doc: Document, snapshot: Snapshot, settings: Settings) -> None:
        mode = settings.save_mode
        recorded: set[str] = set()
        if mode == "untested":
            root = self.locator.project_root(doc.path)
            recorded = await asyncio.to_thread(history_of, root, doc.path)
        busy = {j.unit for j in self.scheduler.latest.values() if j.active and j.uri == doc.uri}
        plan = plan_save(
            snapshot, doc.units, mode, recorded, doc.last_edit, settings.max_parallel_jobs, busy
        )
        for shape in plan.units:
            self.start_job(doc, shape, snapshot)
        self.client.log(
            f"miogen: {doc.path.name} saved; {plan.describe(mode)}", types.MessageType.Log
        )
        gone = set(doc.units) - set(snapshot.units)
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri and job.unit in gone, "removed")

    def closed(self, uri: str) -> None:
        self.store.close(uri)
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        if doc.save_timer is not None:
            doc.save_timer.cancel()
        self.scheduler.cancel_where(lambda job: job.uri == uri, "closed")
        doc.published = None
        self.client.publish_diagnostics(uri, [])

    def files_changed(self, changes: Sequence[types.FileEvent]) -> None:
        self.client.spawn(self.watcher.changed(changes))

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

    def cancel_job(self, job: Job) -> None:
        self.scheduler.cancel(job, "user")

    # --- publishing -----------------------------------------------------------------------------

    def publish(self, uri: str) -> None:
        """Send diagnostics and the coverage notification when what they show has changed.

        Both are of the latest analysed text and carry its version (not the editor's newest).
        """
        doc = self.store.documents.get(uri)
        if doc is None or uri not in self.store.open or self.client.stopped:
            return
        shown = [name for name, record in doc.units.items() if record.view is not None]
        if doc.snapshot is not None and doc.snapshot.undetailed(shown):  # a long text's outline:
            details = self.analyser.details(doc.snapshot, shown)  # shown once its units are found
            details.add_done_callback(lambda done: self.publish(uri) if _found(done) else None)
            return
        settings = self.locator.settings_for(doc.path)
        diagnostics, coverage = present(doc, settings, self.client.codec, doc.version)
        key = (diagnostics, {**coverage, "version": None})
        if key == doc.published:
            return
        doc.published = key
        self.client.publish_diagnostics(uri, diagnostics, doc.version)
        self.client.notify(COVERAGE, coverage)


def _found(done: asyncio.Future[Snapshot]) -> bool:
    return not done.cancelled() and done.exception() is None


def _header_end(snapshot: Snapshot, shape: UnitShape) -> int:
    """The 1-based line of the unit's ``def`` or ``class`` keyword (after its decorators)."""
    for line in range(shape.unit.line, min(shape.unit.end_line, len(snapshot.lines)) + 1):
        if _HEADER.match(snapshot.lines[line - 1]):
            return line
    return shape.unit.line


def _edited_line(changes: Sequence[object], before: Snapshot | None, after: str) -> int | None:
    """The 1-based line of the last change: from its range, or the first line that differs."""
    for change in reversed(changes):
        if isinstance(change, types.TextDocumentContentChangePartial):
            return change.range.start.line + 1
    if before is None:
        return None
    old, new = before.lines, after.splitlines(keepends=True)
    differing = (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b)
    return next(differing, min(len(old), len(new))) + 1
