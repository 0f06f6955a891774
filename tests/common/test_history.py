"""The history store: round trips, one transaction per run, a damaged file set aside and rebuilt."""

from __future__ import annotations

import doctest
import sqlite3

import pytest
from miogen.common import history
from miogen.common.history import HistoryStore, RunRow, content_hash
from miogen.ctg.allocation import RunRecord

SEEDS = [[["construct", "Stack", [], None, -1], ["method", "push", [["item", 2]], None, 0]]]


def run_row(key="m.py::Stack", ast_hash="h1", before=1, after=3, status="ok") -> RunRow:
    return RunRow(key, ast_hash, 2.0, 1.5, status, 8, before, after, tests_added=2)


def test_doctests():
    assert doctest.testmod(history).failed == 0


def test_a_run_round_trips(tmp_path):
    store = HistoryStore.open(tmp_path / ".miogen" / "history.sqlite")
    store.record(
        [run_row(), run_row(ast_hash="h0", before=0, after=1)],
        {"m.py::Stack": ("h1", SEEDS, 3)},
        {"m.py": ("src", "tests", {"Stack": [1, 2, 3]})},
    )
    store.close()
    store = HistoryStore.open(tmp_path / ".miogen" / "history.sqlite")
    unit = store.unit("m.py::Stack")
    assert (unit.ast_hash, unit.seeds, unit.seeds_covered) == ("h1", SEEDS, 3)
    assert store.runs("m.py::Stack", "h1") == (RunRecord(1, 3, 8, True),)  # this version only
    assert store.module_coverage("m.py", "src", "tests") == {"Stack": [1, 2, 3]}
    assert store.module_coverage("m.py", "src", "edited tests") is None  # the cache key is the text
    assert store.warnings == []


def test_units_that_no_longer_exist_are_forgotten(tmp_path):
    store = HistoryStore.open(tmp_path / "h.sqlite")
    store.record([], {"m.py::Old": ("h", SEEDS, 1), "m.py::New": ("h", SEEDS, 1)}, {})
    store.record([], {}, {}, forget=["m.py::Old"])
    assert store.keys() == ["m.py::New"]


def test_a_failed_write_leaves_the_previous_state(tmp_path):
    store = HistoryStore.open(tmp_path / "h.sqlite")
    store.record([run_row()], {"m.py::Stack": ("h1", SEEDS, 3)}, {})
    with pytest.raises(sqlite3.Error):  # the third statement fails: nothing of the run is kept
        store.record([run_row(after=7)], {"m.py::Stack": ("h2", [], 0)}, {"m.py": (None, "", {})})
    assert store.unit("m.py::Stack").ast_hash == "h1"
    assert len(store.runs("m.py::Stack", "h1")) == 1


def test_a_damaged_file_is_set_aside_with_a_warning_and_rebuilt(tmp_path):
    path = tmp_path / ".miogen" / "history.sqlite"
    path.parent.mkdir()
    garbage = b"this is not an SQLite database" * 100
    path.write_bytes(garbage)
    store = HistoryStore.open(path)
    assert len(store.warnings) == 1 and "could not be read" in store.warnings[0]
    aside = [p for p in path.parent.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == garbage  # kept, not deleted
    store.record([run_row()], {}, {})  # the new file works
    assert len(store.runs("m.py::Stack", "h1")) == 1


def test_a_truncated_database_is_set_aside(tmp_path):
    path = tmp_path / "h.sqlite"
    store = HistoryStore.open(path)
    store.record([run_row() for _ in range(200)], {"m.py::Stack": ("h1", SEEDS * 50, 3)}, {})
    store.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    store = HistoryStore.open(path)
    assert store.warnings and store.unit("m.py::Stack") is None
    assert len(list(tmp_path.glob("h.sqlite.damaged-*"))) == 1


def test_a_file_of_another_schema_version_is_set_aside(tmp_path):
    path = tmp_path / "h.sqlite"
    connection = sqlite3.connect(path)
    connection.executescript("CREATE TABLE units (key TEXT); PRAGMA user_version = 99;")
    connection.close()
    store = HistoryStore.open(path)
    assert "schema version 99" in store.warnings[0]
    assert store.keys() == []


def test_a_version_1_file_keeps_its_units_and_drops_coverage_of_old_target_ids(tmp_path):
    path = tmp_path / "h.sqlite"
    store = HistoryStore.open(path)
    store.record([run_row()], {"m.py::A": ("h", SEEDS, 1)}, {"m.py": ("s", "t", {"A": [1, 2]})})
    with store.connection:
        store.connection.execute("PRAGMA user_version = 1")
    store.close()
    store = HistoryStore.open(path)
    assert store.warnings == []
    assert store.unit("m.py::A") is not None and store.runs("m.py::Stack", "h1")
    assert store.module_coverage("m.py", "s", "t") is None  # ids of version 1: measured again
    store.record([], {}, {"m.py": ("s", "t", {"A": [7]})})
    store.close()
    assert HistoryStore.open(path).module_coverage("m.py", "s", "t") == {"A": [7]}


def test_stored_seeds_that_are_not_json_read_as_none(tmp_path):
    store = HistoryStore.open(tmp_path / "h.sqlite")
    store.record([], {"m.py::A": ("h", SEEDS, 1)}, {})
    with store.connection:
        store.connection.execute("UPDATE units SET seeds = '{broken'")
    assert store.unit("m.py::A").seeds == []


def test_content_hash_of_a_missing_file_is_empty(tmp_path):
    assert content_hash(tmp_path / "nothing.py") == ""
    (tmp_path / "a.py").write_text("x = 1\n")
    assert len(content_hash(tmp_path / "a.py")) == 64
