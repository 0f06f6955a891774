"""A parameter annotated with what the sampler cannot build (a class of a module it does not
know, a class object) is not given a value of another type: a call that needs one is left
out, one with a default is left out of the call (analysis.opaque)."""

from __future__ import annotations

import random

from miogen.analysis.module import analyze_source
from miogen.testcase.sampling import TestFactory

SUBJECT = """
import types
from email.message import Message
from email.policy import Policy
from typing import Hashable, Optional, Type, Union

Mail = Union[Message, Policy]


class Shape:
    pass


def const_kind(node: types.ModuleType) -> str:
    return node.__name__


class Visitor:
    def __init__(self, root: str) -> None:
        self.root = root

    def visit_constant(self, node: Message) -> str:
        return repr(node)

    def imports(self, node: "Mail") -> int:
        return len(repr(node))

    def register(self, kind: Type[Policy]) -> None:
        self.kind = kind

    def key(self, value: Hashable) -> int:
        return hash(value)

    def describe(
        self, depth: int, node: Optional[Message] = None, at: types.ModuleType = None
    ) -> str:
        return self.root * depth
"""


def test_opaque_annotations_are_marked_and_plain_ones_are_not():
    model = analyze_source(SUBJECT, "subject.py", "subject")
    visitor = model.classes["Visitor"]
    opaque = {m.name: [p.name for p in m.params if p.opaque] for m in visitor.methods}
    assert opaque == {
        "visit_constant": ["node"],
        "imports": ["node"],
        "register": ["kind"],
        "key": [],  # a Hashable takes plain values
        "describe": ["at"],  # an Optional one may be None
    }
    assert [p.opaque for p in model.functions["const_kind"].params] == [True]


def test_calls_that_need_what_cannot_be_built_are_left_out():
    model = analyze_source(SUBJECT, "subject.py", "subject")
    factory = TestFactory(model, model.unit("Visitor"))
    rng = random.Random(1)
    called: set[str] = set()
    passed: set[str] = set()
    for _ in range(300):
        for statement in factory.sample(rng):
            if statement.kind == "method":
                called.add(statement.name)
                if statement.name == "describe":
                    passed |= {name for name, _ in statement.args}
    assert called == {"key", "describe"}
    assert "at" not in passed
    assert "depth" in passed
    function = TestFactory(model, model.unit("const_kind"))
    assert all(function.sample(rng) == () for _ in range(20))


def test_the_unit_calls_are_found_once_per_factory():
    # Sampling and mutation ask on every appended call; the model's signatures cannot change
    # once the factory has them, so the filter runs once.
    model = analyze_source(SUBJECT, "subject.py", "subject")
    factory = TestFactory(model, model.unit("Visitor"))
    first = factory.unit_calls()
    assert [s.name for s in first] == ["key", "describe"]
    factory.sample(random.Random(3))
    assert factory.unit_calls() is first
    function = TestFactory(model, model.unit("const_kind"))
    assert function.unit_calls() == ()
    assert function.unit_calls() is function.unit_calls()
