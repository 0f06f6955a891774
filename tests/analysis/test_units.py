"""What counts as a unit: private names when asked for, interfaces never, class shapes as users see them."""

from __future__ import annotations

import ast
import pickle

import pytest
from miogen.analysis.model import NO_DEFAULT
from miogen.analysis.module import analyze_source
from miogen.analysis.survey import survey
from miogen.analysis.targets import SourceSegments, _conditions
from miogen.common.errors import NoPublicUnitError, UnknownUnitError
from subjects import ZONES

PRIVATE_ONLY = """
def _helper(x: int) -> int:
    if x > 3:
        return 1
    return 0


class _Cache:
    def get(self, key: str) -> int:
        return len(key)
"""


def test_private_units_are_found_when_named_and_never_by_default():
    model = analyze_source(PRIVATE_ONLY, "cache.py", "cache")
    assert model.units == []
    assert [u.name for u in model.private_units] == ["_helper", "_Cache"]
    helper = model.unit("_helper")
    assert len(helper.targets) == 2 and helper.private
    assert model.select(["_Cache"]) == [model.unit("_Cache")]


def test_a_module_without_public_units_gets_its_private_ones():
    model = analyze_source(PRIVATE_ONLY, "cache.py", "cache")
    assert model.only_private
    assert [u.name for u in model.select(None)] == ["_helper", "_Cache"]
    assert not analyze_source(PRIVATE_ONLY + "\ndef area(x):\n    return x\n").only_private
    empty = analyze_source("X = 1\n", "consts.py", "consts")
    with pytest.raises(NoPublicUnitError, match="no class or function with code"):
        empty.select(None)


def test_the_private_units_no_public_unit_reaches_are_told_apart():
    """``describe`` reaches ``_clean``; ``_offset`` and ``_double`` only other modules call;
    ``_outer`` reaches ``_inner``, so ``_inner`` is no unit apart from it (its targets are
    ``_outer``'s), but two helpers that call each other are both kept."""
    source = ZONES + (
        "\n\ndef _outer(x):\n    return _inner(x)\n\n\ndef _inner(x):\n    return x\n"
        "\n\ndef _ping(x):\n    return _pong(x - 1) if x else 0\n"
        "\n\ndef _pong(x):\n    return _ping(x - 1) if x else 1\n"
    )
    model = analyze_source(source, "zones.py", "zones")
    assert [u.name for u in model.unreached_private_units] == [
        "_offset", "_double", "_outer", "_ping", "_pong"
    ]  # fmt: skip
    assert [u.name for u in model.default_units] == ["describe"]


def test_unknown_unit_lists_public_and_private_names():
    model = analyze_source(PRIVATE_ONLY + "\ndef area(x: int) -> int:\n    return x\n")
    with pytest.raises(UnknownUnitError) as raised:
        model.unit("nope")
    assert "available units: area" in str(raised.value)
    assert "private units (name them to test them): _helper, _Cache" in str(raised.value)


def test_public_target_ids_do_not_depend_on_private_units():
    public = "def area(x: int) -> int:\n    if x:\n        return 1\n    return 0\n"
    alone = analyze_source(public).unit("area").targets
    mixed = analyze_source(public + PRIVATE_ONLY).unit("area").targets
    assert [t.id for t in alone] == [t.id for t in mixed]


SHAPES = '''
import abc
import enum
import functools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import NamedTuple, Protocol


class Readable(Protocol):
    def read(self, size: int) -> bytes:
        ...


class Base(ABC):
    @abstractmethod
    def area(self) -> float:
        raise NotImplementedError


class Shape(ABC):
    @abstractmethod
    def area(self) -> float:
        """The area."""

    def double(self) -> float:
        return 2 * self.area()


class Pair(NamedTuple):
    left: int
    right: int = 0

    def total(self) -> int:
        if self.left > self.right:
            return self.left
        return self.right


class Color(enum.Enum):
    RED = 1
    BLUE = 2

    def warm(self) -> bool:
        return self is Color.RED


@dataclass(frozen=True)
class Point:
    x: int
    y: int = 0

    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


class Kinds:
    def __init__(self, size: int) -> None:
        self.size = size

    @staticmethod
    def make(size: int) -> "Kinds":
        return Kinds(size)

    @classmethod
    def empty(cls) -> "Kinds":
        return cls(0)

    @property
    def half(self) -> int:
        return self.size // 2

    @functools.cached_property
    def twice(self) -> int:
        return self.size * 2

    def _hidden(self) -> int:
        return 1
'''


