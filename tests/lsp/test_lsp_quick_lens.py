"""A file just opened gets its lenses before its analysis is done (issue 26, part 5): from a
parse of the text, without counts; when the analysis arrives the client is asked to refresh them.

The server's analyses wait for a gate file (``MIOGEN_TEST_ANALYSIS_GATE``), so the test sees
what is answered before the analysis finishes without depending on the machine's speed."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsp_support import E2E, SHAPES, WAIT, Editor, edited_sign, line_of, make_client, start
from lsprotocol import types
from miogen.lsp.analyser import GATE_VARIABLE
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = E2E

GATE = Path(tempfile.mkdtemp(prefix="miogen-gate-")) / "open"
GATED = ClientServerConfig(
    server_command=[sys.executable, "-m", "miogen", "serve"],
    client_factory=make_client,
    server_env={**os.environ, GATE_VARIABLE: str(GATE)},
)


@pytest_lsp.fixture(config=GATED, loop_scope="session")
async def gated(lsp_client: LanguageClient):
    yield
    GATE.touch()  # an analysis still waiting lets the server end
    await lsp_client.shutdown_session()


def _titles(lenses: list[types.CodeLens]) -> list[tuple[int, str]]:
    return sorted((lens.range.start.line, lens.command.title) for lens in lenses if lens.command)


async def test_lenses_come_before_the_analysis_then_a_refresh(gated, tmp_path):
    root = tmp_path / "ws"
    editor = Editor(gated, root / "project")
    await start(gated, "visual-studio-code", [root])
    path = editor.write("shapes.py")
    editor.open(path)

    lenses = await asyncio.wait_for(editor.lenses(path), WAIT)  # the analysis is held
    quick = [
        (line_of(SHAPES, "class Stack"), "miogen: Generate tests"),
        (line_of(SHAPES, "def sign"), "miogen: Generate tests"),
    ]
    assert _titles(lenses) == quick, "one lens per unit, no counts: none are known yet"
    assert [list(lens.command.arguments or ()) for lens in lenses if lens.command] == [
        [{"uri": editor.uri(path), "unit": "Stack"}],
        [{"uri": editor.uri(path), "unit": "sign"}],
    ]
    assert not editor.recorder.lens_refreshes

    GATE.touch()
    await editor.wait(lambda: editor.recorder.lens_refreshes, "a lens refresh")
    assert _titles(await editor.lenses(path)) == quick, "the analysed text's, as the parse had"

    editor.save(path, edited_sign("return 2"))
    await editor.wait(lambda: editor.unit_state(path, "sign") == "done", "the result")
    counted = _titles(await editor.lenses(path))
    assert (line_of(SHAPES, "def sign"), "miogen: 3/4 branches · Generate tests") in counted
    editor.close_all()
