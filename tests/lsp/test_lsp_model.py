"""The server's pure parts, without a client: settings, fingerprints, views, conversions."""

from __future__ import annotations

import dataclasses
import os
import pickle
from collections import namedtuple
from pathlib import Path

import pytest
from lsprotocol import types
from miogen.analysis.module import forget_analyses
from miogen.analysis.targets import parse_code
from miogen.common.records import Algorithm, CriterionCoverage
from miogen.emit.merge import TextEdit as MergeEdit
from miogen.lsp import convert
from miogen.lsp import locator as located
from miogen.lsp.analyser import analyse_text
from miogen.lsp.locator import Locator
from miogen.lsp.settings import (
    KEYS,
    ProjectSettings,
    Settings,
    plain,
    read_layer,
    resolve,
    section,
)
from miogen.lsp.snapshot import Snapshot, quick_fingerprints, take
from miogen.lsp.views import final_view, infer_executed, render, streamed_view
from pygls.workspace.position_codec import PositionCodec

SOURCE = """\
def _helper(x):
    return x + 1


def sign(x: int) -> int:
    if x * x == -1:
        return 99
    if x < 0:
        return -1
    return _helper(0)


class Box:
    def get(self) -> int:
        return 1
"""


def snap(source: str = SOURCE):
    return take(source, "m.py", "m")


# --- settings -----------------------------------------------------------------------------


def test_setting_names_may_be_camel_snake_or_kebab_case():
    values, problems = read_layer(
        {"budgetSeconds": 2, "max_parallel_jobs": 3, "diagnostic-severity": "Warning"}, "test"
    )
    assert problems == []
    assert resolve(values) == Settings(
        budget_seconds=2.0, max_parallel_jobs=3, diagnostic_severity="warning"
    )


@pytest.mark.parametrize(
    "key, value",
    [
        ("budgetSeconds", 0),
        ("budgetSeconds", "5"),
        ("budgetSeconds", float("inf")),
        ("onSave", "yes"),
        ("maxParallelJobs", 1.5),
        ("maxParallelJobs", True),
        ("testsDirectory", "/abs/tests"),
        ("testFilePattern", "tests.py"),
        ("testFilePattern", "sub/test_{module}.py"),
        ("testFilePattern", "test_{modul}.py"),
        ("diagnosticSeverity", "loud"),
        ("showCoveredBranches", 1),
        ("algorithm", "genetic"),
        ("criteria", "branch,lines"),
        ("criteria", 3),
        ("performance", "no"),
    ],
)
def test_a_bad_value_is_reported_and_left_out(key, value):
    values, [problem] = read_layer({key: value}, "initializationOptions")
    assert values == {} and key in problem and "initializationOptions" in problem


def test_the_search_is_chosen_as_on_the_command_line_and_prefers_cheap_tests():
    assert Settings().algorithm == "mio" and Settings().criteria == "smart"
    assert Settings().performance  # tests that run on every save should be cheap
    values, problems = read_layer(
        {"algorithm": "adynamosa", "criteria": "branch,exception", "performance": False}, "test"
    )
    assert problems == []
    settings = resolve(values)
    assert settings.algorithm is Algorithm.ADYNAMOSA
    assert (settings.criteria, settings.performance) == ("branch,exception", False)


def test_tests_are_not_joined_unless_asked():
    assert not Settings().join_tests  # one behaviour per test, cheap or not
    values, problems = read_layer({"joinTests": True}, "test")
    assert problems == [] and resolve(values).join_tests is True


def test_stronger_layers_win_key_by_key():
    init, _ = read_layer({"budgetSeconds": 2, "onSave": False}, "init")
    config, _ = read_layer({"budgetSeconds": 3}, "config")
    project, _ = read_layer({"tests-directory": "checks"}, "pyproject")
    settings = resolve(init, config, project)
    assert (settings.budget_seconds, settings.on_save, settings.tests_directory) == (
        3.0,
        False,
        "checks",
    )


def test_settings_arrive_as_namedtuples_or_inside_a_miogen_section():
    Pushed = namedtuple("Object", ["miogen"])
    Inner = namedtuple("Object", ["onSave"])
    assert section(Pushed(Inner(False))) == {"onSave": False}
    assert plain([Inner(True)]) == [{"onSave": True}]
    assert read_layer(["not", "an", "object"], "x")[1]


