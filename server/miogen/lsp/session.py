"""The server's state and its reactions: files opened, edited, saved and closed; jobs that stream.

Handlers in ``features/`` stay thin and call in here. Every method runs on the event loop; slow
work (reading files, analysing them, generating, verifying, merging) goes to threads.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from miogen.errors import SourceSyntaxError
from miogen.lsp import convert, insert
from miogen.lsp.documents import Document
from miogen.lsp.jobs import Job, Scheduler
from miogen.lsp.present import present
from miogen.lsp.settings import ProjectSettings, Settings, plain, read_layer, resolve, section
from miogen.lsp.snapshot import Snapshot, UnitShape, take
from miogen.lsp.views import final_view, streamed_view
from miogen.project import ModuleLocation, find_project_root, locate

logger = logging.getLogger(__name__)

SAVE_DEBOUNCE = 0.25  # saves closer together than this start one round of jobs
CHANGE_DEBOUNCE = 0.15  # typing re-analyses the buffer at most this often
COVERAGE = "miogen/coverage"
JOB_STATUS = "miogen/jobStatus"


class CommandError(JsonRpcException):
    """A command that cannot run; the message goes back to the editor as the request's error."""

    CODE = -32803  # LSP RequestFailed


class Session:
    def __init__(self, ls: LanguageServer) -> None:
        self.ls = ls
        self.documents: dict[str, Document] = {}
        self.open: set[str] = set()
        self.scheduler = Scheduler(self)
        self.init_layer: dict = {}
        self.config_layer: dict = {}
        self.projects = ProjectSettings()
        self._tasks: set[asyncio.Task] = set()
        self._insertions: dict[tuple, tuple[list, insert.Insertion]] = {}
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

    def _supports(self, dotted: str) -> bool:
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
        self.scheduler._pump()

    async def pull_configuration(self) -> None:
        if not self._supports("workspace.configuration"):
            return
        item = types.ConfigurationItem(section="miogen")
        try:
            answer = await self.ls.workspace_configuration_async(
                types.ConfigurationParams(items=[item])
            )
        except Exception as error:  # noqa: BLE001 - a client that fails here keeps the defaults
            self.warn(f"miogen: workspace/configuration failed: {error}")
            return
        if answer:
            self.configure(answer[0], "workspace/configuration")

    def settings_for(self, path: Path) -> Settings:
        project = self.projects.read(self.project_root(path), self.warn)
        return resolve(self.init_layer, self.config_layer, project)

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

    async def code_actions(
        self, uri: str, lines: tuple[int, int], diagnostics: list, only: list[str]
    ) -> list[types.CodeAction]:
        """Per unit under the cursor (or named by a diagnostic): insert its tests, or generate."""
        snapshot = await self.current(uri)
        if snapshot is None:
            return []
        doc = self.documents[uri]
        actions: list[types.CodeAction] = []
        for shape in snapshot.units.values():
            own = [d for d in diagnostics if _uncovered_in(d, shape.name)]
            touched = shape.unit.line - 1 <= lines[1] and lines[0] <= shape.unit.end_line - 1
            if touched or own:
                actions += await self._unit_actions(doc, shape, own, only)
        return actions

    async def _unit_actions(
        self, doc: Document, shape: UnitShape, own: list, only: list[str]
    ) -> list[types.CodeAction]:
        final = doc.record(shape.name).final
        insertion = None
        if final is not None and final.tests and final.fingerprint == shape.fingerprint:
            insertion = await self.plan_insertion(doc, final.tests)
        source, quickfix = types.CodeActionKind.Source, types.CodeActionKind.QuickFix
        if insertion is None or insertion.count == 0:
            wanted = convert.wanted(source, only)
            return [convert.generate_action(doc.uri, shape.name, source)] if wanted else []
        title = (
            f"Insert {insertion.count} generated tests for {shape.name} into {insertion.shown_path}"
        )
        actions = [convert.insert_action(title, source, insertion.edit)]
        actions = actions if convert.wanted(source, only) else []
        if convert.wanted(quickfix, only):
            actions += [convert.insert_action(title, quickfix, insertion.edit, d) for d in own]
        return actions

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

    def job_changed(self, job: Job) -> None:
        if self.stopped:
            return
        if job.state == "running":
            if job.seeds:
                self.log(
                    f"miogen: {job.unit}: the search starts from {len(job.seeds)} earlier tests"
                )
            self.spawn(self._begin_progress(job))
        started = f"started from {len(job.seeds)} earlier tests" if job.seeds else "searching"
        self._status(job, job.state, started if job.state == "running" else "queued")
        self.publish(job.uri)

    def job_progress(self, job: Job) -> None:
        if self.stopped:
            return
        record = self.documents[job.uri].record(job.unit)
        if record.job is job:
            record.live = streamed_view(job.shape, job.snapshot, job.covered_ids)
        covered, total = len(job.covered_ids), len(job.shape.targets)
        label = convert.counts_label(covered, total)
        if job.token is not None:
            self.ls.work_done_progress.report(
                job.token,
                types.WorkDoneProgressReport(percentage=_percent(job), message=label),
            )
        self._status(job, "running", label)
        self.publish(job.uri)

    def job_finished(self, job: Job) -> None:
        if self.stopped:
            return
        doc = self.documents[job.uri]
        record = doc.record(job.unit)
        record.add_seeds(job.streamed)
        if record.job is job:
            record.live = None
            {"done": self._succeeded, "failed": self._failed}.get(job.state, self._cancelled)(
                doc, job
            )
        message = self._summary(job)
        if job.token is not None:
            self.ls.work_done_progress.end(job.token, types.WorkDoneProgressEnd(message=message))
            self.ls.work_done_progress.tokens.pop(job.token, None)
            job.token = None
        self._status(job, job.state, message)
        self.publish(job.uri)

    def _succeeded(self, doc: Document, job: Job) -> None:
        record = doc.record(job.unit)
        measurement = job.measurement
        covered = measurement.covered.get(job.unit, []) if measurement else []
        executed = measurement.executed_lines if measurement else []
        uncovered = (job.outcome.result or {}).get("uncovered", [])
        record.final = final_view(job.shape, covered, executed, job.tests, uncovered)
        record.reference, record.failure = job.shape.fingerprint, None
        crashes = tuple(job.crashes)
        if measurement is not None and not measurement.ok and not job.tests:
            crashes += ("the generated tests did not run under pytest",)
        record.warnings = (job.shape.fingerprint, crashes) if crashes else None
        record.seeds = []
        record.add_seeds([test["test"] for test in job.tests] + job.streamed)
        doc.import_error = None
        result = job.outcome.result or {}
        timing = (
            f"worker {job.outcome.wall_seconds:.1f} s (search {result.get('search_seconds', 0):.1f} s"
            f", {result.get('executions', 0)} executions), verification {job.verify_seconds:.1f} s"
        )
        self.log(f"miogen: {job.unit}: {self._summary(job)}; {timing}")

    def _failed(self, doc: Document, job: Job) -> None:
        error = (job.outcome.error if job.outcome else None) or {}
        kind = error.get("kind")
        if kind in ("syntax", "unknown-unit"):  # the file changed under the job: a save follows
            self.log(f"miogen: {job.unit}: the file changed while the job started ({job.message})")
            return
        record = doc.record(job.unit)
        if kind == "import":
            doc.import_error = job.message
            record.failure = (
                job.shape.fingerprint,
                f"miogen cannot import the module: {job.message}",
            )
        else:
            reasons = "; ".join(dict.fromkeys(job.crashes)) or job.message
            message = f"miogen: the worker failed for {job.unit}: {reasons}"
            record.failure = (job.shape.fingerprint, message)
        self.warn(f"miogen: {job.unit}: {job.message}")

    def _cancelled(self, doc: Document, job: Job) -> None:
        if job.cancel_reason == "user":
            doc.record(job.unit).reference = job.shape.fingerprint
        self.log(f"miogen: {job.unit}: cancelled ({job.cancel_reason or 'stopped'})")

    def _summary(self, job: Job) -> str:
        if job.state == "done":
            record = self.documents[job.uri].record(job.unit)
            view = record.final if record.job is job else None
            covered = len(view.covered) if view else len(job.covered_ids)
            label = convert.counts_label(covered, len(job.shape.targets))
            return f"{label} covered by {len(job.tests)} tests (coverage.py)"
        if job.state == "failed":
            return f"failed: {job.message}"
        return f"cancelled ({job.cancel_reason})" if job.cancel_reason else "cancelled"

    def _status(self, job: Job, state: str, message: str) -> None:
        covered = len(job.covered_ids)
        if job.state == "done":
            covered = len(job.measurement.covered.get(job.unit, [])) if job.measurement else 0
        percent = 100.0 if job.state == "done" else _percent(job)
        payload = convert.job_status(
            job.uri, job.unit, state, percent, covered, len(job.shape.targets), message
        )
        self.notify(JOB_STATUS, payload)

    async def _begin_progress(self, job: Job) -> None:
        if not self._supports("window.work_done_progress"):
            return
        token = f"miogen-{uuid.uuid4().hex}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as error:  # noqa: BLE001 - no progress bar, the job goes on
            logger.info("work done progress refused: %s", error)
            return
        if not job.active or job.state != "running":
            self.ls.work_done_progress.tokens.pop(token, None)
            return
        job.token = token
        progress = self.ls.work_done_progress
        progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=f"miogen: {job.unit}", cancellable=True, percentage=_percent(job),
                message=convert.counts_label(len(job.covered_ids), len(job.shape.targets)),
            ),
        )  # fmt: skip
        loop = asyncio.get_running_loop()
        progress.tokens[token].add_done_callback(
            lambda future: future.cancelled() and loop.call_soon_threadsafe(self._cancel_job, job)
        )

    def _cancel_job(self, job: Job) -> None:
        self.scheduler.cancel(job, "user")

    # --- commands -----------------------------------------------------------------------------

    async def generate(self, uri: str, unit: str) -> dict:
        """Run a job for ``unit`` now (whatever onSave says), then insert its tests."""
        doc = self.document(uri)
        if self.folder_of(doc.path) is None:
            raise CommandError(
                f"miogen: not running {doc.path}: it is outside the workspace folders"
            )
        try:
            snapshot = await self.analyse(doc, await asyncio.to_thread(_read, doc.path))
        except SourceSyntaxError as error:
            raise CommandError(
                f"miogen: {doc.path.name} does not parse (line {error.line})"
            ) from None
        shape = snapshot.units.get(unit)
        if shape is None:
            raise CommandError(f"miogen: {doc.path.name} has no class or function named {unit!r}")
        settings = self.settings_for(doc.path)
        job = self.start_job(doc, shape, snapshot, self.location(doc.path), settings)
        await job.finished()
        if job.state != "done":
            return self._result(doc, unit, None, applied=False, message=self._summary(job))
        return await self.insert(uri, unit)

    async def insert(self, uri: str, unit: str) -> dict:
        """Insert the last result's tests through workspace/applyEdit."""
        doc = self.document(uri)
        final = doc.record(unit).final
        if final is None or not final.tests:
            return self._result(doc, unit, None, applied=False, message="no generated tests yet")
        insertion = await self.plan_insertion(doc, final.tests)
        if insertion.count == 0:
            return self._result(doc, unit, insertion, applied=False, message="already inserted")
        applied = False
        if self._supports("workspace.apply_edit"):
            answer = await self.ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(
                    edit=insertion.edit, label=f"miogen: tests for {unit}"
                )
            )
            applied = bool(answer.applied)
        return self._result(doc, unit, insertion, applied=applied, message="")

    async def plan_insertion(self, doc: Document, tests: list[dict]) -> insert.Insertion:
        """The insertion of ``tests`` into the unit's test file as it is now (cached until it changes)."""
        open_files = {
            Path(d.path).resolve(): (d.source, d.version)
            for d in self.ls.workspace.text_documents.values()
            if d.path and d.uri in self.open
        }
        target = self._test_path(doc)
        key = (doc.uri, id(tests), target, open_files.get(target, (None, None))[1], _stamp(target))
        cached = self._insertions.get(key)
        if cached is not None and cached[0] is tests:
            return cached[1]
        insertion = await self._plan(doc, tests, open_files)
        if len(self._insertions) > 64:
            self._insertions.clear()
        self._insertions[key] = (tests, insertion)
        return insertion

    async def _plan(self, doc: Document, tests: list[dict], open_files) -> insert.Insertion:
        return await asyncio.to_thread(
            insert.plan,
            tests,
            self.location(doc.path),
            self.settings_for(doc.path),
            open_files,
            self.ls.workspace.position_codec,
            self._document_changes(),
        )

    def _document_changes(self) -> bool:
        """documentChanges (needed to create a file) when the client says so, or says "create".

        Neovim announces resourceOperations without documentChanges and applies them all the same.
        """
        edit = getattr(self.ls.client_capabilities.workspace, "workspace_edit", None)
        if edit is None:
            return False
        return bool(edit.document_changes) or "create" in (edit.resource_operations or [])

    def _result(self, doc: Document, unit: str, insertion, *, applied: bool, message: str) -> dict:
        record = doc.record(unit)
        final = record.final
        shape = doc.snapshot.units.get(unit) if doc.snapshot else None
        total = final.total if final else (len(shape.targets) if shape else 0)
        path = insertion.path if insertion else self._test_path(doc)
        return {
            "uri": doc.uri,
            "unit": unit,
            "tests": insertion.count if insertion else 0,
            "covered": len(final.covered) if final else 0,
            "total": total,
            "testFile": str(path),
            "testUri": insertion.uri if insertion else path.as_uri(),
            "applied": applied,
            "message": message,
        }

    def _test_path(self, doc: Document) -> Path:
        return insert.test_path(self.location(doc.path), self.settings_for(doc.path))

    def cancel(self, uri: str, unit: str) -> bool:
        job = self.scheduler.job(uri, unit)
        return job is not None and self.scheduler.cancel(job, "user")

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


def _uncovered_in(diagnostic: types.Diagnostic, unit: str) -> bool:
    data = plain(diagnostic.data)
    return (
        diagnostic.source == convert.SOURCE
        and diagnostic.code == "uncovered-branch"
        and isinstance(data, dict)
        and data.get("unit") == unit
    )


def _stamp(path: Path) -> float | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _percent(job: Job) -> int:
    return max(0, min(100, int(job.fraction * 100)))
