"""Jobs: a newer save wins and starts from the old archive; cancelling; the parallel limit."""

from __future__ import annotations

from lsp_support import E2E, edited_sign
from lsprotocol import types

pytestmark = E2E


def _running_with_tests(editor, unit: str) -> bool:
    return any(s["state"] == "running" and s["covered"] > 0 for s in editor.jobs(unit))


async def test_a_newer_save_cancels_the_running_job_and_seeds_the_next(editor):
    editor.configure(budgetSeconds=4)
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    await editor.wait(lambda: _running_with_tests(editor, "sign"), "the search to find tests")

    editor.save(path, edited_sign("return 3"))
    cancelled = await editor.wait_job("sign", "cancelled")
    assert "superseded" in cancelled["message"]
    done = await editor.wait_job("sign")
    assert done["covered"] == 3
    [seeded] = editor.logs("sign: the search starts from")
    assert int(seeded.split("from ")[1].split()[0]) > 0
    first, second = editor.progress("miogen: sign")
    assert isinstance(first[-1], types.WorkDoneProgressEnd) and "cancelled" in first[-1].message
    assert isinstance(second[-1], types.WorkDoneProgressEnd) and "3/4" in second[-1].message


async def test_cancelling_the_progress_stops_the_job(editor):
    editor.configure(budgetSeconds=30)
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    [reports] = await editor.wait(lambda: editor.progress("miogen: sign"), "progress to begin")
    token = next(t for t, r in editor.client.progress_reports.items() if r is reports)
    editor.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

    cancelled = await editor.wait_job("sign", "cancelled")
    assert "user" in cancelled["message"]
    await editor.wait(lambda: isinstance(reports[-1], types.WorkDoneProgressEnd), "progress end")
    assert editor.unit_state(path, "sign") == "none"
    assert not editor.jobs("sign", "done")


async def test_the_cancel_command_stops_the_job(editor):
    editor.configure(budgetSeconds=30, generateOnSave="changed")
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign", "running")
    assert await editor.command("miogen.cancel", path, "sign") == {"cancelled": True}
    await editor.wait_job("sign", "cancelled")
    assert await editor.command("miogen.cancel", path, "sign") == {"cancelled": False}
    editor.save(path)  # unchanged since the user cancelled: no new job
    await editor.wait(lambda: editor.logs("nothing to generate: no unit changed"), "the save")


def _overlapping(statuses: list[dict]) -> bool:
    """Whether two units ever ran at once, from the jobStatus sequence."""
    running: set[str] = set()
    for status in statuses:
        if status["state"] == "running":
            running.add(status["unit"])
        elif status["state"] in ("done", "failed", "cancelled"):
            running.discard(status["unit"])
        if len(running) > 1:
            return True
    return False


TWINS = """\
def one(x: int) -> int:
    if x > 0:
        return 1
    return 0


def two(x: int) -> int:
    if x > 0:
        return 2
    return 0
"""


async def test_max_parallel_jobs_limits_the_workers(editor):
    path = editor.write("twins.py", TWINS)
    editor.open(path)
    editor.save(path, TWINS.replace("return 0", "return -1"))
    await editor.wait_job("one")
    await editor.wait_job("two")
    assert not _overlapping(editor.statuses), "maxParallelJobs = 1 by default"

    editor.configure(maxParallelJobs=2)
    first_round = len(editor.statuses)
    editor.save(path, TWINS.replace("return 0", "return -2"))
    await editor.wait_job("one", count=2)
    await editor.wait_job("two", count=2)
    assert _overlapping(editor.statuses[first_round:])


async def test_closing_the_file_cancels_its_jobs_and_clears_its_diagnostics(editor):
    editor.configure(budgetSeconds=30)
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    await editor.wait(lambda: _running_with_tests(editor, "sign"), "streamed results")
    await editor.wait(lambda: editor.diagnostics(path), "streamed diagnostics")
    editor.close(path)
    cancelled = await editor.wait_job("sign", "cancelled")
    assert "closed" in cancelled["message"]
    await editor.wait(lambda: editor.diagnostics(path) == [], "diagnostics to be cleared")
