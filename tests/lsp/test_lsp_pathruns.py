"""``miogen.generateTestsForPaths``: ``miogen ctg`` over files and folders, from the editor."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsp_support import E2E, SHAPES, Editor, start
from lsprotocol import types
from miogen.emit.files import HEADER
from miogen.lsp.pathruns import command
from miogen.lsp.settings import Settings
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams


def e2e(test):
    """The end-to-end marks (the module also holds a plain test)."""
    for mark in E2E:
        test = mark(test)
    return test


CLAMP = '''\
"""Clamping."""


def clamp(x: int, low: int, high: int) -> int:
    if x < low:
        return low
    if x > high:
        return high
    return x
'''


def _params(editor, *paths: Path) -> types.ExecuteCommandParams:
    return types.ExecuteCommandParams(
        command="miogen.generateTestsForPaths",
        arguments=[{"uris": [editor.uri(path) for path in paths]}],
    )


async def _run(editor, *paths: Path) -> dict:
    return await editor.client.workspace_execute_command_async(_params(editor, *paths))


def _ctg_processes(project: Path) -> list[int]:
    """Processes running ``miogen ctg`` on this test's project."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"ctg" in argv and any(str(project).encode() in part for part in argv):
            found.append(int(entry.name))
    return found


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _only_vscode(editor) -> None:
    if editor.profile != "visual-studio-code":
        pytest.skip("a whole ctg run per profile is slow; the protocol is the same")


@e2e
async def test_a_file_then_its_folder_get_tests_with_progress(editor):
    _only_vscode(editor)
    editor.configure(budgetSeconds=2)
    shapes = editor.write("shapes.py", SHAPES)
    editor.write("clamp.py", CLAMP)
    before = _files(editor.project)

    result = await _run(editor, shapes)
    shapes_tests = editor.project / "tests" / "test_shapes_miogen.py"
    clamp_tests = editor.project / "tests" / "test_clamp_miogen.py"
    assert result["written"] == [shapes_tests.as_uri()], result
    assert result["cancelled"] is False and result["units"] == 2 and result["tests"] >= 1
    assert 0 < result["covered"] <= result["total"]
    assert shapes_tests.read_text("utf-8").startswith(HEADER)
    assert not clamp_tests.exists(), "a file run touches only that file's tests"
    new = _files(editor.project) - before
    assert all(name.startswith(("tests/", ".miogen/")) for name in new), new
    [reports] = editor.progress("miogen: generating tests for shapes.py")
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    assert any(isinstance(r, types.WorkDoneProgressReport) and "Stack" in (r.message or "")
               for r in reports)  # fmt: skip
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == result["message"]

    result = await _run(editor, editor.project)
    assert clamp_tests.as_uri() in result["written"] and result["units"] == 3
    assert "def test_" in clamp_tests.read_text("utf-8")


@e2e
async def test_cancelling_the_request_stops_the_run_and_writes_nothing(editor):
    editor.configure(budgetSeconds=60)
    shapes = editor.write("shapes.py", SHAPES)
    request_id = f"paths-{editor.profile}"
    title = "miogen: generating tests for shapes.py"
    answer = editor.client.protocol.send_request(
        types.WORKSPACE_EXECUTE_COMMAND, _params(editor, shapes), msg_id=request_id
    )
    await editor.wait(lambda: editor.progress(title), "the run's progress")
    await editor.wait(lambda: _ctg_processes(editor.project), "the ctg process")
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
    with pytest.raises(JsonRpcException, match="(?i)cancel"):
        await asyncio.wait_for(asyncio.wrap_future(answer), timeout=90)
    # The progress ends once the run has stopped (the answer may come before).
    ended = lambda: isinstance(editor.progress(title)[0][-1], types.WorkDoneProgressEnd)  # noqa: E731
    await editor.wait(ended, "the end of the progress")
    assert editor.progress(title)[0][-1].message == "cancelled"
    assert not _ctg_processes(editor.project), "the run goes on after the cancel"
    assert not (editor.project / "tests").exists()
    assert not [p for p in editor.project.rglob("*.tmp")], "a half-written file is left"