def test_interfaces_are_not_units_but_abstract_classes_with_code_are():
    model = analyze_source(SHAPES)
    names = [u.name for u in model.units]
    assert "Readable" not in names and "Base" not in names
    shape = model.unit("Shape")
    # Only `double` needs running: the abstract method has no goal of its own.
    assert [t.line for t in shape.targets] == [shape.line + 6]


def test_class_shapes_read_as_users_expect():
    model = analyze_source(SHAPES)
    pair = model.classes["Pair"]
    assert [(p.name, p.default) for p in pair.constructor.params] == [
        ("left", NO_DEFAULT), ("right", 0)
    ]  # fmt: skip
    color = model.classes["Color"]
    assert color.constructor is None and color.enum_members == ("RED", "BLUE")
    point = model.classes["Point"]
    assert point.is_dataclass and [p.name for p in point.constructor.params] == ["x", "y"]
    kinds = {m.name: m.kind for m in model.classes["Kinds"].methods}
    assert kinds == {"make": "static", "empty": "classmethod", "half": "property",
                     "twice": "property"}  # fmt: skip
    assert {"Pair", "Color", "Point", "Kinds", "Shape"} <= {u.name for u in model.units}


def test_the_model_pickles_with_its_sentinel_intact():
    model = analyze_source(SHAPES, "shapes.py", "shapes")
    again = pickle.loads(pickle.dumps(model))
    assert again.units == model.units and again.classes == model.classes
    assert again.classes["Pair"].constructor.params[0].default is NO_DEFAULT


def test_one_analysis_per_source_is_shared():
    first = analyze_source(SHAPES, "shapes.py", "shapes")
    assert analyze_source(SHAPES, "shapes.py", "shapes") is first
    assert analyze_source(SHAPES + "\n", "shapes.py", "shapes") is not first


TRICKY = (
    "def f(a, b):\r\n"
    "    if (a >\r\n"
    "            b):  # a comment\r\n"
    "        return 'é'\r\n"
    "    while 'ü' in a and b: pass\r\n"
    "    for (x,\n"
    "         y) in zip(a, b):\n"
    "        pass\n"
    "    if a == '\\x0c': return 1\n"
    "\x0c\n"
    "    if b: return 2\n"
)


def test_condition_text_matches_the_standard_library():
    tree = ast.parse(TRICKY)
    segment = SourceSegments(TRICKY)
    for node in ast.walk(tree):
        if isinstance(node, ast.expr):
            assert segment(node) == (ast.get_source_segment(TRICKY, node) or "").replace(
                "\r\n", "\n"
            ).replace("\r", "\n")
    conditions = _conditions(TRICKY, survey(tree))
    assert conditions[2] == "a > b" and conditions[6] == "for (x, y) in zip(a, b)"


OVERLOADS = """
from typing import overload


@overload
def pick(x: int) -> int: ...
@overload
def pick(x: str) -> str: ...
def pick(x):
    if x:
        return x
    return None


def twice(x: int) -> int:
    return x


def twice(x: int) -> int:
    return 2 * x


class Box:
    @overload
    def get(self, key: int) -> int: ...
    @overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        return key
"""


def test_overload_stubs_and_replaced_definitions_are_not_units():
    model = analyze_source(OVERLOADS)
    assert [u.name for u in model.units] == ["pick", "twice", "Box"]
    assert len(model.unit("pick").targets) == 2
    assert model.unit("twice").line == 19  # the second def
    assert [m.name for m in model.classes["Box"].methods] == ["get"]
