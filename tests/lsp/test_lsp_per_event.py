"""A save takes its file's place and settings once (issue 25, part 5): the server counts the
computations of the settings (``Locator``'s calls of ``settings.resolve``) in a file named by its
argument, and a whole save (analysis, plan, job, its progress and result) may compute them at
most once: the editor's layers, then with the project file's."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsp_support import E2E, Editor, edited_sign, make_client, start
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = E2E

COUNT = Path(tempfile.mkdtemp(prefix="miogen-resolved-")) / "resolved"
COUNTING = """
import sys
from pathlib import Path

import miogen.lsp.locator as locator

count, resolve = Path(sys.argv[1]), locator.resolve


def counted(*layers):
    with count.open("a", encoding="utf-8") as file:
        file.write("resolve\\n")
    return resolve(*layers)


locator.resolve = counted
sys.argv = ["miogen", "serve"]
from miogen.__main__ import main

sys.exit(main())
"""
COUNTED = ClientServerConfig(
    server_command=[sys.executable, "-c", COUNTING, str(COUNT)], client_factory=make_client
)


@pytest_lsp.fixture(config=COUNTED, loop_scope="session")
async def counted(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


def _resolved() -> int:
    return len(COUNT.read_text("utf-8").splitlines()) if COUNT.exists() else 0


async def test_a_save_computes_the_settings_at_most_once(counted, tmp_path):
    root = tmp_path / "ws"
    editor = Editor(counted, root / "project")
    await start(counted, "visual-studio-code", [root])
    path = editor.write("shapes.py")
    editor.open(path)
    await editor.wait(lambda: editor.last_coverage(path), "the opened file's analysis")
    assert _resolved() > 0, "the counting wrapper sees the server's computations"

    editor.configure(maxParallelJobs=2)  # a newer project file: the save computes anew
    before = _resolved()
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign")
    await editor.wait(lambda: editor.unit_state(path, "sign") == "done", "the result shown")
    assert editor.logs("settings for")[-1].count("maxParallelJobs=2") == 1
    assert _resolved() - before <= 2, "one computation: the editor's layers, then the project's"
    editor.close_all()
