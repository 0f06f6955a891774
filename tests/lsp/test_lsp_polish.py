"""Protocol polish: lens refresh, request cancellation, watched files, hovers."""

from __future__ import annotations

import asyncio

from lsp_support import E2E, SHAPES, edited_sign, line_of
from lsprotocol import types
from pygls.exceptions import JsonRpcException

pytestmark = E2E

CLAMP = """\
from helpers import LIMIT


def clamp(x: int) -> int:
    if x > LIMIT:
        return LIMIT
    return x
"""


def _watched(editor, *paths, kind=types.FileChangeType.Changed) -> None:
    """What the client sends when files it watches change on disk."""
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=editor.uri(path), type=kind) for path in paths]
        )
    )


async def test_lenses_are_refreshed_when_results_arrive(editor):
    refreshes = len(editor.recorder.lens_refreshes)
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign")
    await editor.idle(path)
    if editor.profile == "visual-studio-code":  # it declares workspace.codeLens.refreshSupport
        assert len(editor.recorder.lens_refreshes) > refreshes
        watchers = [  # the options arrive as plain JSON (LSPAny)
            w["globPattern"]
            for r in editor.recorder.registrations
            if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
            for w in r.register_options["watchers"]
        ]
        assert watchers == ["**/*.py", "**/pyproject.toml"]
    else:  # Neovim 0.7 declares neither: nothing is sent that it cannot take
        assert not editor.recorder.lens_refreshes and not editor.recorder.registrations


async def test_cancelling_the_generate_request_cancels_its_job(editor):
    editor.configure(budgetSeconds=60)
    path = editor.write("shapes.py")
    editor.open(path)
    request_id = f"generate-{editor.profile}"
    answer = editor.client.protocol.send_request(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(
            command="miogen.generateTests", arguments=[{"uri": editor.uri(path), "unit": "Stack"}]
        ),
        msg_id=request_id,
    )
    await editor.wait_job("Stack", "running")
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
    status = await editor.wait_job("Stack", "cancelled")
    assert status["message"] == "cancelled (user)"
    try:
        await asyncio.wait_for(asyncio.wrap_future(answer), timeout=30)
    except JsonRpcException as error:
        assert "cancel" in str(error).lower()
    else:
        raise AssertionError("the cancelled request was answered with a result")


async def test_a_changed_import_or_settings_file_marks_results_stale(editor):
    helpers = editor.write("helpers.py", "LIMIT = 10\n")
    path = editor.write("clamp.py", CLAMP)
    editor.open(path)
    editor.save(path, CLAMP.replace("return x\n", "return x + 0\n"))
    await editor.wait_job("clamp")
    await editor.wait(lambda: editor.unit_state(path, "clamp") == "done", "the result")

    _watched(editor, editor.write("unrelated.py", "X = 1\n"))
    await editor.idle(path)
    assert editor.unit_state(path, "clamp") == "done", "a module it does not import"

    helpers.write_text("LIMIT = 20\n", "utf-8")
    _watched(editor, helpers)
    await editor.wait(lambda: editor.unit_state(path, "clamp") == "stale", "stale")
    [lens] = await editor.lenses(path)
    assert lens.command.title == "miogen: Generate tests"
    hover = await _hover(editor, path, line_of(CLAMP, "def clamp"))
    assert "the imported module helpers changed" in hover

    editor.save(path)  # no code change: the stale result is generated again
    await editor.wait_job("clamp", count=2)
    await editor.wait(lambda: editor.unit_state(path, "clamp") == "done", "the new result")

    editor.configure(budgetSeconds=1)
    _watched(editor, editor.project / "pyproject.toml")
    await editor.wait(lambda: editor.unit_state(path, "clamp") == "stale", "stale settings")


async def test_tests_removed_from_the_test_file_mark_the_result_stale(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign")
    result = await editor.command("miogen.insertTests", path, "sign")
    test_file = editor.project / "tests" / "test_shapes_miogen.py"
    assert result["applied"] and test_file.exists()
    _watched(editor, test_file)  # the insertion itself: nothing stale
    await editor.idle(path)
    assert editor.unit_state(path, "sign") == "done"

    text = test_file.read_text("utf-8")
    test_file.write_text(text[: text.index("def test_")], "utf-8")
    _watched(editor, test_file)
    await editor.wait(lambda: editor.unit_state(path, "sign") == "stale", "stale")
    assert "were edited or removed" in await _hover(editor, path, line_of(SHAPES, "def sign"))


async def test_hover_on_a_unit_says_what_miogen_knows(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    assert "no tests generated yet" in await _hover(editor, path, line_of(SHAPES, "class Stack"))
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign")
    text = await _hover(editor, path, line_of(SHAPES, "def sign"))
    assert "`sign`: 3/4 branches covered by" in text and "never true" in text
    assert "Other criteria: line " in text and "exception 0 found" in text  # issue 15
    assert await _hover(editor, path, line_of(SHAPES, "return -1")) is None


async def _hover(editor, path, line: int) -> str | None:
    answer = await editor.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=editor.uri(path)),
            position=types.Position(line=line, character=1),
        )
    )
    return answer.contents.value if answer is not None else None
