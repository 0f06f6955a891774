"""Bad input costs a job, never the session: import errors, crashing and hanging workers,
user code that writes to stdout, and files outside the workspace."""

from __future__ import annotations

import pytest
from lsp_support import E2E, SHAPES, edited_sign, line_of
from lsprotocol import types
from pygls.exceptions import JsonRpcException

pytestmark = E2E

UNIMPORTABLE = """\
import miogen_no_such_module_anywhere


def double(x: int) -> int:
    if x > 1:
        return 2 * x
    return x
"""

DANGEROUS = """\
import os
import signal
import time


def explode(x: int) -> int:
    if x > 5:
        os._exit(3)
    return x


def stall(x: int) -> int:
    if x > 5:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)
    return x
"""

NOISY = """\
import os
import sys


def chatty(x: int) -> int:
    print("Content-Length: 99")
    os.write(1, b"Content-Length: 5\\r\\n\\r\\n{}{}{}")
    sys.stdout.flush()
    if x > 3:
        return 1
    return 0
"""


def _touch(text: str, unit_line: str) -> str:
    """A code change inside the unit whose line is ``unit_line`` (the docstring-free way)."""
    return text.replace(unit_line, unit_line + "\n    pass", 1)


async def test_an_unimportable_module_gets_one_error_at_its_first_line(editor):
    path = editor.write("broken.py", UNIMPORTABLE)
    editor.open(path)
    editor.save(path, _touch(UNIMPORTABLE, "def double(x: int) -> int:"))
    await editor.wait_job("double", "failed")
    [error] = await editor.wait(lambda: editor.diagnostics(path, "import-error"), "import error")
    assert error.severity == types.DiagnosticSeverity.Error and error.range.start.line == 0
    assert "ModuleNotFoundError" in error.message and "miogen_no_such_module" in error.message
    assert editor.unit_state(path, "double") == "failed"


async def test_crashing_and_hanging_workers_get_a_warning_and_the_session_goes_on(editor):
    path = editor.write("dangerous.py", DANGEROUS)
    editor.open(path)
    text = _touch(_touch(DANGEROUS, "def explode(x: int) -> int:"), "def stall(x: int) -> int:")
    editor.save(path, text)
    await editor.wait(
        lambda: editor.jobs("explode", "done") + editor.jobs("explode", "failed"), "explode"
    )
    await editor.wait(
        lambda: editor.jobs("stall", "done") + editor.jobs("stall", "failed"), "stall"
    )
    warnings = await editor.wait(
        lambda: (
            len(editor.diagnostics(path, "worker-failed")) == 2
            and editor.diagnostics(path, "worker-failed")
        ),
        "two worker-failed warnings",
    )
    by_line = {w.range.start.line: w for w in warnings}
    assert set(by_line) == {line_of(text, "def explode"), line_of(text, "def stall")}
    assert all(w.severity == types.DiagnosticSeverity.Warning for w in warnings)
    assert "exited with status 3" in by_line[line_of(text, "def explode")].message
    assert "longer than" in by_line[line_of(text, "def stall")].message

    shapes = editor.write("shapes.py")
    editor.open(shapes)
    editor.save(shapes, edited_sign("return 2"))
    assert (await editor.wait_job("sign"))["covered"] == 3


async def test_a_unit_that_writes_to_stdout_does_not_break_the_session(editor):
    path = editor.write("noisy.py", NOISY)
    editor.open(path)
    editor.save(path, _touch(NOISY, "def chatty(x: int) -> int:"))
    done = await editor.wait_job("chatty")
    assert done["covered"] == done["total"] == 2
    assert [u["name"] for u in await editor.units(path)] == ["chatty"]
    assert editor.client.error is None


async def test_files_outside_the_workspace_folders_are_not_run(editor, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = elsewhere / "shapes.py"
    path.write_text(SHAPES, "utf-8")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    await editor.wait(lambda: editor.logs("outside the workspace folders"), "a refusal")
    with pytest.raises(JsonRpcException, match="outside the workspace folders"):
        await editor.command("miogen.generateTests", path, "sign")
    assert not [s for s in editor.recorder.statuses if s["uri"] == path.as_uri()]

    folder = types.WorkspaceFolder(uri=elsewhere.as_uri(), name="elsewhere")
    editor.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])
        )
    )
    editor.save(path, edited_sign("return 3"))
    await editor.wait(
        lambda: [s for s in editor.recorder.statuses if s["uri"] == path.as_uri()], "a job"
    )
    editor.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])
        )
    )
    editor.close(path)
