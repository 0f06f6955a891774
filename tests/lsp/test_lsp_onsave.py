"""What a save generates: changed units, then untested ones near the last edit; the setting."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from lsp_support import E2E, SHAPES, edited_sign, line_of
from miogen.common.history import HistoryStore, RunRow
from miogen.lsp.documents import UnitRecord, changed_at_a_glance, plan_save
from miogen.lsp.locator import history_of
from miogen.lsp.settings import read_layer, resolve
from miogen.lsp.snapshot import quick_fingerprints, take

FOUR = """\
def first(x: int) -> int:
    if x > 0:
        return 1
    return 0


def second(x: int) -> int:
    return x + 1


def third(x: int) -> int:
    return x * 2


def fourth(x: int) -> int:
    return x - 1
"""


ENDED = SimpleNamespace(active=False)  # a job that ended (how it ended does not matter here)


def baseline(source: str) -> dict[str, UnitRecord]:
    """Records as a file just opened has them: each unit's reference is its code then."""
    snapshot = take(source, "/w/four.py", "four")
    return {name: UnitRecord(reference=s.fingerprint) for name, s in snapshot.units.items()}


def plan(source: str, records, mode="untested", recorded=(), edit=None, limit=1, busy=()):
    snapshot = take(source, "/w/four.py", "four")
    return plan_save(snapshot, records, mode, set(recorded), edit, limit, set(busy))


def names(shapes) -> list[str]:
    return [shape.name for shape in shapes]


def test_a_first_save_takes_the_untested_unit_nearest_to_the_last_edit():
    records = baseline(FOUR)
    assert names(plan(FOUR, records, edit=line_of(FOUR, "x * 2") + 1).untested) == ["third"]
    assert names(plan(FOUR, records).untested) == ["first"], "no edit: the file's order"
    wider = plan(FOUR, records, edit=line_of(FOUR, "x - 1") + 1, limit=3)
    assert names(wider.untested) == ["fourth", "third", "second"] and wider.waiting == 1


def test_changed_units_come_first_and_untested_ones_fill_the_job_limit():
    records = baseline(FOUR)
    changed = FOUR.replace("return x + 1", "return x + 2")
    one = plan(changed, records, edit=line_of(FOUR, "x * 2") + 1)
    assert names(one.changed) == ["second"] and one.untested == [] and one.waiting == 3
    two = plan(changed, records, edit=line_of(FOUR, "x * 2") + 1, limit=2)
    assert names(two.units) == ["second", "third"]
    busy = plan(FOUR, records, limit=2, busy={"fourth"})
    assert names(busy.untested) == ["first"], "a running job takes a slot"


def test_units_with_a_result_a_job_or_a_history_are_not_untested():
    records = baseline(FOUR)
    records["first"].failure = ("f", "the worker failed")  # a failure is retried as "changed"
    records["second"].job = ENDED  # any job, in any state
    chosen = plan(FOUR, records, recorded={"third"}, limit=4)
    assert names(chosen.changed) == ["first"] and names(chosen.untested) == ["fourth"]


def test_the_mode_changed_and_off():
    records = baseline(FOUR)
    assert plan(FOUR, records, mode="changed").units == []
    assert "no unit changed (generateOnSave is changed)" in plan(
        FOUR, records, mode="changed"
    ).describe("changed")
    edited = FOUR.replace("return x + 1", "return x + 2")
    assert plan(edited, records, mode="off").units == []
    assert names(plan(edited, records, mode="changed").units) == ["second"]


def test_what_the_log_says():
    records = baseline(FOUR)
    assert plan(FOUR, records, limit=2).describe("untested") == (
        "generating first (untested), second (untested); "
        "2 more untested units wait for a later save"
    )
    done = {name: UnitRecord(reference=r.reference, job=ENDED) for name, r in records.items()}
    assert plan(FOUR, done).describe("untested") == (
        "nothing to generate: no unit changed, and every unit has a result or a history"
    )


def test_the_setting_accepts_modes_and_the_boolean_on_save_still_turns_it_off():
    values, problems = read_layer({"generateOnSave": "Changed"}, "test")
    assert resolve(values).save_mode == "changed" and problems == []
    values, _ = read_layer({"onSave": False, "generateOnSave": "untested"}, "test")
    assert resolve(values).save_mode == "off"
    values, _ = read_layer({"generate-on-save": False}, "test")
    assert resolve(values).save_mode == "off"
    assert resolve().save_mode == "untested"
    _, problems = read_layer({"generateOnSave": "always"}, "test")
    assert "expected one of untested, changed, off" in problems[0]


