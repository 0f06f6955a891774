"""Single-point crossover of flat tests: valid offspring, heads kept, tails wired to the head."""

from __future__ import annotations

import random

from miogen.analysis.module import analyze_file
from miogen.testcase.crossover import crossover
from miogen.testcase.model import Statement
from miogen.testcase.sampling import TestFactory

SHAPES = """
class Box:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height

    def area(self) -> int:
        return self.width * self.height

    def grow(self, by: int) -> None:
        self.width += by
"""


def valid(test) -> bool:
    return all(ref < index for index, s in enumerate(test) for ref in s.references())


def test_offspring_are_valid_tests_made_of_the_parents_statements(write_module):
    model = analyze_file(write_module("shapes", SHAPES), "shapes")
    factory = TestFactory(model, model.unit("Box"))
    rng = random.Random(0)
    for _ in range(200):
        first, second = factory.sample(rng), factory.sample(rng)
        for child in crossover(first, second, rng, limit=12):
            assert valid(child) and len(child) <= 12
            known = {(s.kind, s.name, repr(s.value)) for s in first + second}
            assert all((s.kind, s.name, repr(s.value)) in known for s in child)


def test_the_tail_calls_the_object_the_head_built():
    head = (
        Statement("value", value=2),
        Statement("construct", "Box", (("width", 0), ("height", 0))),
    )
    other = (
        Statement("value", value=9), Statement("construct", "Box", (("width", 0), ("height", 0))),
        Statement("method", "area", (), receiver=1),
    )  # fmt: skip
    rng = random.Random(5)  # alpha = 0.62: heads of 1 and 2 statements
    child, _ = crossover(
        head + (Statement("method", "grow", (("by", 0),), receiver=1),), other, rng
    )
    assert child[-1] == Statement("method", "area", (), receiver=1)  # the head's Box, not a copy
    assert sum(s.kind == "construct" for s in child) == 1
