"""Literals of observed values (``assertions.observation``): containers that hold themselves,
stdlib values."""

from __future__ import annotations

import datetime
from pathlib import Path

from miogen.assertions.observation import literal
from miogen.host.config import Options
from miogen.run.generate import generate_module

# A doubly linked list on a sentinel node that points at itself (as collections.OrderedDict's
# pure-Python recipe and marshmallow's OrderedSet keep theirs).
RING = """
class Ring:
    def __init__(self):
        self.end = end = []
        end += [None, end, end]

    def push(self, key):
        end = self.end
        last = end[1]
        last[2] = end[1] = [key, last, end]

    def first(self):
        if self.end[2] is self.end:
            raise KeyError("empty")
        return self.end[2][0]
"""


def test_a_container_that_holds_itself_has_no_literal():
    end: list[object] = [None]
    end += [end, end]
    table: dict[str, object] = {"a": 1}
    table["self"] = table
    assert literal(end) is None and literal(table) is None
    assert literal((1, [end])) is None


def test_a_container_nested_past_what_a_literal_can_hold_has_none():
    deep: list[object] = []
    for _ in range(2000):  # deeper than the interpreter's recursion limit
        deep = [deep]
    assert literal(deep) is None
    assert literal([[[1, 2], {"k": (3,)}]]) == '[[[1, 2], {"k": (3,)}]]'


def test_tests_are_kept_for_a_class_holding_a_cyclic_sentinel(write_project, tmp_path: Path):
    root = write_project({"ring.py": RING})
    output = root / "tests" / "test_ring.py"
    options = Options(0, evaluations=200, seed=1)
    generate_module(root / "ring.py", None, output, options, baseline=False)
    written = output.read_text() if output.exists() else ""
    assert "raises(KeyError" in written and "def test_" in written


# A function that returns a fixed-offset time zone (as marshmallow's utils.get_fixed_timezone).
ZONE = """
import datetime as dt


def fixed(offset: int) -> dt.timezone:
    if offset > 100:
        return dt.timezone.utc
    return dt.timezone(dt.timedelta(minutes=offset), "x")
"""


def test_a_time_zone_has_a_literal_that_rebuilds_it():
    zones = [datetime.UTC, datetime.timezone(datetime.timedelta(minutes=-90), "x")]
    for zone in zones:
        text = literal(zone)
        assert text is not None
        assert eval(text, {"datetime": datetime}) == zone  # noqa: S307 (our own literal)


def test_a_returned_time_zone_is_asserted_so_its_test_is_kept(write_project):
    """Without a literal the calls returning a zone had no assertion and were dropped: one of
    the two branches was left (50%)."""
    root = write_project({"zones.py": ZONE})
    output = root / "tests" / "test_zones.py"
    summary = generate_module(
        root / "zones.py", None, output, Options(0, evaluations=200, seed=1), baseline=False
    )
    written = output.read_text()
    assert "timezone" in written and "== " in written
    assert summary.numbers.covered == summary.numbers.total == 2


def test_a_naive_datetime_is_written_so_strict_linters_take_it():
    """``datetime.datetime(2010, 1, 1, 0, 0)`` is ruff's DTZ001 (so is ``tzinfo=None``); a
    naive value that the test needs (``format_datetime`` of one gives "-0000") is built from
    its ISO text instead; an aware one keeps its constructor call."""
    naive = datetime.datetime(2010, 1, 1, 0, 0)
    text = literal(naive)
    assert text == 'datetime.datetime.fromisoformat("2010-01-01T00:00:00")'
    assert eval(text, {"datetime": datetime}) == naive  # noqa: S307 (our own literal)
    aware = datetime.datetime(2010, 1, 1, 12, 30, 5, 7, tzinfo=datetime.UTC)
    assert literal(aware) == repr(aware)
    moment = datetime.datetime(999, 12, 31, 23, 59, 59, 250)
    assert eval(literal(moment) or "", {"datetime": datetime}) == moment  # noqa: S307


def test_a_naive_datetime_has_its_iso_literal_under_the_workers_watching_class(monkeypatch):
    """The worker puts a clock-watching subclass in ``datetime.datetime`` (worker.entropy);
    the datetimes the code makes are of the real class and keep the linted spelling."""
    real = datetime.datetime

    class Watching(real):
        pass

    monkeypatch.setattr(datetime, "datetime", Watching)
    text = literal(real(2010, 1, 1, 0, 0))
    assert text == 'datetime.datetime.fromisoformat("2010-01-01T00:00:00")'
