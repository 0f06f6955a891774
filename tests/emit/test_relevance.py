"""State is asserted where the test's calls changed it, not where it restates the setup."""

from __future__ import annotations

from miogen.analysis.module import analyze_source
from miogen.assertions.observation import Observation
from miogen.emit.relevance import changed_state_only
from miogen.testcase.model import Statement
from miogen.testcase.sampling import TestFactory

STACK = """
class Stack:
    def __init__(self, capacity: int = 10) -> None:
        self.capacity = capacity
        self.size = 0

    def push(self, item: int) -> None:
        self.size += 1
"""


def kept(test, observations):
    model = analyze_source(STACK, "stack.py", "stack")
    factory = TestFactory(model, model.unit("Stack"))
    return changed_state_only(test, observations, factory.signature)


def test_an_attribute_that_holds_what_the_constructor_was_given_is_not_asserted():
    test = (
        Statement("value", value=3),
        Statement("construct", "Stack", (("capacity", 0),)),
        Statement("value", value=7),
        Statement("method", "push", (("item", 2),), receiver=1),
    )
    capacity = Observation(1, "attribute", "3", "capacity")
    size = Observation(1, "attribute", "1", "size")
    assert kept(test, [capacity, size]) == [size]
    default = (
        Statement("construct", "Stack"),
        *test[2:3],
        Statement("method", "push", (("item", 1),), receiver=0),
    )
    assert kept(
        default,
        [Observation(0, "attribute", "10", "capacity"), Observation(0, "attribute", "1", "size")],
    ) == [Observation(0, "attribute", "1", "size")]


def test_a_constructor_under_test_keeps_what_it_set():
    test = (Statement("value", value=3), Statement("construct", "Stack", (("capacity", 0),)))
    capacity = Observation(1, "attribute", "3", "capacity")
    assert kept(test, [capacity]) == [capacity]
    changed = Observation(1, "attribute", "4", "capacity")  # a later call changed it
    pushed = (
        *test,
        Statement("value", value=7),
        Statement("method", "push", (("item", 2),), receiver=1),
    )
    assert kept(pushed, [changed]) == [changed]
