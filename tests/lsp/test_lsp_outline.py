"""A long text is outlined: every unit's name, lines and fingerprint at once, and a unit's
targets and lines only when the server asks for them, exactly as the whole analysis has them."""

from __future__ import annotations

import asyncio
import pickle
import random
from pathlib import Path

import pytest
from miogen.analysis import targets
from miogen.analysis.module import forget_analyses
from miogen.analysis.targets import QuickParser, parse_code
from miogen.lsp.analyser import DETAIL_CHARACTERS, Analyser, Closed, analyse_text, detail_text
from miogen.lsp.snapshot import Snapshot, details, take
from miogen.lsp.views import infer_executed

from bench.big_file import module_text

ROOT = Path(__file__).resolve().parents[2]
LONG = module_text(1_200)  # past DETAIL_CHARACTERS: outlined


def _fresh() -> None:
    """Nothing analysed before: each analysis starts from the text."""
    forget_analyses()
    parse_code.cache_clear()


# Private helpers named where no code calls them, and called where a text search misses them.
HELPERS = '''\
def _said(x):
    return x


def _called(x):
    if x:
        return 1
    return 0


class _Kept:
    def run(self):
        return _called(1)


def mentions(x):
    """_said is named here only; so it is in a comment and an attribute."""
    x._said = "_said"  # _said
    return dict(_said=x)


def calls(x):
    if x:
        return _Kept().run()
    return (_said)(x)


@_said
def decorated(x):
    return _said(x) if x else 0
'''
UNICODE = HELPERS + "\n\ndef ünïcode(x):\n    return _said(x)\n"


def _modules() -> list[tuple[str, str]]:
    found = sorted((ROOT / "server" / "miogen").rglob("*.py"))
    found += sorted((ROOT / "examples").rglob("*.py"))
    texts = [(str(path), path.read_text(encoding="utf-8")) for path in found]
    texts += [("helpers.py", HELPERS), ("unicode.py", UNICODE)]
    return [*texts, ("big.py", module_text(250))]


def _same_as_whole(outlined: Snapshot, whole: Snapshot, names: list[str]) -> None:
    for name in names:
        assert outlined.units[name] == whole.units[name], name
        for target in whole.units[name].targets:
            assert outlined.span_of(target.line) == whole.span_of(target.line), (name, target)
        everything = frozenset(t.id for t in whole.units[name].targets)
        some = frozenset(sorted(everything)[::2])
        for covered in (everything, some):
            assert infer_executed(outlined.units[name], outlined, covered) == infer_executed(
                whole.units[name], whole, covered
            ), name


def test_units_detailed_on_request_are_those_of_the_whole_analysis():
    """On every module of miogen, the examples and a generated one: the outline has the units
    of the whole analysis with their fingerprints, and each unit asked for (in any order, alone
    or with others) gets exactly its targets (their ids too), statements, condition spans and
    the lines its views infer."""
    rng = random.Random(28)
    compared = 0
    for path, text in _modules():
        whole = take(text, path, "m")
        _fresh()
        outlined = take(text, path, "m", outline=True)
        assert list(outlined.units) == list(whole.units), path
        for name, shape in outlined.units.items():
            assert not shape.detailed and shape.targets == () and shape.statements == ()
            assert shape.fingerprint == whole.units[name].fingerprint, (path, name)
            assert shape.unit.ranges == whole.units[name].unit.ranges, (path, name)
        names = list(outlined.units)
        rng.shuffle(names)
        while names:
            count = rng.randint(1, 3)
            asked, names = names[:count], names[count:]
            outlined.add(details(text, path, "m", asked))
            _same_as_whole(outlined, whole, asked)
            compared += len(asked)
        if outlined.units:
            assert outlined.model.units == whole.model.units, path
            # The import-time lines of the units' lines (the views read no others).
            in_units = {
                n for n in whole.import_time if any(u.contains(n) for u in whole.model.units)
            }
            assert outlined.import_time == in_units, path
    assert compared > 500


def test_a_long_text_is_outlined_and_only_the_unit_asked_for_gets_targets(monkeypatch):
    """Open-time analysis of a long text makes no target and no coverage.py parse; asking for
    one unit makes that unit's targets only, from coverage.py's parse of that unit's lines and
    its helper's (the other lines blank), not of the whole text."""
    made: list[object] = []
    parses: list[str] = []
    original_target, original_parse = targets.Target, QuickParser.parse_source

    def target(*arguments: object, **keywords: object) -> object:
        made.append(arguments)
        return original_target(*arguments, **keywords)  # type: ignore[arg-type]

    def parse(self: QuickParser) -> None:
        parses.append(self.text)
        original_parse(self)

    monkeypatch.setattr(targets, "Target", target)
    monkeypatch.setattr(QuickParser, "parse_source", parse)
    assert len(LONG) > DETAIL_CHARACTERS
    _fresh()
    snapshot = analyse_text(LONG, "long.py", "long")
    assert isinstance(snapshot, Snapshot) and len(snapshot.units) > 600
    assert made == [] and parses == []
    assert not any(shape.detailed for shape in snapshot.units.values())

    received = pickle.loads(pickle.dumps(snapshot))  # what the server holds
    received.add(detail_text(LONG, "long.py", "long", ("compute_1101",)))
    shape = received.units["compute_1101"]
    assert shape.detailed and shape.targets and len(made) == len(shape.targets)
    assert len(parses) == 1
    written = [n for n, line in enumerate(parses[0].splitlines(), 1) if line not in ("", "#")]
    assert written and all(shape.unit.contains(n) for n in written), written
    assert shape.helpers == ("_helper_1100",) and len(shape.unit.ranges) == 2
    assert all(first in written for first, _ in shape.unit.ranges)
    assert [n for n, s in received.units.items() if s.detailed] == ["compute_1101"]


