"""Client interop: edits every client applies the same way; position encodings; missing features.

Each test starts a server of its own as one client would (pytest-lsp's recorded capabilities of
VS Code 1.65, Neovim 0.11 and Emacs 29.1, and a bare client that declares nothing but
``workspace/applyEdit``), and applies the Insert action the way that client does: the edit it
carries, else the one ``codeAction/resolve`` gives, else its command (the server then sends
``workspace/applyEdit``). The module has non-ASCII identifiers and strings before the lines that
are edited, so positions land right only in the encoding the server chose.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_support import E2E, Editor, apply_workspace_edit, start
from lsprotocol import types
from miogen.emit.files import HEADER
from miogen.lsp.convert import workspace_edit
from pygls.protocol import default_converter

pytestmark = E2E

CAFE = '''\
"""Le café — «non-ASCII» text before the class: positions must be encoded right. 😀"""

SALUTATION = "héllo wörld ✓ 😀"


class Café:
    """A café's till."""

    def __init__(self) -> None:
        self.total = 0

    def encaisser(self, montant: int) -> int:
        if montant <= 0:
            raise ValueError("montant ≤ 0 😀")
        self.total += montant
        return self.total
'''

USER_TESTS = f'''{HEADER}
"""Mes tests — déjà là."""

from cafe import SALUTATION


