"""Bad requests get LSP errors (never a traceback or silence); what a project file may not widen
is capped and logged as used; a module Python decodes by its coding cookie works from disk."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import Future

import pytest
from lsp_support import E2E, SHAPES
from lsprotocol import types
from pygls.exceptions import JsonRpcException

pytestmark = E2E

INVALID_PARAMS = -32602

LATIN1 = """\
# -*- coding: latin-1 -*-
\"\"\"Caf\xe9 prices.\"\"\"


def greet(name: str) -> str:
    if name == "Jos\xe9":
        return "ol\xe1 " + name
    return "hi"
"""


async def request(editor, method: str, params) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as refused:
        await editor.client.protocol.send_request_async(method, params)
    return refused.value


async def raw_request(editor, method: str, params: dict) -> JsonRpcException:
    """A request sent as written (the client would not serialize wrong types), its error."""
    protocol = editor.client.protocol
    msg_id = f"raw-{uuid.uuid4()}"
    answer: Future = Future()
    protocol._request_futures[msg_id] = answer
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    with pytest.raises(JsonRpcException) as refused:
        await asyncio.wait_for(asyncio.wrap_future(answer), timeout=60)
    return refused.value


async def test_a_request_with_parameters_of_the_wrong_types_is_answered_with_invalid_params(
    editor,
):
    path = editor.write("shapes.py", SHAPES)
    editor.open(path)
    params = {"textDocument": 5, "position": "x"}
    error = await raw_request(editor, types.TEXT_DOCUMENT_HOVER, params)
    assert error.code == INVALID_PARAMS, error
    assert "textDocument/hover" in error.message and "position.line" in error.message
    error = await raw_request(editor, types.TEXT_DOCUMENT_CODE_LENS, {})
    assert error.code == INVALID_PARAMS and "textDocument/codeLens" in error.message
    assert await editor.units(path), "the session goes on"


@pytest.mark.parametrize("command", ["miogen.generateTests", "miogen.insertTests", "miogen.cancel"])
@pytest.mark.parametrize(
    ("arguments", "said"),
    [(None, "got 0 arguments"), ([5], "got 5"), ([{"uri": 3}], "got {'uri': 3}"),
     ([{"uri": "file:///a.py", "unit": "A"}, 1], "got 2 arguments")],
)  # fmt: skip
async def test_miogens_commands_without_or_with_wrong_arguments_say_what_they_take(
    editor, command, arguments, said
):
    error = await request(
        editor,
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command=command, arguments=arguments),
    )
    assert error.code == INVALID_PARAMS, error
    assert f'{command} takes one argument, {{"uri": ' in error.message and said in error.message
    assert "Traceback" not in str(error.data or "") + error.message


async def test_a_project_file_cannot_raise_the_parallel_jobs_and_the_log_says_what_is_used(editor):
    editor.configure(maxParallelJobs=16, budgetSeconds=600)
    path = editor.write("shapes.py", SHAPES)
    editor.open(path)
    editor.save(path)
    await editor.wait(lambda: editor.logs("max-parallel-jobs = 16"), "the cap's warning")
    [note] = editor.logs("max-parallel-jobs = 16")
    assert "capped at 4" in note
    [used] = await editor.wait(lambda: editor.logs(f"settings for {editor.project}"), "the log")
    assert "maxParallelJobs=4" in used and "budgetSeconds=60.0" in used, used


async def test_a_latin1_module_on_disk_is_read_as_python_reads_it(editor):
    path = editor.project / "prices.py"
    path.write_bytes(LATIN1.encode("latin-1"))
    uri = editor.uri(path)
    editor.versions[uri] = 1
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                 text=LATIN1)
        )
    )  # fmt: skip
    editor.configure(evaluations=200)
    answer = await editor.command("miogen.generateTests", path, "greet")
    assert answer["applied"] and answer["covered"] == answer["total"] == 2, answer
    assert not editor.logs("internal error") and not editor.logs("UnicodeDecodeError")
    assert "olá José" in (editor.project / "tests" / "test_prices_miogen.py").read_text("utf-8")