def test_a_broken_pyproject_is_reported_once_and_ignored(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.miogen\nbudget = 1\n")
    messages: list[str] = []
    projects = ProjectSettings()
    assert projects.read(tmp_path, messages.append) == {}
    assert projects.read(tmp_path, messages.append) == {}
    assert len(messages) == 1 and "cannot read" in messages[0]


def test_unknown_keys_and_bad_values_in_the_project_file_are_reported_once(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.miogen]\nbudget-secs = 1\nseed = "x"\ntests-directory = "checks"\n'
    )
    messages: list[str] = []
    projects = ProjectSettings()
    assert projects.read(tmp_path, messages.append) == {"tests_directory": "checks"}
    assert projects.read(tmp_path, messages.append) == {"tests_directory": "checks"}
    assert len(messages) == 2
    assert "budget-secs: no such setting" in messages[0] and "budget-seconds" in messages[0]
    assert 'seed = "x": expected a whole number' in messages[1]
    assert all(str(tmp_path / "pyproject.toml") in m for m in messages)


def test_every_setting_the_server_reads_is_a_field_of_its_record():
    fields = {f.name for f in dataclasses.fields(Settings)}
    assert {name for name, _ in KEYS.values()} == fields


def locator_in(root: Path, init: dict, folder: dict | None = None) -> tuple[Locator, list[str]]:
    warnings: list[str] = []
    locator = Locator(lambda: [root], warnings.append)
    locator.configure(init, "initializationOptions")
    if folder is not None:
        locator.configure_folders({root: folder})
    return locator, warnings


@pytest.mark.parametrize(
    ("preference", "expected"),
    [
        (None, (3.0, "hint", 7, "checks")),  # editorFirst: the editor's explicit settings win
        ("editorFirst", (3.0, "hint", 7, "checks")),
        ("filesystemFirst", (1.0, "warning", 7, "checks")),
        ("editorOnly", (3.0, "hint", 0, "")),
    ],
)
def test_the_editor_preference_orders_its_settings_and_the_project_file(
    tmp_path, preference, expected
):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.miogen]\nbudget-seconds = 1\ndiagnostic-severity = "warning"\nseed = 7\n'
        'tests-directory = "checks"\nunknown-key = 1\n'
    )
    (tmp_path / "m.py").write_text("def f(): pass\n")
    init = {"budgetSeconds": 2, "diagnosticSeverity": "hint"}
    if preference is not None:
        init["configurationPreference"] = preference
    locator, warnings = locator_in(tmp_path, init, folder={"budgetSeconds": 3})
    settings = locator.settings_for(tmp_path / "m.py")
    found = (settings.budget_seconds, settings.diagnostic_severity, settings.seed)
    assert (*found, settings.tests_directory) == expected
    assert bool(warnings) == (preference != "editorOnly"), "an ignored file is not even read"


def test_a_folder_may_choose_its_own_preference(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.miogen]\nbudget-seconds = 1\n")
    (tmp_path / "m.py").write_text("def f(): pass\n")
    locator, _ = locator_in(
        tmp_path, {"budgetSeconds": 2}, folder={"configurationPreference": "filesystemFirst"}
    )
    assert locator.settings_for(tmp_path / "m.py").budget_seconds == 1.0
    assert locator.settings_in(tmp_path).configuration_preference == "filesystemFirst"


# --- snapshots: fingerprints and spans -----------------------------------------------------


def test_comments_and_formatting_keep_the_fingerprint_code_changes_do_not():
    before = snap().units
    cosmetic = SOURCE.replace("if x < 0:", "if (x<0):  # negative").replace("\n\n\ndef", "\n\ndef")
    after = snap(cosmetic).units
    assert after["sign"].fingerprint == before["sign"].fingerprint
    changed = snap(SOURCE.replace("return -1", "return -2")).units
    assert changed["sign"].fingerprint != before["sign"].fingerprint
    assert changed["Box"].fingerprint == before["Box"].fingerprint


def test_the_server_analysis_infers_no_types_and_sends_none(monkeypatch):
    """Lenses, diagnostics and change detection need units, targets and lines: the inference
    of untyped parameters (most of an analysis) is left to the engine that reads it."""
    from miogen.analysis import module

    def no_inference(*args: object) -> None:
        raise AssertionError("the server completed the signatures")

    monkeypatch.setattr(module, "complete_model", no_inference)
    source = SOURCE + "\n\ndef untyped(text):\n    return text.strip()\n"
    snapshot = analyse_text(source, "m.py", "m")  # what the analysis process returns
    assert isinstance(snapshot, Snapshot) and set(snapshot.units) == {"sign", "Box", "untyped"}
    received = pickle.loads(pickle.dumps(snapshot))
    assert not received.model.completed and not snapshot.model.completed
    monkeypatch.undo()
    assert received.model.functions["untyped"].params[0].type.kind != "any"  # when asked


def test_a_private_helper_belongs_to_the_units_that_call_it():
    helper_changed = snap(SOURCE.replace("return x + 1", "return x + 2")).units
    assert helper_changed["sign"].fingerprint != snap().units["sign"].fingerprint
    assert helper_changed["Box"].fingerprint == snap().units["Box"].fingerprint


