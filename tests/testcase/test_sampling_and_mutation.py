"""Sampling follows type hints first; mutation keeps every reference valid and the size bounded."""

from __future__ import annotations

import random

from miogen.analysis.module import analyze_source
from miogen.testcase.calling import mistyped
from miogen.testcase.model import CALLS, from_json, to_json
from miogen.testcase.mutation import mutate
from miogen.testcase.sampling import SamplingConfig, TestFactory

MODULE = """
from enum import Enum
from typing import Optional


class Color(Enum):
    RED = 1
    GREEN = 2


class Point:
    def __init__(self, x: int, y: int) -> None:
        self.x, self.y = x, y


class Canvas:
    def __init__(self, width: int, title: str = "untitled") -> None:
        self.width = width

    def draw(self, at: Point, color: Color, tags: list[str], scale: Optional[float] = None) -> int:
        return 1

    def lookup(self, table: dict[str, int], pair: tuple[int, bool]) -> int:
        return 2
"""


def factory(config: SamplingConfig | None = None) -> TestFactory:
    model = analyze_source(MODULE, "canvas.py", "canvas")
    return TestFactory(model, model.unit("Canvas"), config or SamplingConfig())


def values_for(test, call_name: str, parameter: str):
    for statement in test:
        if statement.name == call_name:
            for name, index in statement.args:
                if name == parameter:
                    yield test[index]


def assert_well_formed(test) -> None:
    for index, statement in enumerate(test):
        assert all(ref < index for ref in statement.references()), test
    assert test[0].kind in ("value", "construct", "list", "tuple", "set", "dict", "enum")


def test_arguments_follow_type_hints():
    f = factory()
    rng = random.Random(1)
    kinds: dict[str, set] = {
        "at": set(),
        "color": set(),
        "tags": set(),
        "width": set(),
        "scale": set(),
    }
    for _ in range(300):
        test = f.sample(rng)
        assert_well_formed(test)
        for parameter in ("at", "color", "tags", "scale"):
            kinds[parameter] |= {(s.kind, s.name) for s in values_for(test, "draw", parameter)}
        kinds["width"] |= {type(s.value).__name__ for s in values_for(test, "Canvas", "width")}
    assert kinds["at"] == {("construct", "Point")}
    assert kinds["color"] == {("enum", "Color.RED"), ("enum", "Color.GREEN")}
    assert kinds["tags"] == {("list", "")}
    assert kinds["width"] == {"int"}
    assert ("value", "") in kinds["scale"]  # float or None


def test_mutation_keeps_references_valid_and_respects_the_size_bound():
    f = factory(SamplingConfig(max_statements=12))
    rng = random.Random(2)
    test = f.sample(rng)
    for _ in range(2000):
        test = mutate(f, test, rng)
        assert_well_formed(test)
        assert len(test) <= 12
        assert any(s.kind in CALLS for s in test)


def test_tests_survive_a_json_round_trip():
    f = factory()
    rng = random.Random(3)
    for _ in range(100):
        test = f.sample(rng)
        assert from_json(to_json(test)) == test


def test_nan_and_inf_mutate_without_error():
    from miogen.testcase.mutation import change_primitive

    f = factory()
    rng = random.Random(1)
    for value in (float("nan"), float("inf"), float("-inf")):
        for _ in range(50):
            change_primitive(f, value, rng)


def test_the_factory_holds_the_modules_numeric_uses_for_the_readable_pass():
    """What each function's body uses as a number is one more of the module's analyses the
    factory holds (beside what it measures), read by the worker's reduction from there rather
    than computed again per unit."""
    source = "def weekday(day, width):\n    return str(day)[:width]\n"
    model = analyze_source(source, "days.py", "days")
    made = TestFactory(model, model.unit("weekday"))
    assert made.numeric_uses == {(1, "weekday"): frozenset({"width"})}


def test_the_units_of_a_module_share_one_reading_of_its_numeric_uses():
    """Every unit's factory asks for the module's numeric and whole-number uses: read once per
    source, not once per unit (a module of 35 units spent 0.7 s of a 1 s budget on the walks
    before its search, and its tests came out empty)."""
    source = (
        "def weekday(day, width):\n    return str(day)[:width]\n\n\n"
        "def leapdays(y1, y2):\n    return y2 // 4 - y1 // 4\n"
    )
    model = analyze_source(source, "days2.py", "days2")
    first, second = (TestFactory(model, model.unit(n)) for n in ("weekday", "leapdays"))
    assert first.numeric_uses is second.numeric_uses
    assert first.whole_number_uses is second.whole_number_uses
    assert first.whole_number_uses[(5, "leapdays")] == frozenset({"y1", "y2"})


STUB_KEYWORDS = """
from typing import Callable, Iterable, Iterator, TypeVar, overload

A = TypeVar("A")


@overload
def split(items: Iterable[A], *, key: Callable[[A], bool]) -> Iterator[list[A]]: ...
@overload
def split(items: Iterable[A], *, sep: A) -> Iterator[list[A]]: ...
def split(items, *, key=None, sep=None):
    if (key is None) == (sep is None):
        raise ValueError("Exactly one of `key` and `sep` should be given")
    yield list(items)
"""


def test_a_call_mostly_passes_one_stub_s_keyword_only_parameters():
    """``split(items, key=...)`` or ``split(items, sep=...)``, as the stubs declare it: left
    to chance (each keyword left out now and then) half the calls would pass neither or both,
    which match no stub."""
    model = analyze_source(STUB_KEYWORDS, "splits.py", "splits")
    factory = TestFactory(model, model.unit("split"))
    rng = random.Random(2)
    tests = [factory.sample(rng) for _ in range(200)]
    calls = [(t, i) for t in tests for i, s in enumerate(t) if s.name == "split"]
    matching = [i not in mistyped(t, factory.signature) for t, i in calls]
    assert len(calls) >= 100
    assert sum(matching) >= 0.85 * len(calls), sum(matching) / len(calls)
    assert not all(matching)  # the raise the code means is still reached


def test_ints_are_drawn_at_the_scale_of_the_modules_large_constants():
    # A year's arithmetic (``y // 100``, ``% 19``) past a constant of 1600: the pool alone gives
    # 1599-1601, the random ints stay within +-1000 or spread over +-2**31.
    source = "def easter(year: int) -> int:\n    if year > 1600:\n        return year // 100\n    return 0\n"
    model = analyze_source(source, "easter.py", "easter")
    sampling = TestFactory(model, model.unit("easter"))
    rng = random.Random(1)
    drawn = [sampling.primitive("int", rng) for _ in range(1000)]
    at_scale = [value for value in drawn if 1601 < value <= 3200]
    assert len(at_scale) > 50, sorted(drawn)[-20:]
    assert len(set(at_scale)) > 40  # spread over the scale, not a few values beside 1600
    # A module of small constants draws as before: none at that scale.
    small = analyze_source("def f(n: int) -> int:\n    return n % 7\n", "f.py", "f")
    rng = random.Random(1)
    factory_small = TestFactory(small, small.unit("f"))
    assert not [
        v for v in (factory_small.primitive("int", rng) for _ in range(1000)) if 1001 < v <= 3200
    ]
