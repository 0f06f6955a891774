"""On save: changed units are generated in the background and their results stream to the editor."""

from __future__ import annotations

from lsp_support import E2E, SHAPES, edited_sign, line_of
from lsprotocol import types

pytestmark = E2E


async def test_a_save_streams_progress_diagnostics_coverage_and_lenses(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))

    done = await editor.wait_job("sign")
    states = [s["state"] for s in editor.jobs("sign")]
    assert states[0] == "queued" and "running" in states and states[-1] == "done"
    assert done["total"] == 4 and done["covered"] == 3 and done["percent"] == 100
    assert not editor.jobs("Stack"), "Stack did not change: nothing to do"

    [reports] = editor.progress("miogen: sign")
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert "3/4 branches" in reports[-1].message
    middle = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert all(r.message.endswith("/4 branches") for r in middle)

    condition = line_of(SHAPES, "x * x == -1")
    uncovered = await editor.wait(
        lambda: editor.diagnostics(path, "uncovered-branch"), "uncovered-branch diagnostics"
    )
    [miss] = uncovered
    assert miss.source == "miogen" and miss.severity == types.DiagnosticSeverity.Information
    assert miss.message.startswith("`x * x == -1` never true")
    assert miss.range.start == types.Position(line=condition, character=7)
    assert miss.range.end == types.Position(line=condition, character=18)
    covered = editor.diagnostics(path, "covered-branch")
    assert len(covered) == 3
    assert all(d.severity == types.DiagnosticSeverity.Hint for d in covered)
    assert all("covered by test_" in d.message for d in covered)

    coverage = editor.last_coverage(path)
    units = {u["name"]: u for u in coverage["units"]}
    assert units["sign"]["state"] == "done" and (
        units["sign"]["covered"],
        units["sign"]["total"],
    ) == (3, 4)
    assert units["Stack"]["state"] == "none"
    assert condition in coverage["lines"]["partial"]
    assert line_of(SHAPES, "return -1") in coverage["lines"]["covered"]
    assert line_of(SHAPES, "return 99") in coverage["lines"]["uncovered"]
    assert [m["line"] for m in coverage["missing"]] == [condition]
    streamed = [c for c in editor.coverage if any(u["state"] == "running" for u in c["units"])]
    assert streamed, "results stream while the job runs"

    lenses = {lens.command.title for lens in await editor.lenses(path)}
    assert lenses == {"miogen: 3/4 branches · Generate tests", "miogen: Generate tests"}


async def test_formatting_and_comment_edits_schedule_nothing(editor):
    editor.configure(generateOnSave="changed")  # only changes count (untested units wait)
    path = editor.write("shapes.py")
    editor.open(path)
    cosmetic = SHAPES.replace("    if x < 0:\n", "    # negative numbers\n\n    if (x < 0):\n")
    cosmetic = cosmetic.replace("self.capacity = capacity", "self.capacity = capacity  # max")
    editor.save(path, cosmetic)
    await editor.wait(lambda: editor.logs("nothing to generate: no unit changed"), "the save")
    editor.save(path, edited_sign("return 2", cosmetic))
    await editor.wait_job("sign")
    assert not editor.jobs("Stack")
    assert editor.times_queued("sign") == 1


async def test_saves_in_a_row_are_debounced_into_one_job(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    for body in ("return 2", "return 3", "return 4"):
        editor.save(path, edited_sign(body))
    await editor.wait_job("sign")
    await editor.idle(path)
    assert editor.times_queued("sign") == 1
    assert len(editor.logs("saved; generating sign")) == 1
    # The account of where the job's time went: the worker's start, the unit's phases, coverage.py.
    [account] = [m for m in editor.logs("miogen: sign: ") if " covered by " in m]
    assert "worker " in account and "(start " in account and " search " in account, account
    assert "verification " in account, account


async def test_edits_make_results_stale_and_a_broken_save_clears_them(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    text = edited_sign("return 2")
    editor.save(path, text)
    await editor.wait_job("sign")
    await editor.wait(lambda: editor.diagnostics(path, "uncovered-branch"), "results")

    editor.type(path, edited_sign("return 3"))  # unsaved edit of sign: its results go stale
    await editor.wait(lambda: editor.unit_state(path, "sign") == "stale", "sign to go stale")
    assert editor.diagnostics(path) == []
    assert editor.last_coverage(path)["lines"] == {"covered": [], "partial": [], "uncovered": []}

    shifted = "import math\n\n" + text  # back to the generated code, two lines lower
    editor.type(path, shifted)
    await editor.wait(lambda: editor.unit_state(path, "sign") == "done", "sign to be fresh again")
    [miss] = editor.diagnostics(path, "uncovered-branch")
    assert miss.range.start.line == line_of(shifted, "x * x == -1")

    editor.save(path, shifted.replace("def sign(x: int) -> int:", "def sign(x: int) -> int"))
    await editor.wait(lambda: editor.last_coverage(path)["units"] == [], "results cleared")
    await editor.wait(lambda: editor.diagnostics(path) == [], "diagnostics cleared")
    await editor.idle(path)
    assert len(editor.logs("does not parse")) == 1
    assert await editor.units(path) == []
