"""The client side of a session: what the server tells and asks the editor, and what it can do.

Logs, notifications, diagnostics, work-done progress, workspace edits, the configuration pull and
the client's capabilities, over pygls. Nothing here knows documents or jobs; after shutdown
nothing more reaches the client (jobs may still be ending).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from miogen.lsp.protocol import CONFIG_SECTION

logger = logging.getLogger(__name__)


class Client:
    """The editor as the server sees it (one per server)."""

    def __init__(self, ls: LanguageServer) -> None:
        self.ls = ls
        self.stopped = False  # after shutdown: jobs still ending must not write to the client
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- telling ------------------------------------------------------------------------------

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        if not self.stopped:
            self.ls.window_log_message(types.LogMessageParams(type=kind, message=message))

    def warn(self, message: str) -> None:
        self.log(message, types.MessageType.Warning)

    def notify(self, method: str, payload: object) -> None:
        if not self.stopped:
            self.ls.protocol.notify(method, payload)

    def publish_diagnostics(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
    ) -> None:
        if not self.stopped:
            self.ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
            )

    # --- what the client has and can do ------------------------------------------------------

    def supports(self, dotted: str) -> bool:
        value: object = self.ls.client_capabilities
        for part in dotted.split("."):
            value = getattr(value, part, None)
        return bool(value)

    def supports_markdown_hover(self) -> bool:
        hover = getattr(self.ls.client_capabilities.text_document, "hover", None)
        formats = getattr(hover, "content_format", None) or []
        return types.MarkupKind.Markdown in formats

    @property
    def codec(self) -> PositionCodec:
        return self.ls.workspace.position_codec

    def text(self, uri: str) -> str:
        """The editor's text of an open document."""
        return self.ls.workspace.get_text_document(uri).source

    def version(self, uri: str) -> int | None:
        return self.ls.workspace.get_text_document(uri).version

    def open_files(self, uris: set[str]) -> dict[Path, tuple[str, int | None]]:
        """The editor's text and version of the open documents among ``uris``."""
        return {
            Path(d.path).resolve(): (d.source, d.version)
            for d in self.ls.workspace.text_documents.values()
            if d.path and d.uri in uris
        }

    def folders(self) -> list[Path]:
        """The workspace folders (the root path for clients that name no folder)."""
        workspace = self.ls.workspace
        found = [to_fs_path(folder.uri) for folder in workspace.folders.values()]
        if not found and workspace.root_path:
            found = [workspace.root_path]
        return [Path(folder).resolve() for folder in found if folder]

    def document_changes(self) -> bool:
        """documentChanges when the client supports them: it says so, or it supports resource
        operations (which exist only inside documentChanges: Neovim announces "create" without
        documentChanges and applies both); else the edit goes in ``changes``."""
        edit = self._workspace_edit()
        if edit is None:
            return False
        return bool(edit.document_changes) or self.creates_files()

    def creates_files(self) -> bool:
        """The client applies ``CreateFile`` in an edit."""
        edit = self._workspace_edit()
        operations = (edit.resource_operations if edit is not None else None) or []
        return types.ResourceOperationKind.Create in operations

    def confirms_edits(self) -> bool:
        """The client shows an edit whose change annotation needs confirmation before it applies
        it (VS Code: the Refactor Preview); such annotations need documentChanges."""
        edit = self._workspace_edit()
        support = getattr(edit, "change_annotation_support", None) if edit else None
        return support is not None and bool(edit and edit.document_changes)

    def _workspace_edit(self) -> types.WorkspaceEditClientCapabilities | None:
        return getattr(self.ls.client_capabilities.workspace, "workspace_edit", None)

    def resolves(self, prop: str) -> bool:
        """The client asks codeAction/resolve for this property of an action (e.g. "edit") and
        keeps the action's ``data`` for it."""
        action = getattr(self.ls.client_capabilities.text_document, "code_action", None)
        support = getattr(action, "resolve_support", None)
        properties = getattr(support, "properties", None) or []
        return prop in properties and bool(getattr(action, "data_support", False))

    async def apply_edit(self, edit: types.WorkspaceEdit, label: str) -> bool:
        if not self.supports("workspace.apply_edit"):
            return False
        answer = await self.ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label=label)
        )
        return bool(answer.applied)

    def refresh_code_lenses(self) -> None:
        """Have the client ask for lenses again (their titles or places changed), if it can."""
        if not self.stopped and self.supports("workspace.code_lens.refresh_support"):
            answer = self.ls.workspace_code_lens_refresh(None)
            answer.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def watch_files(self, patterns: list[str]) -> bool:
        """Ask the client to send workspace/didChangeWatchedFiles for these globs; False when it
        cannot register them dynamically (the server then learns of changes from edits only)."""
        if not self.supports("workspace.did_change_watched_files.dynamic_registration"):
            return False
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in patterns]
        )
        registration = types.Registration(
            id=f"miogen-watch-{uuid.uuid4().hex}",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            await self.ls.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception as error:  # noqa: BLE001 - no watching, the session goes on
            self.log(f"miogen: the client refused to watch files: {error}", types.MessageType.Log)
            return False
        return True

    async def configuration(self, folders: list[Path]) -> list[Any] | None:
        """The ``miogen`` section from workspace/configuration, unscoped and then for each of
        ``folders`` (``scopeUri``); None when it cannot be had."""
        if not self.supports("workspace.configuration"):
            return None
        items = [types.ConfigurationItem(section=CONFIG_SECTION)] + [
            types.ConfigurationItem(section=CONFIG_SECTION, scope_uri=folder.as_uri())
            for folder in folders
        ]
        try:
            answer = await self.ls.workspace_configuration_async(
                types.ConfigurationParams(items=items)
            )
        except Exception as error:  # noqa: BLE001 - a client that fails here keeps the defaults
            self.warn(f"miogen: workspace/configuration failed: {error}")
            return None
        return list(answer) if answer else None

    # --- work-done progress --------------------------------------------------------------------

    async def begin_progress(
        self,
        title: str,
        show: Callable[[], tuple[int, str] | None],
        on_cancel: Callable[[], None],
    ) -> str | None:
        """A cancellable progress bar; its token, or None when the client shows none.

        ``show`` gives the first (percentage, message), once the client made the token, or None
        when the work ended meanwhile.
        """
        if self.stopped or not self.supports("window.work_done_progress"):
            return None
        token = f"miogen-{uuid.uuid4().hex}"
        progress = self.ls.work_done_progress
        try:
            await progress.create_async(token)
        except Exception as error:  # noqa: BLE001 - no progress bar, the job goes on
            logger.info("work done progress refused: %s", error)
            return None
        first = show()
        if first is None or self.stopped:
            progress.tokens.pop(token, None)
            return None
        percentage, message = first
        progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=title, cancellable=True, percentage=percentage, message=message
            ),
        )
        loop = asyncio.get_running_loop()
        progress.tokens[token].add_done_callback(
            lambda future: future.cancelled() and loop.call_soon_threadsafe(on_cancel)
        )
        return token

    def report_progress(self, token: str, percentage: int | None, message: str) -> None:
        """``percentage`` None: the message only (the bar's end is not known)."""
        if not self.stopped:
            self.ls.work_done_progress.report(
                token, types.WorkDoneProgressReport(percentage=percentage, message=message)
            )

    def end_progress(self, token: str, message: str) -> None:
        progress = self.ls.work_done_progress
        if not self.stopped:
            progress.end(token, types.WorkDoneProgressEnd(message=message))
        progress.tokens.pop(token, None)

    # --- background work -----------------------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("background task failed", exc_info=task.exception())
            self.log(f"miogen: internal error: {task.exception()!r}", types.MessageType.Error)
