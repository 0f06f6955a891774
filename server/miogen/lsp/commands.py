"""Putting generated tests into the test file: code actions and the three commands."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from miogen.errors import SourceSyntaxError
from miogen.lsp import convert, insert
from miogen.lsp.documents import Document
from miogen.lsp.settings import plain
from miogen.lsp.snapshot import UnitShape
from miogen.lsp.views import UnitView

if TYPE_CHECKING:
    from miogen.lsp.session import Session


class CommandError(JsonRpcException):
    """A command that cannot run; the message goes back to the editor as the request's error."""

    CODE = -32803  # LSP RequestFailed


class Commands:
    """Code actions, ``miogen.generateTests``, ``miogen.insertTests`` and ``miogen.cancel``."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._insertions: dict[tuple, tuple[tuple, insert.Insertion]] = {}

    async def code_actions(
        self, uri: str, lines: tuple[int, int], diagnostics: list, only: list[str]
    ) -> list[types.CodeAction]:
        """Per unit under the cursor (or named by a diagnostic): insert its tests, or generate."""
        snapshot = await self.session.current(uri)
        if snapshot is None:
            return []
        doc = self.session.documents[uri]
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
            insertion = await self.plan_insertion(doc, final)
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

    async def generate(self, uri: str, unit: str) -> dict:
        """Run a job for ``unit`` now (whatever onSave says), then insert its tests."""
        doc = self.session.document(uri)
        if self.session.folder_of(doc.path) is None:
            raise CommandError(
                f"miogen: not running {doc.path}: it is outside the workspace folders"
            )
        try:
            snapshot = await self.session.analyse(doc, await asyncio.to_thread(_read, doc.path))
        except SourceSyntaxError as error:
            raise CommandError(
                f"miogen: {doc.path.name} does not parse (line {error.line})"
            ) from None
        shape = snapshot.units.get(unit)
        if shape is None:
            raise CommandError(f"miogen: {doc.path.name} has no class or function named {unit!r}")
        job = doc.record(unit).job
        if job is None or not job.active or job.shape.fingerprint != shape.fingerprint:
            settings, location = (
                self.session.settings_for(doc.path),
                self.session.location(doc.path),
            )
            job = self.session.start_job(doc, shape, snapshot, location, settings)
        await job.finished()
        if job.state != "done":
            return self._result(
                doc, unit, None, applied=False, message=self.session.reporter.summary(job)
            )
        return await self.insert(uri, unit)

    async def insert(self, uri: str, unit: str) -> dict:
        """Insert the last result's tests through workspace/applyEdit."""
        doc = self.session.document(uri)
        final = doc.record(unit).final
        if final is None or not final.tests:
            return self._result(doc, unit, None, applied=False, message="no generated tests yet")
        insertion = await self.plan_insertion(doc, final)
        if insertion.count == 0:
            return self._result(doc, unit, insertion, applied=False, message="already inserted")
        applied = False
        if self.session.supports("workspace.apply_edit"):
            answer = await self.session.ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(
                    edit=insertion.edit, label=f"miogen: tests for {unit}"
                )
            )
            applied = bool(answer.applied)
        return self._result(doc, unit, insertion, applied=applied, message="")

    async def plan_insertion(self, doc: Document, final: UnitView) -> insert.Insertion:
        """The insertion of ``final``'s tests into the unit's test file as it is now (cached until
        it changes)."""
        tests = final.tests
        open_files = {
            Path(d.path).resolve(): (d.source, d.version)
            for d in self.session.ls.workspace.text_documents.values()
            if d.path and d.uri in self.session.open
        }
        target = self._test_path(doc)
        key = (doc.uri, id(tests), target, open_files.get(target, (None, None))[1], _stamp(target))
        cached = self._insertions.get(key)
        if cached is not None and cached[0] is tests:
            return cached[1]
        insertion = await self._plan(doc, final, open_files)
        if len(self._insertions) > 64:
            self._insertions.clear()
        self._insertions[key] = (tests, insertion)
        return insertion

    async def _plan(self, doc: Document, final: UnitView, open_files) -> insert.Insertion:
        return await asyncio.to_thread(
            insert.plan,
            final.tests,
            final.module_state,
            self.session.location(doc.path),
            self.session.settings_for(doc.path),
            open_files,
            self.session.ls.workspace.position_codec,
            self._document_changes(),
        )

    def _document_changes(self) -> bool:
        """documentChanges (needed to create a file) when the client says so, or says "create".

        Neovim announces resourceOperations without documentChanges and applies them all the same.
        """
        edit = getattr(self.session.ls.client_capabilities.workspace, "workspace_edit", None)
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
        return insert.test_path(
            self.session.location(doc.path), self.session.settings_for(doc.path)
        )

    def cancel(self, uri: str, unit: str) -> bool:
        job = self.session.scheduler.job(uri, unit)
        return job is not None and self.session.scheduler.cancel(job, "user")


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