def test_the_history_is_read_without_being_created(tmp_path: Path):
    module = tmp_path / "pkg" / "four.py"
    module.parent.mkdir()
    module.write_text(FOUR, "utf-8")
    assert history_of(tmp_path, module) == set()
    assert not (tmp_path / ".miogen").exists(), "reading creates nothing"
    store = HistoryStore.open(tmp_path / ".miogen" / "history.sqlite")
    run = RunRow("pkg/four.py::third", "h", 1.0, 1.0, "ok", 1, 0, 1, 1)
    store.record([run], {"pkg/four.py::first": ("h", [], 1)}, {})
    store.close()
    assert history_of(tmp_path, module) == {"first", "third"}
    (tmp_path / ".miogen" / "history.sqlite").write_bytes(b"not a database")
    assert history_of(tmp_path, module) == set(), "an unreadable history is an empty one"


# --- end to end -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["untested", "changed", "off"])
@E2E[0]
@E2E[1]
async def test_a_first_save_without_change_generates_only_when_asked(editor, mode):
    editor.configure(generateOnSave=mode)
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path)
    if mode == "untested":
        await editor.wait_job("Stack")  # the file's first unit: no edit to be near
        assert editor.logs("saved; generating Stack (untested); 1 more untested units wait")
        coverage = await editor.wait(lambda: editor.unit_state(path, "Stack") == "done", "done")
        assert coverage and not editor.jobs("sign")
    elif mode == "changed":
        await editor.wait(lambda: editor.logs("nothing to generate: no unit changed"), "the log")
    else:
        await editor.wait(lambda: editor.logs("saved; generateOnSave is off"), "the log")
    if mode != "untested":
        await editor.idle(path)
        assert not editor.statuses


@E2E[0]
@E2E[1]
async def test_untested_units_near_the_edit_come_first_and_history_counts(editor):
    store = HistoryStore.open(editor.project / ".miogen" / "history.sqlite")
    store.record([], {"shapes.py::Stack": ("h", [], 0)}, {})
    store.close()
    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, SHAPES.replace("return 1\n", "return 1  # near sign\n"))
    await editor.wait_job("sign")
    assert editor.logs("saved; generating sign (untested)") and not editor.jobs("Stack")
    editor.save(path)
    await editor.wait(lambda: editor.logs("every unit has a result or a history"), "the log")


@E2E[0]
@E2E[1]
async def test_the_log_says_why_a_save_generates_nothing(editor, tmp_path):
    path = editor.write("shapes.py")
    editor.open(path)
    broken = SHAPES + "\ndef broken(:\n"
    line = len(broken.splitlines())
    editor.save(path, broken)
    await editor.wait(lambda: editor.logs(f"does not parse at line {line}"), "the syntax error")
    assert editor.logs(f"shapes.py saved; it does not parse at line {line}: nothing is generated")
    outside = tmp_path / "elsewhere.py"
    outside.write_text(edited_sign("return 5"), "utf-8")
    editor.open(outside)
    editor.save(outside)
    await editor.wait(lambda: editor.logs("is outside the workspace folders"), "outside")
    editor.close(outside)


# --- the job shown before the saved text's analysis is done -----------------------------------

HELPED = """\
def _double(x: int) -> int:
    return 2 * x


def uses(x: int) -> int:
    if x > 0:
        return _double(x)
    return 0


def alone(x: int) -> int:
    return x
"""

SUBJECTS = sorted(Path(__file__).resolve().parents[2].glob("bench/subjects/*.py"))


@pytest.mark.parametrize("path", SUBJECTS, ids=lambda p: p.stem)
def test_the_quick_fingerprints_are_the_analysis_fingerprints(path: Path):
    source = path.read_text("utf-8")
    snapshot = take(source, str(path), path.stem)
    quick = quick_fingerprints(source, {n: s.helpers for n, s in snapshot.units.items()})
    assert quick == {name: shape.fingerprint for name, shape in snapshot.units.items()}


def test_a_glance_finds_the_units_whose_code_or_helpers_changed():
    before = take(HELPED, "/w/helped.py", "helped")
    assert before.units["uses"].helpers == ("_double",)
    records = {name: UnitRecord(reference=s.fingerprint) for name, s in before.units.items()}
    assert changed_at_a_glance(before, HELPED.replace("2 * x", "3 * x"), records) == ["uses"]
    assert changed_at_a_glance(before, HELPED.replace("return x\n", "return -x\n"), records) == [
        "alone"
    ]
    reformatted = HELPED.replace("return 2 * x", "return (2 * x)  # twice")
    assert changed_at_a_glance(before, reformatted, records) == []
    assert changed_at_a_glance(before, HELPED + "\ndef broken(:\n", records) == []
