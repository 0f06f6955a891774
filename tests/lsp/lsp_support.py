"""Helpers for the end-to-end tests: a real LSP client (pytest-lsp) driving ``miogen serve``.

One server per client profile is shared by most tests (starting one costs seconds on a busy
machine); each test works in its own project folder inside the workspace, with its own
pyproject.toml (``[tool.miogen]`` gives it its own settings), and sees only what concerns its
files. ``Editor`` does what an editor does (open, type, save, run commands, apply edits) and
reads what the server sent, so that a test reads as a session plus expectations. Waiting is
always for an event with a generous timeout, never for a fixed time.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

import pytest
from lsprotocol import types
from miogen.emit.merge import TextEdit as MergeEdit
from miogen.emit.merge import apply_edits
from miogen.lsp.settings import plain
from pygls.protocol import default_converter
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

PROFILES = ["visual-studio-code", "neovim@v0.7.0"]
# Every end-to-end test: one event loop for the session (the shared servers live in it), and a
# server message that breaks the client's declared capabilities fails the test.
E2E = [
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.filterwarnings("error::pytest_lsp.checks.LspSpecificationWarning"),
]
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


def edited_sign(body: str = "return 1", text: str = SHAPES) -> str:
    """``text`` with the last line of ``sign`` replaced: a code change of that unit only."""
    return text.replace("    return 1\n", f"    {body}\n")


def edited_stack(text: str = SHAPES) -> str:
    """``text`` with a code change in ``Stack`` only."""
    return text.replace('raise IndexError("empty")', 'raise IndexError("nothing to pop")')


def line_of(text: str, needle: str) -> int:
    """0-based line of the first line containing ``needle``."""
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


# --- the client -----------------------------------------------------------------------------


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


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    Recorder.attach(client)
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "miogen", "serve"], client_factory=make_client
)


class Recorder:
    """The client's record of miogen's notifications and of the edits it applied."""

    def __init__(self, client: LanguageClient) -> None:
        self.coverage: list[dict] = []
        self.statuses: list[dict] = []
        self.applied: list[types.ApplyWorkspaceEditParams] = []
        self.registrations: list[types.Registration] = []
        self.lens_refreshes: list[float] = []
        self.encoding = "utf-16"  # the client's positions, as the server chose them
        client.feature("miogen/coverage")(lambda params: self.coverage.append(_stamped(params)))
        client.feature("miogen/jobStatus")(lambda params: self.statuses.append(_stamped(params)))
        client.feature(types.WORKSPACE_APPLY_EDIT)(lambda params: self._apply_edit(params))
        client.feature(types.CLIENT_REGISTER_CAPABILITY)(
            lambda params: self.registrations.extend(params.registrations)
        )
        client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(
            lambda params: self.lens_refreshes.append(time.monotonic())
        )

    @classmethod
    def attach(cls, client: LanguageClient) -> None:
        client.recorder = cls(client)

    def _apply_edit(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        self.applied.append(params)
        apply_workspace_edit(params.edit, self.encoding)
        return types.ApplyWorkspaceEditResult(applied=True)


async def start(
    client: LanguageClient,
    profile: str,
    folders: list[Path],
    options: dict | None = None,
    capabilities: types.ClientCapabilities | None = None,
) -> None:
    client.profile = profile
    answer = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or client_capabilities(profile),
            root_uri=folders[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
            initialization_options=options,
        )
    )
    encoding = answer.capabilities.position_encoding or "utf-16"
    client.recorder.encoding = str(encoding)


class Editor:
    """One test's files in one project folder, and what the server said about them."""

    def __init__(self, client: LanguageClient, project: Path) -> None:
        self.client = client
        self.recorder: Recorder = client.recorder
        self.project = project
        self.versions: dict[str, int] = {}
        self._logs_from = len(client.log_messages)
        self._statuses_from = len(self.recorder.statuses)
        self._coverage_from = len(self.recorder.coverage)
        self._old_tokens = frozenset(client.progress_reports)
        project.mkdir(parents=True, exist_ok=True)
        self.configure()

    @property
    def profile(self) -> str:
        return self.client.profile

    def configure(self, **settings: Any) -> None:
        """Write the project's pyproject.toml with these ``[tool.miogen]`` settings."""
        lines = ['[project]\nname = "subject"\nversion = "0"\n\n[tool.miogen]']
        settings = {"budgetSeconds": 0.5, **settings}
        lines += [f"{key} = {_toml(value)}" for key, value in settings.items()]
        (self.project / "pyproject.toml").write_text("\n".join(lines) + "\n", "utf-8")

    def write(self, name: str, text: str = SHAPES) -> Path:
        path = self.project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        return path

    def uri(self, path: Path) -> str:
        return path.as_uri()

    # --- what an editor sends ----------------------------------------------------------------

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
        self.versions.pop(self.uri(path), None)
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(path))
            )
        )

    def close_all(self) -> None:
        for uri in list(self.versions):
            self.close(Path(to_fs_path(uri)))

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
        *,
        resolve: bool = True,
    ) -> list[types.CodeAction]:
        """The code actions at ``line``; those whose edit waits for codeAction/resolve are
        resolved (as a client does before applying one) unless ``resolve`` is False."""
        position = types.Position(line=line, character=0)
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(path)),
                range=types.Range(start=position, end=position),
                context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
            )
        )
        actions = list(found or [])
        if resolve:
            actions = [await self.resolve(action) for action in actions]
        return actions

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        if action.edit is not None or action.data is None:
            return action
        return await self.client.code_action_resolve_async(action)

    async def units(self, path: Path) -> list[dict]:
        answer = await self.client.protocol.send_request_async(
            "miogen/units", {"uri": self.uri(path)}
        )
        return plain(answer)

    # --- what arrived -----------------------------------------------------------------------

    def mine(self, uri: str) -> bool:
        return uri.startswith(self.project.as_uri() + "/")

    @property
    def statuses(self) -> list[dict]:
        found = self.recorder.statuses[self._statuses_from :]
        return [s for s in found if self.mine(s["uri"])]

    @property
    def coverage(self) -> list[dict]:
        found = self.recorder.coverage[self._coverage_from :]
        return [c for c in found if self.mine(c["uri"])]

    def diagnostics(self, path: Path, code: str | None = None) -> list[types.Diagnostic]:
        found = self.client.diagnostics.get(self.uri(path), [])
        return [d for d in found if code is None or d.code == code]

    def jobs(self, unit: str, state: str | None = None, path: Path | None = None) -> list[dict]:
        return [
            s
            for s in self.statuses
            if s["unit"] == unit
            and state in (None, s["state"])
            and (path is None or s["uri"] == self.uri(path))
        ]

    def times_queued(self, unit: str) -> int:
        """How many times ``unit`` entered "queued": a save may show its changed units as queued
        before the saved text's analysis is done (whether it does is a race with that analysis),
        and the job then says "queued" again; the two in a row count once."""
        states = [s["state"] for s in self.jobs(unit)]
        return sum(
            1
            for i, state in enumerate(states)
            if state == "queued" and states[i - 1 : i] != ["queued"]
        )

    def last_coverage(self, path: Path) -> dict | None:
        found = [c for c in self.coverage if c["uri"] == self.uri(path)]
        return found[-1] if found else None

    def unit_state(self, path: Path, unit: str) -> str | None:
        coverage = self.last_coverage(path)
        units = {u["name"]: u for u in coverage["units"]} if coverage else {}
        return units[unit]["state"] if unit in units else None

    def logs(self, text: str) -> list[str]:
        found = self.client.log_messages[self._logs_from :]
        return [m.message for m in found if text in m.message]

    def progress(self, title: str) -> list[list]:
        """The reports of each work-done progress begun (during this test) with ``title``."""
        return [
            reports
            for token, reports in self.client.progress_reports.items()
            if reports
            and getattr(reports[0], "title", None) == title
            and token not in self._old_tokens
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
        log = "\n".join(m.message for m in self.client.log_messages[self._logs_from :][-30:])
        raise AssertionError(f"timed out waiting for {what}\nserver log:\n{log}")

    async def wait_job(
        self, unit: str, state: str = "done", count: int = 1, path=None, timeout: float = WAIT
    ) -> dict:
        found = await self.wait(
            lambda: len(self.jobs(unit, state, path)) >= count and self.jobs(unit, state, path),
            f"{count} {unit} job(s) {state}",
            timeout,
        )
        return found[count - 1]

    async def idle(self, path: Path) -> None:
        """Wait until the server has handled everything sent so far (a request round trip)."""
        await self.units(path)


def apply_workspace_edit(edit: types.WorkspaceEdit, encoding: str = "utf-16") -> None:
    """Apply an edit to files on disk as a client does, positions in the client's ``encoding``."""
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
            path = Path(to_fs_path(operation.uri))
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                path.write_text("", "utf-8")
        elif isinstance(operation, types.TextDocumentEdit):
            path = Path(to_fs_path(operation.text_document.uri))
            text = path.read_text("utf-8") if path.exists() else ""
            lines = text.splitlines(keepends=True)
            edits = [
                MergeEdit(
                    e.range.start.line,
                    str_index(lines, e.range.start, encoding),
                    e.range.end.line,
                    str_index(lines, e.range.end, encoding),
                    e.new_text,
                )
                for e in operation.edits
            ]
            path.write_text(apply_edits(text, edits), "utf-8")


def str_index(lines: list[str], position: types.Position, encoding: str) -> int:
    """The str index of a client position (a count of UTF-8 bytes, UTF-16 units or characters)."""
    text = lines[position.line] if position.line < len(lines) else ""
    if encoding == "utf-32":
        return position.character
    codec = "utf-8" if encoding == "utf-8" else "utf-16-le"
    width = 1 if encoding == "utf-8" else 2
    encoded = text.encode(codec)[: position.character * width]
    return len(encoded.decode(codec, errors="strict"))


def _stamped(params) -> dict:
    """The notification as a dict, with the (monotonic) time it arrived under "_at"."""
    return {**plain(params), "_at": time.monotonic()}


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)
