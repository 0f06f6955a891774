"""Files changed on disk (``workspace/didChangeWatchedFiles``): results that may no longer hold.

The server asks the client to watch ``**/*.py`` and ``**/pyproject.toml`` (by dynamic
registration, when the client can register it). A unit's result goes stale (it is no longer
shown, the lens offers to generate, and the next save generates again) when a module its file
imports changed, when its project's pyproject.toml changed (miogen's settings, pytest's
configuration), or when tests that had been inserted into its test file were edited or removed.
Changes to the open documents themselves come through the editor (didChange, didSave).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from lsprotocol import types
from pygls.uris import to_fs_path

from miogen.emit.files import own_path
from miogen.emit.merge import fallback_path
from miogen.lsp.client import Client
from miogen.lsp.documents import Document, DocumentStore
from miogen.lsp.events import Event, Outdated
from miogen.lsp.insert import Insertion, test_path
from miogen.lsp.locator import Locator
from miogen.lsp.views import UnitView

PATTERNS = ["**/*.py", "**/pyproject.toml"]


class Planner(Protocol):
    """What the watcher needs from the commands: the insertion of a result as the file is now."""

    async def plan_insertion(self, doc: Document, final: UnitView) -> Insertion: ...


class Watcher:
    """Registers the watchers; ``changed`` marks what a change on disk makes stale."""

    def __init__(
        self,
        store: DocumentStore,
        locator: Locator,
        client: Client,
        planner: Planner,
        emit: Callable[[Event], None],
    ) -> None:
        self.store, self.locator, self.client = store, locator, client
        self.planner, self.emit = planner, emit

    async def register(self) -> None:
        if not await self.client.watch_files(PATTERNS):
            self.client.log(
                "miogen: the client does not watch files for the server: changes to imported "
                "modules or to pyproject.toml do not mark results stale",
                types.MessageType.Log,
            )

    async def changed(self, changes: Sequence[types.FileEvent]) -> None:
        touched: set[str] = set()
        for change in changes:
            path = to_fs_path(change.uri)
            if path is None or change.uri in self.store.open:
                continue
            file = Path(path).resolve()
            if file.name == "pyproject.toml":
                self.locator.changed()  # its [tool.miogen] may say otherwise now
                touched |= self._settings_changed(file.parent)
            elif file.suffix == ".py":
                touched |= self._module_changed(file)
                touched |= await self._test_file_changed(file)
        if touched:
            self.emit(Outdated(frozenset(touched)))

    def _open_documents(self) -> list[Document]:
        docs = (self.store.documents.get(uri) for uri in self.store.open)
        return [doc for doc in docs if doc is not None and doc.snapshot is not None]

    def _settings_changed(self, folder: Path) -> set[str]:
        found = set()
        for doc in self._open_documents():
            if self.locator.place(doc.path).project_root.resolve() == folder:
                found |= _outdate(doc, f"{folder / 'pyproject.toml'} changed")
        return found

    def _module_changed(self, file: Path) -> set[str]:
        module = self.locator.module_name(file)
        found = set()
        for doc in self._open_documents():
            assert doc.snapshot is not None
            if module in doc.snapshot.imports and doc.path.resolve() != file:
                found |= _outdate(doc, f"the imported module {module} changed")
        return found

    async def _test_file_changed(self, file: Path) -> set[str]:
        """Units whose inserted tests are no longer all in ``file``."""
        found = set()
        for doc in self._open_documents():
            place = self.locator.place(doc.path)
            target = test_path(place.location, place.settings)
            own = own_path(target)
            if file not in (target.resolve(), own.resolve(), fallback_path(own).resolve()):
                continue
            for record in list(doc.units.values()):
                final, inserted = record.final, record.inserted
                if final is None or not final.tests or record.outdated:
                    continue
                insertion = await self.planner.plan_insertion(doc, final)
                if inserted and insertion.count > 0:
                    record.outdated = f"its tests in {insertion.shown_path} were edited or removed"
                    record.inserted = False
                    found.add(doc.uri)
        return found


def _outdate(doc: Document, reason: str) -> set[str]:
    """Mark the document's results stale (those that are shown at all)."""
    marked = False
    for record in doc.units.values():
        if record.final is not None and record.outdated is None:
            record.outdated = reason
            marked = True
    return {doc.uri} if marked else set()