def test_a_short_text_is_analysed_whole():
    snapshot = analyse_text(module_text(20), "short.py", "short")
    assert isinstance(snapshot, Snapshot)
    assert all(shape.detailed for shape in snapshot.units.values())
    assert snapshot == take(module_text(20), "short.py", "short")


async def test_the_analyser_details_units_once_and_shares_the_wait():
    analyser = Analyser(processes=False)
    try:
        snapshot = analyse_text(LONG, "long.py", "long")
        assert isinstance(snapshot, Snapshot)
        first = analyser.details(snapshot, ["compute_1", "describe_2"])
        again = analyser.details(snapshot, ["compute_1", "describe_2"])
        assert again is first
        assert await first is snapshot
        assert not snapshot.undetailed(["compute_1", "describe_2"])
        assert (await analyser.shape(snapshot, "compute_1")) is snapshot.units["compute_1"]
        assert snapshot.undetailed(["Point3", "fetch_4"]) == ["Point3"]  # async: no unit
    finally:
        analyser.close()


async def test_closing_fails_the_details_being_found():
    analyser = Analyser()  # processes: closing kills the one finding them
    snapshot = analyse_text(LONG, "long.py", "long")
    assert isinstance(snapshot, Snapshot)
    future = analyser.details(snapshot, ["compute_1"])
    await asyncio.sleep(0)
    analyser.close()
    with pytest.raises(Closed):
        await asyncio.wait_for(future, 30)


def test_the_units_of_a_long_outlined_text_are_those_of_its_whole_analysis():
    """A text past ``DETAIL_CHARACTERS`` (as the analysis process outlines it) and its whole
    analysis: the same units, fingerprints and helpers; a unit asked for (the last, the first,
    one in the middle, a private helper's caller) gets exactly its targets and lines."""
    _fresh()
    outlined = analyse_text(LONG, "long.py", "long")
    assert isinstance(outlined, Snapshot) and len(LONG) > DETAIL_CHARACTERS
    _fresh()
    whole = take(LONG, "long.py", "long")
    assert [(n, s.fingerprint, s.helpers) for n, s in outlined.units.items()] == [
        (n, s.fingerprint, s.helpers) for n, s in whole.units.items()
    ]
    names = list(outlined.units)
    asked = [names[-1], names[0], names[len(names) // 2], "compute_601"]
    assert outlined.units["compute_601"].helpers == ("_helper_600",)
    _fresh()
    outlined.add(detail_text(LONG, "long.py", "long", tuple(asked)))
    _same_as_whole(outlined, whole, asked)


def test_a_units_targets_are_its_own_in_a_long_text_and_in_a_short_one():
    """One unit's targets (their ids too) and statements: asked for in a long outlined text, in
    that text's whole analysis, and in a short text (analysed whole) where the unit and its
    helper stand at the same lines but other code, with more branches, comes before them."""
    name = "compute_1101"
    _fresh()
    outlined = analyse_text(LONG, "long.py", "long")
    assert isinstance(outlined, Snapshot)
    outlined.add(detail_text(LONG, "long.py", "long", (name,)))
    _fresh()
    whole = take(LONG, "long.py", "long")
    ranges = outlined.units[name].unit.ranges
    first, last = ranges[0][0], ranges[-1][1]
    assert len(ranges) == 2 and ranges[1][0] == ranges[0][1] + 2  # the helper, a blank, the unit
    branches = "def before(x):\n" + "    if x > 1:\n        x -= 1\n" * ((first - 3) // 2)
    branches += "\n" * (first - 1 - branches.count("\n"))
    short = branches + "".join(LONG.splitlines(keepends=True)[first - 1 : last])
    assert len(short) < DETAIL_CHARACTERS and short.count("\n") == last
    small = take(short, "short.py", "short")
    assert list(small.units) == ["before", name]
    earlier = list(whole.units)[: list(whole.units).index(name)]  # its targets counted first once
    assert len(small.units["before"].targets) != sum(len(whole.units[n].targets) for n in earlier)
    own = outlined.units[name]
    assert own.detailed and own.targets
    for other in (whole.units[name], small.units[name]):
        assert (other.targets, other.statements) == (own.targets, own.statements)
