"""The module model: units at once, signatures with inferred types only when first read."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest
from miogen.analysis import module
from miogen.analysis.module import analyze_source
from miogen.analysis.typespec import TypeSpec

UNTYPED = """
class Greeter:
    def __init__(self, prefix):
        self.prefix = prefix.strip()

    def greet(self, name, times=1):
        return [self.prefix + name.upper()] * times


def shout(text):
    return text.startswith("!") and GREETING.match(text)


import re
GREETING = re.compile(r"hello [a-z]+")
"""

# Classes whose "code of its own" is decided from the written model, before any inference.
SHAPES = """
from collections import namedtuple


class Built:
    def __new__(cls, value):
        return super().__new__(cls)


class Fields(namedtuple("Fields", "x y")):
    pass


class Sized:
    def __len__(self):
        return 3


class Settable:
    @property
    def _value(self):
        return 1

    @_value.setter
    def _value(self, new):
        pass


class Base:
    def __init__(self, size):
        self.size = size


class Derived(Base):
    pass


class Empty:
    pass


class Managed:
    def __enter__(self):
        return self
"""


def _fresh(source: str, tag: str) -> str:
    """The same code as a text no other test analysed (the analysis is cached by text)."""
    return f"# {tag}\n{source}"


def test_units_and_targets_are_read_without_inferring_any_type(monkeypatch):
    def no_inference(*args: object) -> None:
        raise AssertionError("the units were read by completing the signatures")

    monkeypatch.setattr(module, "complete_model", no_inference)
    model = analyze_source(_fresh(UNTYPED, "units"), "greet.py", "greet")
    assert [u.name for u in model.units] == ["Greeter", "shout"]
    assert all(u.targets for u in model.units)
    assert not model.completed
    with pytest.raises(AssertionError):
        model.classes  # noqa: B018 - reading it is what completes the model
    monkeypatch.undo()
    assert model.classes["Greeter"].methods and model.completed


def test_signatures_are_inferred_when_first_read():
    model = analyze_source(_fresh(UNTYPED, "first read"), "greet.py", "greet")
    assert not model.completed
    greet = model.classes["Greeter"].methods[0]
    assert model.completed
    assert "str" in {option.kind for option in greet.params[0].type.args or (greet.params[0].type,)}
    assert model.functions["shout"].params[0].type.kind in ("str", "union")
    assert any(s.startswith("hello ") for s in model.constants.strings)  # the regex's examples
    assert "!" in model.constants.strings


def test_a_pickled_model_stays_lazy_and_completes_the_same_on_the_other_side():
    source = _fresh(UNTYPED, "pickle")
    model = analyze_source(source, "greet.py", "greet")
    received = pickle.loads(pickle.dumps(model))
    assert not received.completed and not model.completed
    assert received.classes == model.classes
    assert received.functions == model.functions
    assert received.constants == model.constants
    again = pickle.loads(pickle.dumps(model))  # completed now: the completion travels with it
    assert again.completed and again.classes == model.classes


def test_the_units_read_early_are_the_classes_that_have_code_once_completed():
    model = analyze_source(_fresh(SHAPES, "shapes"), "shapes.py", "shapes")
    units = {u.name for u in (*model.units, *model.private_units)}
    assert units == {"Built", "Sized", "Settable", "Base", "Derived"}
    for name, cls in model.classes.items():
        has_code = bool(cls.methods or cls.special) or bool(
            cls.constructor and cls.constructor.line > 0
        )
        assert (name in units) == has_code, name


def test_unannotated_types_are_the_same_as_a_direct_completion():
    model = analyze_source(_fresh(UNTYPED, "direct"), "greet.py", "greet")
    direct = module._complete(model)
    assert model.classes == direct.classes and model.functions == direct.functions
    assert TypeSpec("any") != model.functions["shout"].params[0].type


def test_an_inherited_constructor_is_the_first_bases_whatever_the_hash_seed():
    """Two bases in the module with constructors: ``Left``'s, as Python finds it, in every
    process, for the class and for the calls that hand it arguments (a set of base names made
    the latter depend on ``PYTHONHASHSEED``)."""
    source = (
        "class Left:\n    def __init__(self, left: int) -> None:\n        self.left = left\n\n\n"
        "class Right:\n    def __init__(self, right: str) -> None:\n        self.right = right\n\n\n"
        "class Both(Left, Right):\n    def total(self) -> int:\n        return self.left\n\n\n"
        "def make(value):\n    return Both(value)\n"
    )
    script = (
        "import sys\nfrom miogen.analysis.module import analyze_source\n"
        "model = analyze_source(sys.stdin.read(), 'both.py', 'both')\n"
        "print([p.name for p in model.classes['Both'].constructor.params])\n"
        "print(model.functions['make'].params[0].type)\n"
    )
    for seed in range(6):
        environment = {**os.environ, "PYTHONHASHSEED": str(seed)}
        result = subprocess.run(
            [sys.executable, "-c", script], input=source, capture_output=True, text=True,
            env=environment, check=True, timeout=60,
        )  # fmt: skip
        assert result.stdout.split() == ["['left']", "int"], seed
