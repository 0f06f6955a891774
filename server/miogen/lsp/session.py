"""The server's state and its reactions: files opened, edited, saved and closed; jobs that stream.

Handlers in ``features/`` stay thin and call in here. Every method runs on the event loop; slow
work (reading files, analysing them, generating, verifying, merging) goes to threads.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from miogen.errors import SourceSyntaxError
from miogen.lsp import convert
from miogen.lsp.commands import CommandError, Commands
from miogen.lsp.documents import Document
from miogen.lsp.jobs import Job, Scheduler
from miogen.lsp.present import present
from miogen.lsp.reporting import JobReporter
from miogen.lsp.settings import ProjectSettings, Settings, read_layer, resolve, section
from miogen.lsp.snapshot import Snapshot, UnitShape, take
from miogen.project import ModuleLocation, find_project_root, is_test_file, locate

logger = logging.getLogger(__name__)

SAVE_DEBOUNCE = 0.25  # saves closer together than this start one round of jobs
CHANGE_DEBOUNCE = 0.15  # typing re-analyses the buffer at most this often
COVERAGE = "miogen/coverage"


class Session:
    """Everything the server knows and does between the editor and the jobs.

    Documents hold per-unit records (views, failures, seeds, the running job). A save is
    debounced, the saved text analysed off the loop, and each unit whose fingerprint differs from
    its reference gets a job; the scheduler runs it, and ``JobReporter`` turns what it streams
    into records; ``publish`` renders a document's records on its current text and sends
    diagnostics plus ``miogen/coverage`` when they changed. Typing re-renders too, so a unit
    whose code is edited goes stale at once. ``Commands`` serves code actions and commands.
    """

    def __init__(self, ls: LanguageServer) -> None:
        self.ls = ls
        self.documents: dict[str, Document] = {}
        self.open: set[str] = set()
        self.reporter = JobReporter(self)
        self.commands = Commands(self)
        self.scheduler = Scheduler(self.reporter)
        self.init_layer: dict = {}
        self.config_layer: dict = {}
        self.folder_layers: dict[Path, dict[str, object]] = {}  # asked per folder (scopeUri)
        self.projects = ProjectSettings()
        self._tasks: set[asyncio.Task] = set()
        self.stopped = False  # after shutdown: jobs still ending must not write to the client

    # --- messages and background tasks -------------------------------------------------------

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        if not self.stopped:
            self.ls.window_log_message(types.LogMessageParams(type=kind, message=message))

    def notify(self, method: str, payload: dict) -> None:
        if not self.stopped:
            self.ls.protocol.notify(method, payload)

    def warn(self, message: str) -> None:
        self.log(message, types.MessageType.Warning)

    def spawn(self, work: Coroutine) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("background task failed", exc_info=task.exception())
            self.log(f"miogen: internal error: {task.exception()!r}", types.MessageType.Error)

    def supports(self, dotted: str) -> bool:
        value = self.ls.client_capabilities
        for part in dotted.split("."):
            value = getattr(value, part, None)
        return bool(value)

    # --- settings ---------------------------------------------------------------------------

    def configure(self, raw, origin: str) -> None:
        values, problems = read_layer(section(raw), origin)
        for problem in problems:
            self.warn(problem)
        if origin == "initializationOptions":
            self.init_layer = values
        else:
            self.config_layer = values
        self.log(f"miogen: settings: {resolve(self.init_layer, self.config_layer).describe()}")
        for uri in self.open:
            self.publish(uri)
        self.scheduler.pump()

    async def pull_configuration(self) -> None:
        """Ask for section ``miogen`` once unscoped and once per workspace folder (``scopeUri``).

        A multi-root workspace can set other values per folder (one virtual environment and one
        tests folder each); the folder's answer wins over the unscoped one for its files.
        """
        if not self.supports("workspace.configuration"):
            return
        folders = self.folders()
        items = [types.ConfigurationItem(section="miogen")] + [
            types.ConfigurationItem(section="miogen", scope_uri=folder.as_uri())
            for folder in folders
        ]
        try:
            answer = await self.ls.workspace_configuration_async(
                types.ConfigurationParams(items=items)
            )
        except Exception as error:  # noqa: BLE001 - a client that fails here keeps the defaults
            self.warn(f"miogen: workspace/configuration failed: {error}")
            return
        if not answer:
            return
        self.folder_layers = {}
        for folder, raw in zip(folders, answer[1:], strict=False):
            values, problems = read_layer(section(raw), f"workspace/configuration for {folder}")
            self.folder_layers[folder] = values
            for problem in problems:
                self.warn(problem)
        self.configure(answer[0], "workspace/configuration")
        for folder in folders:
            if self.folder_layers.get(folder, {}) != self.config_layer:
                self.log(f"miogen: settings for {folder}: {self.settings_in(folder).describe()}")

    def settings_in(self, folder: Path | None) -> Settings:
        """The editor's settings for files of ``folder`` (without the project file)."""
        scoped = self.folder_layers.get(folder, {}) if folder is not None else {}
        return resolve(self.init_layer, self.config_layer, scoped)

    def settings_for(self, path: Path) -> Settings:
        project = self.projects.read(self.project_root(path), self.warn)
        scoped = self.folder_layers.get(self.folder_of(path), {})
        return resolve(self.init_layer, self.config_layer, scoped, project)

    # --- where files are ----------------------------------------------------------------------

    def folders(self) -> list[Path]:
        workspace = self.ls.workspace
        found = [to_fs_path(folder.uri) for folder in workspace.folders.values()]
        if not found and workspace.root_path:
            found = [workspace.root_path]
        return [Path(folder).resolve() for folder in found if folder]

    def folder_of(self, path: Path) -> Path | None:
        inside = [f for f in self.folders() if path.resolve().is_relative_to(f)]
        return max(inside, key=lambda f: len(f.parts)) if inside else None

    def project_root(self, path: Path) -> Path:
        """The nearest pyproject.toml/setup.cfg/.git folder, but never above the workspace folder."""
        root, folder = find_project_root(path.resolve()), self.folder_of(path)
        return root if folder is None or root.is_relative_to(folder) else folder

    def location(self, path: Path) -> ModuleLocation:
        return locate(path, self.project_root(path))

    # --- documents ----------------------------------------------------------------------------

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
        module = self.location(doc.path).module_name
        snapshot = await asyncio.to_thread(take, source, str(doc.path), module)
        if ticket == doc.analysis or doc.snapshot is None:
            doc.snapshot = snapshot
        doc.remember_baseline(snapshot)
        return snapshot

    def opened(self, uri: str) -> None:
        try:
            doc = self.document(uri)
        except CommandError:
            return
        self.open.add(uri)
        self.spawn(self._opened(doc))

    async def _opened(self, doc: Document) -> None:
        try:
            await self.analyse(doc, self.ls.workspace.get_text_document(doc.uri).source)
        except SourceSyntaxError:
            return
        doc.published = None
        self.publish(doc.uri)

    def changed(self, uri: str) -> None:
        doc = self.documents.get(uri)
        if doc is not None:
            doc.change_timer = self._debounce(
                doc.change_timer, CHANGE_DEBOUNCE, lambda: self._refresh(doc)
            )

    async def _refresh(self, doc: Document) -> Snapshot | None:
        """Re-analyse the editor's text; a unit whose code changed goes stale at once."""
        source = self.ls.workspace.get_text_document(doc.uri).source
        if doc.snapshot is None or doc.snapshot.source != source:
            try:
                await self.analyse(doc, source)
            except SourceSyntaxError:
                return None  # mid-edit: keep showing the last text that parsed
        doc.broken = False
        self.publish(doc.uri)
        return doc.snapshot

    async def current(self, uri: str) -> Snapshot | None:
        """The analysis of the editor's current text, or None when it does not parse."""
        doc = self.documents.get(uri)
        if doc is None or uri not in self.open:
            return None
        source = self.ls.workspace.get_text_document(uri).source
        if doc.snapshot is not None and doc.snapshot.source == source:
            return None if doc.broken else doc.snapshot
        return await self._refresh(doc)

    def last_good(self, uri: str) -> Snapshot | None:
        """The last analysed text that parsed (while the user is mid-edit), unless a save broke it."""
        doc = self.documents.get(uri)
        return doc.snapshot if doc is not None and not doc.broken else None

    def counts(self, uri: str, shape: UnitShape) -> tuple[int, int] | None:
        """(covered, total) of the unit's current result; None before the first or when stale."""
        doc = self.documents.get(uri)
        view = doc.record(shape.name).view if doc is not None else None
        if view is None or view.fingerprint != shape.fingerprint:
            return None
        return len(view.covered), view.total

    async def units(self, uri: str) -> list[dict]:
        """The ``miogen/units`` answer: from the editor's text, or from disk for a closed file."""
        if uri in self.open:
            snapshot = await self.current(uri)
        else:
            try:
                doc = self.document(uri)
                snapshot = await self.analyse(doc, await asyncio.to_thread(_read, doc.path))
            except (CommandError, OSError, SourceSyntaxError):
                snapshot = None
        if snapshot is None:
            return []
        codec = self.ls.workspace.position_codec
        return [convert.unit_json(snapshot, shape, codec) for shape in snapshot.units.values()]

    def saved(self, uri: str) -> None:
        doc = self.documents.get(uri)
        if doc is not None:
            doc.save_timer = self._debounce(doc.save_timer, SAVE_DEBOUNCE, lambda: self._saved(doc))

    def _debounce(self, timer, delay: float, work: Callable[[], Coroutine]) -> asyncio.TimerHandle:
        """Run ``work()`` after ``delay`` unless called again first (the older call is dropped)."""
        if timer is not None:
            timer.cancel()
        return asyncio.get_running_loop().call_later(delay, lambda: self.spawn(work()))

    async def _saved(self, doc: Document) -> None:
        doc.save_timer = None
        try:
            snapshot = await self.analyse(doc, await asyncio.to_thread(_read, doc.path))
        except OSError as error:
            self.warn(f"miogen: cannot read {doc.path}: {error}")
            return
        except SourceSyntaxError as error:
            self._broken(doc, error)
            return
        doc.broken = False
        settings = self.settings_for(doc.path)
        if not settings.on_save:
            self.log(f"miogen: {doc.path.name} saved; onSave is off", types.MessageType.Log)
        elif is_test_file(doc.path):
            self.log(
                f"miogen: {doc.path.name} is a test file; nothing to generate",
                types.MessageType.Log,
            )
        elif self._allowed(doc.path):
            self._schedule_changed(doc, snapshot, settings)
        self.publish(doc.uri)

    def _broken(self, doc: Document, error: SourceSyntaxError) -> None:
        doc.broken = True
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri, "broken")
        self.log(
            f"miogen: {doc.path.name} does not parse (line {error.line}); its results are hidden "
            "until it does"
        )
        self.publish(doc.uri)

    def _allowed(self, path: Path) -> bool:
        if self.folder_of(path) is not None:
            return True
        self.warn(f"miogen: not running {path}: it is outside the workspace folders")
        return False

    def _schedule_changed(self, doc: Document, snapshot: Snapshot, settings: Settings) -> None:
        location = self.location(doc.path)
        changed = [s for n, s in snapshot.units.items() if doc.record(n).needs_job(s.fingerprint)]
        for shape in changed:
            self.start_job(doc, shape, snapshot, location, settings)
        names = ", ".join(shape.name for shape in changed) or "nothing (no unit changed)"
        self.log(f"miogen: {doc.path.name} saved; generating {names}", types.MessageType.Log)
        gone = set(doc.units) - set(snapshot.units)
        self.scheduler.cancel_where(lambda job: job.uri == doc.uri and job.unit in gone, "removed")

    def closed(self, uri: str) -> None:
        self.open.discard(uri)
        doc = self.documents.get(uri)
        if doc is None:
            return
        for timer in (doc.save_timer, doc.change_timer):
            if timer is not None:
                timer.cancel()
        self.scheduler.cancel_where(lambda job: job.uri == uri, "closed")
        doc.published = None
        self.ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def shutdown(self) -> None:
        self.stopped = True
        self.scheduler.cancel_where(lambda job: True, "shutdown")

    # --- jobs ---------------------------------------------------------------------------------

    def start_job(
        self,
        doc: Document,
        shape: UnitShape,
        snapshot: Snapshot,
        location: ModuleLocation,
        settings: Settings,
    ) -> Job:
        """A newer job for a unit cancels the older one and starts from its tests."""
        record = doc.record(shape.name)
        if record.job is not None and record.job.active:
            self.scheduler.cancel(record.job, "superseded")
        if record.job is not None:
            record.add_seeds(record.job.streamed)
        job = Job(doc.uri, shape, snapshot, location, settings, seeds=list(record.seeds))
        record.job = job
        return self.scheduler.submit(job)

    # --- publishing ---------------------------------------------------------------------------

    def publish(self, uri: str) -> None:
        """Send diagnostics and the coverage notification when what they show has changed."""
        doc = self.documents.get(uri)
        if doc is None or uri not in self.open or self.stopped:
            return
        version = self.ls.workspace.get_text_document(uri).version
        diagnostics, coverage = present(
            doc, self.settings_for(doc.path), self.ls.workspace.position_codec, version
        )
        key = (diagnostics, {**coverage, "version": None})
        if key == doc.published:
            return
        doc.published = key
        self.ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )
        self.notify(COVERAGE, coverage)


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