def test_déjà():
    assert SALUTATION.endswith("😀")'''  # no line end: the insertion starts on this line

BARE = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(apply_edit=True))
PROFILES = ["visual-studio-code", "neovim@v0.11.0", "emacs@v29.1", "bare"]
ENCODING = {"visual-studio-code": "utf-16", "neovim@v0.11.0": "utf-8", "emacs@v29.1": "utf-32",
            "bare": "utf-16"}  # fmt: skip


async def _session(client, profile: str, root: Path) -> Editor:
    editor = Editor(client, root / "project")
    capabilities = BARE if profile == "bare" else None
    await start(client, profile, [root], capabilities=capabilities)
    assert client.recorder.encoding == ENCODING[profile]
    return editor


async def _generated(editor: Editor) -> Path:
    path = editor.write("cafe.py", CAFE)
    editor.open(path)
    editor.save(path, CAFE.replace("self.total = 0", "self.total = 0  # vide").replace(
        'raise ValueError("montant ≤ 0 😀")', 'raise ValueError("montant ≤ 0 !")'))  # fmt: skip
    await editor.wait_job("Café")
    return path


async def _apply_insert(editor: Editor, path: Path) -> tuple[str, types.WorkspaceEdit]:
    """Apply the Insert action as the client would; how, and the edit that was applied."""
    line = next(i for i, text in enumerate(CAFE.splitlines()) if text.startswith("class Café"))
    actions = await editor.actions(path, line, only=["source"], resolve=False)
    [action] = [a for a in actions if a.title.startswith("Insert ")]
    assert action.kind == "source.miogen.insertTests"
    if action.edit is not None:
        apply_workspace_edit(action.edit, editor.recorder.encoding)
        return "inline", action.edit
    if action.data is not None:
        resolved = await editor.resolve(action)
        apply_workspace_edit(resolved.edit, editor.recorder.encoding)
        return "resolved", resolved.edit
    applied = len(editor.recorder.applied)
    result = await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=action.command.command, arguments=list(action.command.arguments)
        )
    )
    assert result["applied"], result
    return "command", editor.recorder.applied[applied].edit


def _pytest(project: Path, test_file: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        cwd=project, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]


@pytest.mark.parametrize("fresh", PROFILES, indirect=True)
async def test_the_insert_action_creates_the_test_file_in_every_client(fresh, tmp_path):
    editor = await _session(fresh, fresh.profile, tmp_path / "ws")
    path = await _generated(editor)
    test_file = editor.project / "tests" / "test_cafe_miogen.py"
    how, edit = await _apply_insert(editor, path)
    expected = {"visual-studio-code": "resolved", "neovim@v0.11.0": "resolved",
                "emacs@v29.1": "command", "bare": "command"}  # fmt: skip
    assert how == expected[fresh.profile]
    if how == "resolved":  # clients that create files: CreateFile (no options), then the text
        create, insert = edit.document_changes
        assert isinstance(create, types.CreateFile) and create.options is None
        assert insert.text_document.version is None
    elif fresh.profile == "emacs@v29.1":  # documentChanges without "create": the server did
        [insert] = edit.document_changes
        assert isinstance(insert, types.TextDocumentEdit)
    else:  # no documentChanges at all: the plain map
        assert edit.document_changes is None and list(edit.changes) == [test_file.as_uri()]
    text = test_file.read_text("utf-8")
    assert "from cafe import Café" in text and "def test_" in text
    _pytest(editor.project, test_file)
    editor.close_all()


@pytest.mark.parametrize("fresh", ["visual-studio-code", "neovim@v0.11.0", "emacs@v29.1"],
                         indirect=True)  # fmt: skip
async def test_insertions_and_ranges_are_in_the_clients_encoding(fresh, tmp_path):
    editor = await _session(fresh, fresh.profile, tmp_path / "ws")
    test_file = editor.write("tests/test_cafe_miogen.py", USER_TESTS)
    path = await _generated(editor)
    how, edit = await _apply_insert(editor, path)
    [change] = edit.document_changes
    last = USER_TESTS.splitlines()[-1]
    width = {"utf-16": len(last.encode("utf-16-le")) // 2, "utf-8": len(last.encode()),
             "utf-32": len(last)}[editor.recorder.encoding]  # fmt: skip
    ends = [
        e.range.start
        for e in change.edits
        if e.range.start.line == len(USER_TESTS.splitlines()) - 1
    ]
    assert ends and all(position.character == width for position in ends), (ends, width)
    merged = test_file.read_text("utf-8")
    assert merged.startswith(USER_TESTS.split("\n\n")[0]) and last + "\n" in merged
    _pytest(editor.project, test_file)

    [lens] = await editor.lenses(path)
    header = "class Café:"
    assert (
        lens.range.end.character
        == {"utf-16": 11, "utf-8": 12, "utf-32": 11}[editor.recorder.encoding]
    )
    assert lens.range.start.line == CAFE.splitlines().index(header)
    hover = await editor.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri(path)),
            position=types.Position(line=lens.range.start.line, character=2),
        )
    )
    assert "`Café`" in hover.contents.value and "covered by" in hover.contents.value

    # An incremental change after non-ASCII text on its line: "Café" becomes "Cafés".
    at = types.Position(line=lens.range.start.line, character=lens.range.end.character - 1)
    editor.versions[editor.uri(path)] += 1
    editor.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=editor.uri(path), version=editor.versions[editor.uri(path)]
            ),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text="s"
                )
            ],
        )
    )
    names: list[str] = []
    for _ in range(600):  # the answer follows the analysis of the new text within a minute
        names = [unit["name"] for unit in await editor.units(path)]
        if names != ["Café"]:
            break
        await asyncio.sleep(0.1)
    assert names == ["Cafés"], "the change landed after the é, in the client's encoding"
    editor.close_all()


@pytest.mark.parametrize("fresh", ["bare"], indirect=True)
async def test_a_client_without_progress_lenses_or_registration_still_gets_results(fresh, tmp_path):
    editor = await _session(fresh, "bare", tmp_path / "ws")
    path = await _generated(editor)
    await editor.wait(lambda: editor.unit_state(path, "Café") == "done", "the result")
    assert editor.logs("the client does not watch files for the server")
    assert not fresh.progress_reports, "no work-done progress for a client without it"
    assert not fresh.recorder.registrations and not fresh.recorder.lens_refreshes
    hover = await editor.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri(path)),
            position=types.Position(line=CAFE.splitlines().index("class Café:"), character=0),
        )
    )
    assert hover.contents.kind == types.MarkupKind.PlainText and "**" not in hover.contents.value
    editor.close_all()


async def test_an_unknown_version_is_sent_as_an_explicit_null():
    """``OptionalVersionedTextDocumentIdentifier.version`` is required and may be null: pygls'
    converter keeps the null (a missing key would be invalid)."""
    edit = workspace_edit("file:///t.py", [], create=True, version=None, document_changes=True)
    wire = default_converter().unstructure(edit)
    assert wire["documentChanges"][0] == {"kind": "create", "uri": "file:///t.py"}
    assert wire["documentChanges"][1]["textDocument"] == {"uri": "file:///t.py", "version": None}
    open_file = workspace_edit("file:///t.py", [], create=False, version=7, document_changes=True)
    assert (
        default_converter().unstructure(open_file)["documentChanges"][0]["textDocument"]["version"]
        == 7
    )