def test_the_snapshot_takes_the_helpers_hashes_from_the_analysis(monkeypatch):
    """Hashing every helper again was a tenth of a long module's snapshot: the analysis hashed
    its private units already."""
    from miogen.lsp import snapshot as snapshot_module

    def no_hash(node: object) -> str:
        raise AssertionError("a helper was hashed again")

    source = (
        SOURCE + "\n\ndef _twice(x):\n    return 2 * x\n\n\ndef uses(x):\n    return _twice(x)\n"
    )
    expected = snap(source).units
    assert expected["uses"].helpers == ("_twice",)
    forget_analyses()
    parse_code.cache_clear()
    monkeypatch.setattr(snapshot_module, "ast_hash", no_hash)
    assert take(source, "m.py", "m").units == expected


def test_the_fingerprints_are_those_of_a_fresh_hash_on_miogens_modules():
    """The helpers' hashes taken from the analysis are those of hashing the helpers anew
    (``quick_fingerprints`` parses and hashes everything itself), on miogen's own modules."""
    root = Path(__file__).resolve().parents[2] / "server" / "miogen"
    compared = 0
    for path in sorted(root.rglob("*.py")):
        shapes = take(path.read_text(encoding="utf-8"), str(path), path.stem).units
        helpers = {name: shape.helpers for name, shape in shapes.items()}
        fresh = quick_fingerprints(path.read_text(encoding="utf-8"), helpers)
        assert fresh == {name: shape.fingerprint for name, shape in shapes.items()}, path
        compared += sum(bool(shape.helpers) for shape in shapes.values())
    assert compared > 20


def test_condition_spans_count_characters_not_bytes():
    source = 'def f(s: str) -> int:\n    if s == "é😀" and s:\n        return 1\n    return 0\n'
    assert snap(source).conditions[2] == (1, 7, 1, 7 + len('s == "é😀" and s'))


# --- views: what a result shows on the current text ----------------------------------------


def _ids(shape, covered_lines):
    return [t.id for t in shape.targets if t.arc and t.arc in covered_lines]


def test_lines_are_covered_partial_or_uncovered_by_their_branches():
    snapshot = snap()
    shape = snapshot.units["sign"]
    arcs = {(6, 8), (8, 9), (8, 10)}  # x*x == -1 never true; both sides of x < 0
    executed = {1, 2, 5, 6, 8, 9, 10}  # the helper's lines count as sign's
    view = final_view(shape, _ids(shape, arcs), executed, [], [])
    rendered = render(view, shape)
    assert rendered.partial == {6}
    assert rendered.covered == {1, 2, 5, 8, 9, 10}
    assert rendered.uncovered == {7}


def test_a_view_follows_its_unit_down_the_file_and_goes_stale_when_it_changes():
    snapshot = snap()
    shape = snapshot.units["sign"]
    executed = {1, 2, 5, 6, 8, 9, 10}
    view = final_view(shape, _ids(shape, {(6, 8), (8, 9), (8, 10)}), executed, [], [])
    moved = snap("import os\n\n" + SOURCE).units["sign"]
    rendered = render(view, moved)
    assert rendered.partial == {8} and rendered.uncovered == {9}
    assert [b.target.arc for b in rendered.branches if not b.covered and b.target.arc] == [(8, 9)]
    assert render(view, snap(SOURCE.replace("return 99", "return 98")).units["sign"]) is None


def test_streamed_views_infer_the_lines_that_must_have_run():
    snapshot = snap()
    shape = snapshot.units["sign"]
    covered = frozenset(_ids(shape, {(8, 9)}))
    assert infer_executed(shape, snapshot, covered) >= {8, 9}
    view = streamed_view(shape, snapshot, covered)
    rendered = render(view, shape)
    assert 9 in rendered.covered and 8 in rendered.partial
    assert 7 in rendered.uncovered


# --- conversions ----------------------------------------------------------------------------


def test_context_only_selects_kinds_and_their_sub_kinds():
    assert convert.wanted("source", None) and convert.wanted("source", [])
    assert convert.wanted("source.fixAll", ["source"])
    assert not convert.wanted("source", ["quickfix"])
    assert not convert.wanted("sourcery", ["source"])


def test_merge_edits_become_client_positions():
    existing = 'x = "😀"\n'
    edit = MergeEdit(0, len('x = "😀"'), 0, len('x = "😀"'), " # ok")
    [utf16] = convert.text_edits([edit], existing, PositionCodec(types.PositionEncodingKind.Utf16))
    [utf8] = convert.text_edits([edit], existing, PositionCodec(types.PositionEncodingKind.Utf8))
    assert utf16.range.start.character == 8 and utf8.range.start.character == 10


