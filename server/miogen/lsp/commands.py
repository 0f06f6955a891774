"""Putting generated tests into the test file: code actions and the three commands.

The commands get what they use: the document store, the locator, the client, how a job is
started (``Saves.start_job``), the scheduler (to cancel) and how a job's end is told
(``Reporter.summary``).

Every client gets an edit it applies the same way. ``CreateFile`` (without options) only when the
test file is absent and the client can create files (resource operations); otherwise the action
runs ``miogen.insertTests``, which creates the folder and the empty file itself, then applies a
plain text edit. The edit goes in ``codeAction/resolve`` when the client resolves ``edit``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from miogen.common.confine import OutsideRoot, is_inside, resolved
from miogen.common.errors import SourceSyntaxError
from miogen.lsp import convert
from miogen.lsp.client import Client
from miogen.lsp.documents import PATIENCE, Document, DocumentStore
from miogen.lsp.insert import SETTING, Insertion, OpenFiles, own_test_path, plan, prepare_folder
from miogen.lsp.jobs import Job, Scheduler
from miogen.lsp.locator import Locator, Place
from miogen.lsp.protocol import (
    INSERT,
    INSERT_KIND,
    SOURCE,
    UNCOVERED_BRANCH,
    CommandError,
    GenerateResult,
)
from miogen.lsp.settings import plain
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.lsp.views import UnitView

MAX_CACHED_INSERTIONS = 64


StartJob = Callable[[Document, UnitShape, Snapshot, Place], Job]


class Commands:
    """Code actions (and their resolve), ``miogen.generateTests``, ``miogen.insertTests`` and
    ``miogen.cancel``."""

    def __init__(
        self,
        store: DocumentStore,
        locator: Locator,
        client: Client,
        start_job: StartJob,
        scheduler: Scheduler,
        summary: Callable[[Job], str],
    ) -> None:
        self.store, self.locator, self.client = store, locator, client
        self.start_job, self.scheduler, self.summary = start_job, scheduler, summary
        self._insertions: dict[tuple[object, ...], tuple[UnitView, asyncio.Task[Insertion]]] = {}

    # --- code actions -----------------------------------------------------------------------

    async def code_actions(
        self, uri: str, lines: tuple[int, int], diagnostics: list[types.Diagnostic], only: list[str]
    ) -> list[types.CodeAction]:
        """Per unit under the cursor (or named by a diagnostic): insert its tests, or generate."""
        snapshot = await self.store.latest(uri)
        if snapshot is None:
            return []
        doc = self.store.document(uri)
        actions: list[types.CodeAction] = []
        for shape in snapshot.units.values():
            own = [d for d in diagnostics if _uncovered_in(d, shape.name)]
            touched = shape.unit.line - 1 <= lines[1] and lines[0] <= shape.unit.end_line - 1
            if touched or own:
                actions += await self._unit_actions(doc, shape, own, only)
        return actions

    async def _unit_actions(
        self, doc: Document, shape: UnitShape, own: list[types.Diagnostic], only: list[str]
    ) -> list[types.CodeAction]:
        final = self._insertable(doc, shape.name)
        insertion: Insertion | None = None
        if final is not None and final.fingerprint == shape.fingerprint:
            insertion = await self._insertion_soon(doc, final)
        source, quickfix = types.CodeActionKind.Source, types.CodeActionKind.QuickFix
        if final is None or final.fingerprint != shape.fingerprint or insertion_empty(insertion):
            wanted = convert.wanted(source, only)
            return [convert.generate_action(doc.uri, shape.name, source)] if wanted else []
        kinds = [INSERT_KIND] if convert.wanted(INSERT_KIND, only) else []
        kinds += [quickfix] * bool(own and convert.wanted(quickfix, only))
        actions = []
        for kind in kinds:
            for diagnostic in own if kind == quickfix else [None]:
                actions.append(self._insert_action(doc, shape, insertion, kind, diagnostic))
        return actions

    def _insert_action(
        self,
        doc: Document,
        shape: UnitShape,
        insertion: Insertion | None,
        kind: str,
        diagnostic: types.Diagnostic | None,
    ) -> types.CodeAction:
        count = f"{insertion.count} " if insertion else ""
        shown = insertion.shown_path if insertion else self._shown_test_path(doc)
        title = f"Insert {count}generated tests for {shape.name} into {shown}"
        ref = convert.unit_ref(doc.uri, shape.name)
        resolves = self.client.resolves("edit")
        if (insertion is None and not resolves) or (
            insertion is not None and self._creates_without_client(insertion)
        ):
            command = types.Command(title=title, command=INSERT, arguments=[ref])
            return convert.insert_action(title, kind, None, diagnostic, command=command)
        if resolves:
            data = {**ref, "fingerprint": shape.fingerprint}
            return convert.insert_action(title, kind, None, diagnostic, data=data)
        assert insertion is not None
        return convert.insert_action(title, kind, insertion.edit, diagnostic)

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        """The Insert action's edit, computed now (the folder is created for clients that may
        not create one)."""
        data: Any = plain(action.data)
        if not isinstance(data, dict) or action.edit is not None:
            return action
        uri, unit = data.get("uri"), data.get("unit")
        doc = self.store.documents.get(uri) if isinstance(uri, str) else None
        final = self._insertable(doc, unit) if doc is not None and isinstance(unit, str) else None
        if doc is None or final is None or final.fingerprint != data.get("fingerprint"):
            raise CommandError(f"miogen: the tests for {unit} are no longer there; generate again")
        insertion = await self.plan_insertion(doc, final)
        if self._creates_without_client(insertion):
            insertion = await self._create_file(doc, final, insertion)
        await asyncio.to_thread(prepare_folder, insertion)
        action.edit = insertion.edit
        doc.record(final.shape.name).inserted = True  # the client asked for it, to apply it
        return action

    # --- commands ---------------------------------------------------------------------------

    async def generate(self, uri: str, unit: str) -> GenerateResult:
        """Run a job for ``unit`` now (whatever onSave says), then insert its tests. Cancelling
        the request ($/cancelRequest) cancels the job."""
        doc = self.store.document(uri)
        if self.locator.place(doc.path).folder is None:
            raise CommandError(
                f"miogen: not running {doc.path}: it is outside the workspace folders"
            )
        try:
            snapshot = await self.store.analyse_disk(doc)
        except SourceSyntaxError as error:
            raise CommandError(
                f"miogen: {doc.path.name} does not parse (line {error.line})"
            ) from None
        shape = snapshot.units.get(unit)
        if shape is None:
            raise CommandError(f"miogen: {doc.path.name} has no class or function named {unit!r}")
        job = doc.record(unit).job
        if job is None or not job.active or job.shape.fingerprint != shape.fingerprint:
            job = self.start_job(doc, shape, snapshot, self.locator.place(doc.path))
        try:
            await job.finished()
        except asyncio.CancelledError:
            self.scheduler.cancel(job, "user")
            raise
        if job.state != "done":
            return self._result(doc, unit, None, applied=False, message=self.summary(job))
        return await self.insert(uri, unit)

    async def insert(self, uri: str, unit: str) -> GenerateResult:
        """Insert the last result's tests through workspace/applyEdit."""
        doc = self.store.document(uri)
        final = self._insertable(doc, unit)
        if final is None:
            record = doc.record(unit)
            message = f"the last result is stale: {record.outdated}" if record.outdated else ""
            message = message or "no generated tests yet"
            return self._result(doc, unit, None, applied=False, message=message)
        insertion = await self.plan_insertion(doc, final)
        if insertion.count == 0:
            return self._result(doc, unit, insertion, applied=False, message="already inserted")
        if self._creates_without_client(insertion):
            insertion = await self._create_file(doc, final, insertion)
        label = f"miogen: tests for {unit}"
        preview = self._previews(doc)
        if not preview:
            await asyncio.to_thread(prepare_folder, insertion)
        edit = convert.needing_confirmation(insertion.edit, label) if preview else insertion.edit
        applied = await self.client.apply_edit(edit, label)
        if preview and applied:  # nothing is written before the user accepts the preview
            await asyncio.to_thread(prepare_folder, insertion)
        doc.record(unit).inserted = doc.record(unit).inserted or applied
        message = "the preview was discarded" if preview and not applied else ""
        return self._result(doc, unit, insertion, applied=applied, message=message)

    def cancel(self, uri: str, unit: str) -> bool:
        job = self.scheduler.job(uri, unit)
        return job is not None and self.scheduler.cancel(job, "user")

    def _previews(self, doc: Document) -> bool:
        """The edit goes to the user's preview first (setting previewTests, and a client that
        confirms annotated edits)."""
        return self.locator.place(doc.path).settings.preview_tests and self.client.confirms_edits()

    # --- planning ---------------------------------------------------------------------------

    def _insertable(self, doc: Document, unit: str) -> UnitView | None:
        """The last result, when it has tests and still holds."""
        record = doc.units.get(unit)
        if record is None or record.final is None or not record.final.tests or record.outdated:
            return None
        return record.final

    async def _insertion_soon(self, doc: Document, final: UnitView) -> Insertion | None:
        """The insertion if it can be planned within ``PATIENCE`` (it is cached; the planning
        goes on), or at once when the client needs the edit inline."""
        planning = asyncio.ensure_future(self.plan_insertion(doc, final))
        if self.client.resolves("edit"):
            await asyncio.wait({planning}, timeout=PATIENCE)
        else:
            await asyncio.wait({planning})
        if planning.done() and planning.exception() is None:
            return planning.result()
        planning.add_done_callback(lambda done: done.cancelled() or done.exception())
        return None

    async def plan_insertion(self, doc: Document, final: UnitView) -> Insertion:
        """The insertion of ``final``'s tests into the unit's test file as it is now (cached
        until the file changes); notes when the file holds them all."""
        open_files = self.client.open_files(self.store.open)
        target = self._test_path(doc)
        version = open_files.get(target, (None, None))[1]
        key = (doc.uri, id(final), target, version, _stamp(target), self.client.document_changes())
        cached = self._insertions.get(key)
        if cached is None or cached[0] is not final:
            if len(self._insertions) > MAX_CACHED_INSERTIONS:
                self._insertions.clear()
            task = asyncio.ensure_future(self._plan(doc, final, open_files))
            self._insertions[key] = cached = (final, task)
        try:
            insertion = await asyncio.shield(cached[1])
        except Exception:
            self._insertions.pop(key, None)  # planned again next time
            raise
        if insertion.count == 0:
            doc.record(final.shape.name).inserted = True
        return insertion

    async def _plan(self, doc: Document, final: UnitView, open_files: OpenFiles) -> Insertion:
        """The insertion, its test file inside the project and a workspace folder (else a
        CommandError naming the setting: no folder is created and no edit sent)."""
        place = self.locator.place(doc.path)
        try:
            insertion = await asyncio.to_thread(
                plan,
                final.tests,
                final.module_state,
                place.location,
                place.settings,
                open_files,
                self.client.codec,
                self.client.document_changes(),
                final.gated,
            )
            folder = place.folder
            if folder is not None and not is_inside(folder, insertion.path):
                where = resolved(insertion.path)
                raise OutsideRoot(insertion.path, where, folder, SETTING, "the workspace folder")
        except OutsideRoot as error:
            raise CommandError(f"miogen: {error}") from None
        return insertion

    def _creates_without_client(self, insertion: Insertion) -> bool:
        """The test file is absent and the client cannot create files through the edit."""
        return not insertion.exists and not self.client.creates_files()

    async def _create_file(self, doc: Document, final: UnitView, insertion: Insertion) -> Insertion:
        """Create the missing test file (and its folder) empty, then plan on it."""
        await asyncio.to_thread(prepare_folder, insertion)  # packages first: they decide the name
        await asyncio.to_thread(_create_empty, insertion.path)
        return await self.plan_insertion(doc, final)

    def _result(
        self,
        doc: Document,
        unit: str,
        insertion: Insertion | None,
        *,
        applied: bool,
        message: str,
    ) -> GenerateResult:
        final = doc.record(unit).final
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
        """The file the unit's tests go to: miogen's own (``insert.own_test_path``)."""
        place = self.locator.place(doc.path)
        return own_test_path(
            place.location, place.settings, self.client.open_files(self.store.open)
        )

    def _shown_test_path(self, doc: Document) -> str:
        root = self.locator.place(doc.path).project_root
        path = self._test_path(doc)
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def insertion_empty(insertion: Insertion | None) -> bool:
    return insertion is not None and insertion.count == 0


def _uncovered_in(diagnostic: types.Diagnostic, unit: str) -> bool:
    data: Any = plain(diagnostic.data)
    return (
        diagnostic.source == SOURCE
        and diagnostic.code == UNCOVERED_BRANCH
        and isinstance(data, dict)
        and data.get("unit") == unit
    )


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells a file's versions apart: two writes within one clock tick share an mtime."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino


def _create_empty(path: Path) -> None:
    """An empty test file where none is: nothing that exists is touched (invariant 3).

    Empty, it is miogen's (``emit.files.is_own``): the insertion then writes the header.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.open("x", encoding="utf-8").close()
    except FileExistsError:
        pass
