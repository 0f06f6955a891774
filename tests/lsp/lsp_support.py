"""Helpers for the end-to-end tests: a real LSP client (pytest-lsp) driving ``miogen serve``.

``editor`` wraps the client with what an editor does (open, type, save, run commands, apply
edits) and records what the server sends, so that a test reads as a session plus expectations.
Waiting is always for an event with a generous timeout, never for a fixed time.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from miogen.emit.merge import TextEdit as MergeEdit
from miogen.emit.merge import apply_edits
from miogen.lsp.settings import plain
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

PROFILES = ["visual-studio-code", "neovim@v0.7.0"]
WAIT = 90.0  # seconds: generous, for a loaded two-core machine

SHAPES = '''\
"""Shapes for the language-server tests."""


class Stack:
    def __init__(self, capacity: int = 3) -> None:
        self.items: list[int] = []
        self.capacity = capacity

    def push(self, item: int) -> None:
        if len(self.items) >= self.capacity:
            raise OverflowError("full")
        self.items.append(item)

    def pop(self) -> int:
        if not self.items:
            raise IndexError("empty")
        return self.items.pop()


def sign(x: int) -> int:
    if x * x == -1:
        return 99
    if x < 0:
        return -1
    return 1
'''


def _converter():
    """pygls' converter with lsprotocol 2025.0.0's client-side CodeAction hook fixed.

    Its ``Union[Command, CodeAction]`` hook takes any object with a "command" key for a Command,
    which mangles a CodeAction that carries one (ECOSYSTEM-NOTES §1.11).
    """
    converter = default_converter()

    def command_or_action(value: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], command_or_action)  # noqa: UP007
    return converter


def _make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "miogen", "serve"], client_factory=_make_client
)


class Editor:
    """What an editor does with the server, and what it has received."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.versions: dict[str, int] = {}
        self.coverage: list[dict] = []
        self.statuses: list[dict] = []
        self.applied: list[types.ApplyWorkspaceEditParams] = []
        client.feature("miogen/coverage")(lambda params: self.coverage.append(_stamped(params)))
        client.feature("miogen/jobStatus")(lambda params: self.statuses.append(_stamped(params)))
        client.feature(types.WORKSPACE_APPLY_EDIT)(lambda params: self._apply_edit(params))

    @property
    def profile(self) -> str:
        return self.client.profile

    # --- session ------------------------------------------------------------------------------

    async def start(self, options: dict | None = None, folders: list[Path] | None = None) -> None:
        folders = folders or [self.root]
        await self.client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities(self.profile),
                root_uri=folders[0].as_uri(),
                workspace_folders=[
                    types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders
                ],
                initialization_options=options,
            )
        )

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text, "utf-8")
        return path

    def uri(self, path: Path) -> str:
        return path.as_uri()

    def open(self, path: Path) -> str:
        uri = self.uri(path)
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=path.read_text("utf-8")
                )
            )
        )
        return uri

    def type(self, path: Path, text: str) -> None:
        """Replace the buffer's text (unsaved)."""
        uri = self.uri(path)
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def save(self, path: Path, text: str | None = None) -> None:
        """Type ``text`` (if given), write it to disk and send didSave."""
        if text is not None:
            self.type(path, text)
            path.write_text(text, "utf-8")
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(path))
            )
        )

    def close(self, path: Path) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(path))
            )
        )

    async def command(self, name: str, path: Path, unit: str) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command=name, arguments=[{"uri": self.uri(path), "unit": unit}]
            )
        )

    async def lenses(self, path: Path) -> list[types.CodeLens]:
        return await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=self.uri(path)))
        )

    async def actions(
        self,
        path: Path,
        line: int,
        only: list[str] | None = None,
        diagnostics: list[types.Diagnostic] | None = None,
    ) -> list[types.CodeAction]:
        position = types.Position(line=line, character=0)
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(path)),
                range=types.Range(start=position, end=position),
                context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
            )
        )
        return list(found or [])

    async def units(self, path: Path) -> list[dict]:
        answer = await self.client.protocol.send_request_async(
            "miogen/units", {"uri": self.uri(path)}
        )
        return plain(answer)

    # --- what arrived -----------------------------------------------------------------------

    def diagnostics(self, path: Path, code: str | None = None) -> list[types.Diagnostic]:
        found = self.client.diagnostics.get(self.uri(path), [])
        return [d for d in found if code is None or d.code == code]

    def jobs(self, unit: str, state: str | None = None) -> list[dict]:
        return [s for s in self.statuses if s["unit"] == unit and state in (None, s["state"])]

    def last_coverage(self, path: Path) -> dict | None:
        found = [c for c in self.coverage if c["uri"] == self.uri(path)]
        return found[-1] if found else None

    def unit_state(self, path: Path, unit: str) -> str | None:
        coverage = self.last_coverage(path)
        units = {u["name"]: u for u in coverage["units"]} if coverage else {}
        return units[unit]["state"] if unit in units else None

    def logs(self, text: str) -> list[str]:
        return [m.message for m in self.client.log_messages if text in m.message]

    def progress(self, title: str) -> list[list]:
        """The progress reports of each work-done progress whose begin has ``title``."""
        return [
            reports
            for reports in self.client.progress_reports.values()
            if reports and getattr(reports[0], "title", None) == title
        ]

    async def wait(self, condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        """Poll ``condition`` until it is truthy; fail with ``what`` and the server's log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            if self.client.error is not None:
                raise AssertionError(f"client error while waiting for {what}: {self.client.error}")
            await asyncio.sleep(0.05)
        log = "\n".join(m.message for m in self.client.log_messages[-30:])
        raise AssertionError(f"timed out waiting for {what}\nserver log:\n{log}")

    async def wait_job(self, unit: str, state: str = "done", count: int = 1) -> dict:
        found = await self.wait(
            lambda: len(self.jobs(unit, state)) >= count and self.jobs(unit, state),
            f"{count} {unit} job(s) {state}",
        )
        return found[count - 1]

    # --- the client's side of workspace/applyEdit --------------------------------------------

    def _apply_edit(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.applied.append(params)
        apply_workspace_edit(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)


def apply_workspace_edit(edit: types.WorkspaceEdit) -> None:
    """Apply an edit to files on disk (ASCII text: characters are str indices)."""
    operations = list(edit.document_changes or [])
    operations += [
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
            edits=edits,
        )
        for uri, edits in (edit.changes or {}).items()
    ]
    for operation in operations:
        if isinstance(operation, types.CreateFile):
            path = _path(operation.uri)
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                path.write_text("", "utf-8")
        elif isinstance(operation, types.TextDocumentEdit):
            path = _path(operation.text_document.uri)
            text = path.read_text("utf-8") if path.exists() else ""
            edits = [
                MergeEdit(
                    e.range.start.line,
                    e.range.start.character,
                    e.range.end.line,
                    e.range.end.character,
                    e.new_text,
                )
                for e in operation.edits
            ]
            path.write_text(apply_edits(text, edits), "utf-8")


def _stamped(params) -> dict:
    """The notification as a dict, with the (monotonic) time it arrived under "_at"."""
    return {**plain(params), "_at": time.monotonic()}


def _path(uri: str) -> Path:
    from pygls.uris import to_fs_path

    return Path(to_fs_path(uri))


def edited_sign(body: str = "return 1") -> str:
    """SHAPES with the last line of ``sign`` replaced: a code change of that unit only."""
    return SHAPES.replace("    return 1\n", f"    {body}\n")


def line_of(text: str, needle: str) -> int:
    """0-based line of the first line containing ``needle``."""
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)
