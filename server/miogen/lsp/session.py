"""The server's router: each handler (features/) calls one method here, which hands the event to
the part that deals with it.

The parts each do one thing and get what they use when they are made, never the session: the
``Client`` (what the editor is told and asked), the ``Locator`` (folders, project roots, settings
per file, cached per settings version), the ``Analyser`` (static analyses in another process), the
``DocumentStore`` (texts, analyses, per-unit records), the ``Scheduler`` (jobs), ``Saves`` (a
save: debounce, analysis, plan, jobs), the ``Reporter`` (the one path that turns events into
records and what the editor is sent), ``Commands`` (actions and commands), ``PathRuns`` and the
``Watcher`` (files changed on disk). Handlers call the session; nothing here imports a handler.
Every method runs on the event loop; slow work goes to threads or processes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from miogen.common.project import is_test_file
from miogen.lsp import convert
from miogen.lsp.analyser import Analyser
from miogen.lsp.client import Client
from miogen.lsp.commands import Commands
from miogen.lsp.documents import DocumentStore
from miogen.lsp.events import Closed, SettingsChanged
from miogen.lsp.jobs import Scheduler
from miogen.lsp.locator import Locator
from miogen.lsp.onsave import Saves
from miogen.lsp.pathruns import PathRuns
from miogen.lsp.present import unit_summary
from miogen.lsp.protocol import CommandError, UnitInfo
from miogen.lsp.reporting import Reporter
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.lsp.watching import Watcher

_HEADER = re.compile(r"\s*(async\s+def|def|class)\b")


class Session:
    """Routes the editor's notifications and requests to the parts that deal with them."""

    def __init__(self, ls: LanguageServer) -> None:
        self.client = client = Client(ls)
        self.locator = locator = Locator(client.folders, client.warn, client.log)
        self.analyser = Analyser(warn=client.warn)
        self.store = store = DocumentStore(
            client.text, client.version, locator.module_name, _nothing, self.analyser
        )
        self.reporter = Reporter(client, store, locator)
        self.scheduler = Scheduler(self.reporter.handle)
        self.scheduler.details = self.analyser.shape  # a long text's unit, found when it runs
        self.saves = Saves(store, locator, client, self.scheduler, self.reporter.handle)
        store.refreshed = self.saves.analysed  # made after the store, which it reads
        self.commands = Commands(
            store, locator, client, self.saves.start_job, self.scheduler, self.reporter.summary
        )
        self.paths = PathRuns(locator, client)
        self.watcher = Watcher(store, locator, client, self.commands, self.reporter.handle)

    # --- settings and lifecycle -----------------------------------------------------------------

    def configure(self, raw: Any, origin: str) -> None:
        settings = self.locator.configure(raw, origin)
        self.client.log(f"miogen: settings: {settings.describe()}")
        self.reporter.handle(SettingsChanged())
        self.saves.warm_up()  # a spare started under other settings is replaced
        self.scheduler.pump()

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
        self.locator.changed()
        folders = ", ".join(str(folder) for folder in self.client.folders()) or "none"
        self.client.log(f"miogen: workspace folders: {folders}")
        self.scheduler.cancel_where(
            lambda job: self.locator.place(job.location.path).folder is None,
            "outside the workspace",
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
        self.saves.warm_up(doc)

    def changed(self, uri: str, changes: Sequence[object]) -> None:
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        line = _edited_line(changes, doc.snapshot, self.client.text(uri))
        doc.last_edit = line if line is not None else doc.last_edit
        self.store.edited(uri)

    def saved(self, uri: str) -> None:
        self.saves.follow(uri)

    def closed(self, uri: str) -> None:
        self.store.close(uri)
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        if doc.saving is not None:
            doc.saving.cancel()
        self.scheduler.cancel_where(lambda job: job.uri == uri, "closed")
        self.reporter.handle(Closed(uri))

    def files_changed(self, changes: Sequence[types.FileEvent]) -> None:
        self.client.spawn(self.watcher.changed(changes))

    # --- requests -------------------------------------------------------------------------------

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


def _nothing(uri: str) -> None:
    """The store's ``refreshed`` until ``Saves`` takes it."""


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