@e2e
async def test_cancel_on_the_progress_stops_the_run(editor):
    editor.configure(budgetSeconds=60)
    shapes = editor.write("shapes.py", SHAPES)
    title = "miogen: generating tests for shapes.py"
    answer = asyncio.ensure_future(_run(editor, shapes))
    await editor.wait(lambda: editor.progress(title), "the run's progress")
    await editor.wait(lambda: _ctg_processes(editor.project), "the ctg process")
    [token] = [
        token
        for token, reports in editor.client.progress_reports.items()
        if reports
        and getattr(reports[0], "title", None) == title
        and token not in editor._old_tokens  # begun in this test
    ]
    editor.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(answer, timeout=90)
    assert result["cancelled"] is True and result["written"] == []
    assert not _ctg_processes(editor.project)
    assert not (editor.project / "tests").exists()


@e2e
async def test_paths_outside_the_workspace_or_malformed_are_refused(editor, tmp_path):
    outside = tmp_path / "elsewhere.py"
    outside.write_text(SHAPES, "utf-8")
    with pytest.raises(JsonRpcException, match="outside the workspace folders"):
        await _run(editor, outside)
    with pytest.raises(JsonRpcException, match="no such file or folder"):
        await _run(editor, editor.project / "missing.py")
    with pytest.raises(JsonRpcInvalidParams, match="uris"):
        await editor.client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="miogen.generateTestsForPaths", arguments=[{"uri": "file:///x.py"}]
            )
        )
    assert not outside.with_name("tests").exists()


@e2e
async def test_a_tests_folder_linked_outside_the_project_gets_nothing(editor, tmp_path):
    _only_vscode(editor)
    editor.configure(budgetSeconds=1)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, editor.project / "tests")
    clamp = editor.write("clamp.py", CLAMP)
    result = await _run(editor, clamp)
    assert result["written"] == [] and list(elsewhere.iterdir()) == []
    assert any("outside" in warning for warning in result["warnings"]), result


def test_the_run_gets_the_editors_settings_as_flags(tmp_path):
    settings = Settings(
        budget_seconds=3, max_parallel_jobs=2, seed=7, tests_directory="checks",
        test_file_pattern="test_{module}_gen.py", performance=False, mutation_share=0.0,
    )  # fmt: skip
    argv = command([tmp_path / "a.py"], tmp_path, settings, modules=4)
    flags = {flag: argv[i + 1] for i, flag in enumerate(argv[:-1]) if flag.startswith("--")}
    assert argv[1:4] == ["-m", "miogen", "ctg"] and argv[4] == str(tmp_path / "a.py")
    assert flags["--budget"] == "6"  # 3 s for each of 4 modules, over 2 job slots
    assert flags["--jobs"] == "2" and flags["--seed"] == "7"
    assert flags["--tests-directory"] == "checks"
    assert flags["--test-file-pattern"] == "test_{module}_gen.py"
    assert flags["--project-root"] == str(tmp_path)
    assert "--performance" not in argv and "--json" in argv
    assert "--join-tests" not in argv and "--evaluations" not in argv


def test_the_run_gets_the_editors_join_tests_and_evaluations(tmp_path):
    settings = Settings(join_tests=True, evaluations=300)
    argv = command([tmp_path / "a.py"], tmp_path, settings, modules=1)
    assert "--join-tests" in argv and argv[argv.index("--evaluations") + 1] == "300"


@e2e
async def test_shutdown_while_a_run_is_under_way_is_answered(fresh, tmp_path):
    editor = Editor(fresh, tmp_path / "ws" / "project")
    await start(fresh, fresh.profile, [tmp_path / "ws"])
    editor.configure(budgetSeconds=60)
    shapes = editor.write("shapes.py", SHAPES)
    answer = asyncio.ensure_future(_run(editor, shapes))
    await editor.wait(lambda: editor.progress("miogen: generating tests for shapes.py"), "progress")
    await fresh.shutdown_session()  # pygls cancels the pending command; shutdown is answered
    fresh.capabilities = None  # the fixture's own shutdown_session: done already
    with pytest.raises(JsonRpcException):
        await asyncio.wait_for(answer, timeout=30)
    await editor.wait(lambda: not _ctg_processes(editor.project), "the run to stop", timeout=60)
    assert not (editor.project / "tests").exists()