def test_workspace_edits_create_the_file_only_when_asked():
    edits = [types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)), new_text="x")]  # fmt: skip
    created = convert.workspace_edit("file:///t.py", edits, create=True, version=None, document_changes=True)  # fmt: skip
    assert isinstance(created.document_changes[0], types.CreateFile)
    existing = convert.workspace_edit("file:///t.py", edits, create=False, version=4, document_changes=True)  # fmt: skip
    [change] = existing.document_changes
    assert change.text_document.version == 4
    plain_edit = convert.workspace_edit("file:///t.py", edits, create=False, version=None, document_changes=False)  # fmt: skip
    assert plain_edit.changes == {"file:///t.py": edits}


def test_the_lens_hover_lists_the_other_criteria_of_a_verified_result():
    shape = snap().units["sign"]
    measured = {
        "branch": CriterionCoverage(2, 4),  # the title's: coverage.py's, not repeated
        "weak-mutation": CriterionCoverage(3, 7),
        "exception": CriterionCoverage(1, 1),
        "output": CriterionCoverage(2, 3),
    }
    view = final_view(shape, [], [shape.statements[0]], [], [], criteria=measured)
    tooltip = convert.criteria_tooltip(view)
    lines = f"line 1/{len(shape.statements)}"
    assert tooltip == f"Other criteria: {lines}, weak-mutation 3/7, exception 1 found, output 2/3"
    assert convert.criteria_tooltip(final_view(shape, [], [], [], [])) is None  # branch only


def test_the_arcs_neighbours_come_in_line_order_whatever_the_run():
    """coverage.py's arcs are a set: the snapshot's neighbour tuples are sorted, so two analyses
    of one text (two processes, two hash seeds) are equal."""
    source = (
        Path(__file__)
        .resolve()
        .parents[2]
        .joinpath("server", "miogen", "lsp", "analyser.py")
        .read_text(encoding="utf-8")
    )
    snapshot = take(source, "analyser.py", "analyser")
    for neighbours in (*snapshot.successors.values(), *snapshot.predecessors.values()):
        assert list(neighbours) == sorted(neighbours)


def test_a_place_is_computed_once_per_settings_version(tmp_path, monkeypatch):
    """``Locator.place`` is cached until the settings, the folders or the project file change."""
    project = tmp_path / "pyproject.toml"
    project.write_text("[tool.miogen]\nbudget-seconds = 1\n")
    (tmp_path / "m.py").write_text("def f(): pass\n")
    locator, _ = locator_in(tmp_path, {"configurationPreference": "filesystemFirst"})
    computed = []
    monkeypatch.setattr(located, "find_project_root", lambda p: computed.append(p) or tmp_path)
    first = locator.place(tmp_path / "m.py")
    assert [locator.place(tmp_path / "m.py") for _ in range(5)] == [first] * 5
    assert len(computed) == 1 and first.location.module_name == "m"
    assert locator.settings_for(tmp_path / "m.py") is first.settings
    assert locator.project_root(tmp_path / "m.py") == tmp_path and len(computed) == 1

    locator.configure({"budgetSeconds": 3}, "workspace/configuration")  # a new version
    second = locator.place(tmp_path / "m.py")
    assert second.version > first.version and len(computed) == 2
    assert second.settings.budget_seconds == 1.0  # filesystemFirst, from initializationOptions

    stamp = project.stat().st_mtime_ns + 1_000_000_000
    project.write_text("[tool.miogen]\nbudget-seconds = 0.5\n")  # no watcher told: its stamp did
    os.utime(project, ns=(stamp, stamp))
    assert locator.place(tmp_path / "m.py").settings.budget_seconds == 0.5
    assert len(computed) == 3

    locator.changed()  # folders changed, or a watched project file
    locator.place(tmp_path / "m.py")
    assert len(computed) == 4


def test_a_place_says_why_a_save_of_its_file_generates_nothing(tmp_path):
    """Why a save generates nothing is decided when the file is placed, with its settings
    (``Place.save_skipped``): the save reads it rather than asking the place again (issue 25
    part 5: the save called back into the locator's ``Place`` for it, twice)."""
    root, other = tmp_path / "workspace", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    (root / "m.py").write_text("def f(): pass\n")
    (root / "test_m.py").write_text("def test_f(): pass\n")
    locator, _ = locator_in(root, {})
    assert locator.place(root / "m.py").save_skipped is None
    assert locator.place(root / "test_m.py").save_skipped == (
        "miogen: test_m.py is a test file; nothing to generate",
        False,
    )
    outside = other / "g.py"
    outside.write_text("def g(): pass\n")
    why, warn = locator.place(outside).save_skipped or ("", False)
    assert "outside the workspace folders" in why and warn
    locator.configure({"onSave": False}, "workspace/configuration")
    assert locator.place(root / "m.py").save_skipped == (
        "miogen: m.py saved; onSave is off",
        False,
    )
