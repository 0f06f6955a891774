"""Putting generated tests into the test file: code actions and the three commands.

The commands get what they use: the document store, the locator, the client, and ``JobControl``
(start, cancel and describe jobs; the session provides it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types

from miogen.errors import SourceSyntaxError
from miogen.lsp import convert
from miogen.lsp.client import Client
from miogen.lsp.documents import Document, DocumentStore
from miogen.lsp.insert import Insertion, OpenFiles, plan, test_path
from miogen.lsp.jobs import Job
from miogen.lsp.locator import Locator
from miogen.lsp.protocol import SOURCE, UNCOVERED_BRANCH, CommandError, GenerateResult
from miogen.lsp.settings import plain
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.lsp.views import UnitView

MAX_CACHED_INSERTIONS = 64


class JobControl(Protocol):
    """What the commands need from the session's jobs."""

    def start_job(self, doc: Document, shape: UnitShape, snapshot: Snapshot) -> Job: ...

    def cancel(self, uri: str, unit: str) -> bool: ...

    def summary(self, job: Job) -> str: ...


class Commands:
    """Code actions, ``miogen.generateTests``, ``miogen.insertTests`` and ``miogen.cancel``."""

    def __init__(
        self, store: DocumentStore, locator: Locator, client: Client, jobs: JobControl
    ) -> None:
        self.store, self.locator, self.client, self.jobs = store, locator, client, jobs
        self._insertions: dict[tuple[object, ...], tuple[UnitView, Insertion]] = {}

    async def code_actions(
        self, uri: str, lines: tuple[int, int], diagnostics: list[types.Diagnostic], only: list[str]
    ) -> list[types.CodeAction]:
        """Per unit under the cursor (or named by a diagnostic): insert its tests, or generate."""
        snapshot = await self.store.current(uri)
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

    async def generate(self, uri: str, unit: str) -> GenerateResult:
        """Run a job for ``unit`` now (whatever onSave says), then insert its tests."""
        doc = self.store.document(uri)
        if self.locator.folder_of(doc.path) is None:
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
            job = self.jobs.start_job(doc, shape, snapshot)
        await job.finished()
        if job.state != "done":
            return self._result(doc, unit, None, applied=False, message=self.jobs.summary(job))
        return await self.insert(uri, unit)

    async def insert(self, uri: str, unit: str) -> GenerateResult:
        """Insert the last result's tests through workspace/applyEdit."""
        doc = self.store.document(uri)
        final = doc.record(unit).final
        if final is None or not final.tests:
            return self._result(doc, unit, None, applied=False, message="no generated tests yet")
        insertion = await self.plan_insertion(doc, final)
        if insertion.count == 0:
            return self._result(doc, unit, insertion, applied=False, message="already inserted")
        applied = await self.client.apply_edit(insertion.edit, f"miogen: tests for {unit}")
        return self._result(doc, unit, insertion, applied=applied, message="")

    async def plan_insertion(self, doc: Document, final: UnitView) -> Insertion:
        """The insertion of ``final``'s tests into the unit's test file as it is now (cached
        until the file changes)."""
        open_files = self.client.open_files(self.store.open)
        target = self._test_path(doc)
        version = open_files.get(target, (None, None))[1]
        key = (doc.uri, id(final), target, version, _stamp(target))
        cached = self._insertions.get(key)
        if cached is not None and cached[0] is final:
            return cached[1]
        insertion = await self._plan(doc, final, open_files)
        if len(self._insertions) > MAX_CACHED_INSERTIONS:
            self._insertions.clear()
        self._insertions[key] = (final, insertion)
        return insertion

    async def _plan(self, doc: Document, final: UnitView, open_files: OpenFiles) -> Insertion:
        return await asyncio.to_thread(
            plan,
            final.tests,
            final.module_state,
            self.locator.location(doc.path),
            self.locator.settings_for(doc.path),
            open_files,
            self.client.codec,
            self.client.document_changes(),
        )

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
        return test_path(self.locator.location(doc.path), self.locator.settings_for(doc.path))

    def cancel(self, uri: str, unit: str) -> bool:
        return self.jobs.cancel(uri, unit)


def _uncovered_in(diagnostic: types.Diagnostic, unit: str) -> bool:
    data: Any = plain(diagnostic.data)
    return (
        diagnostic.source == SOURCE
        and diagnostic.code == UNCOVERED_BRANCH
        and isinstance(data, dict)
        and data.get("unit") == unit
    )


def _stamp(path: Path) -> float | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None
