"""Values read as a person would write them: a number, not False, where the code takes a number."""

from __future__ import annotations

import time

from minimize.test_shrink import cache_for
from miogen.minimize.readable import number_parameters, numbers_for_bools
from miogen.minimize.reduce import ReducedTest
from miogen.minimize.shrink import Shrinker
from miogen.testcase.model import Statement
from worker.helpers import problem_for

SUBJECT = """
class Stack:
    def __init__(self, capacity=3, strict: bool = False):
        self.capacity = capacity
        self.strict = strict
        self.items = []

    def push(self, item, times: int = 1, weight: float = 1.0):
        if len(self.items) + times > self.capacity:
            raise OverflowError("full")
        self.items += [item] * times
        return weight * times


def scale(size, factor=2.5):
    return size * factor
"""


def stack_test(*arguments: tuple[str, object]) -> tuple[Statement, ...]:
    values = [Statement("value", value=v) for _, v in arguments]
    names = tuple((name, index) for index, (name, _) in enumerate(arguments))
    return (*values, Statement("construct", "Stack", names))


def test_number_parameters_know_typed_and_defaulted_numbers(write_module):
    problem = problem_for(write_module("stacks", SUBJECT), "Stack")
    kind = number_parameters(problem.factory.model)
    test = stack_test(("capacity", False), ("strict", True))
    push = (
        *test,
        Statement("value", value=True),
        Statement("value", value=False),
        Statement("value", value=None),
        Statement("method", "push", (("times", 3), ("weight", 4), ("item", 5)), receiver=2),
    )
    assert [kind(push, i) for i in (0, 1, 3, 4, 5)] == [int, None, int, float, None]
    call = (Statement("value", value=True), Statement("call", "scale", (("factor", 0),)))
    assert kind(call, 0) is float
    assert [t[0].value for t in numbers_for_bools(call, kind)] == [1.0]


def test_a_bool_given_to_a_number_parameter_becomes_that_number(write_module):
    problem = problem_for(write_module("stacks", SUBJECT), "Stack")
    cache = cache_for(problem)
    test = (
        *stack_test(("capacity", False), ("strict", True)),
        Statement("value", value=None),
        Statement("method", "push", (("item", 3),), receiver=2),
    )
    _, covered = cache(test)  # the push raises: full at capacity 0
    shrinker = Shrinker(cache, time.monotonic() + 5, number_parameters(problem.factory.model))
    shrunk = shrinker.shrink(ReducedTest(test, covered)).test
    construct = next(s for s in shrunk if s.kind == "construct")
    values = {name: shrunk[index].value for name, index in construct.args}
    assert type(values["capacity"]) is int and values["capacity"] == 0, shrunk
    assert values.get("strict", True) is True  # a flag stays a flag


def test_without_the_parameter_kinds_bools_stay(write_module):
    problem = problem_for(write_module("stacks", SUBJECT), "Stack")
    cache = cache_for(problem)
    test = stack_test(("capacity", False))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
    assert [s.value for s in shrunk.test if s.kind == "value"] in ([False], [])
