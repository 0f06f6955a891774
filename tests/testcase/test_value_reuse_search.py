"""Parameters that must be equal to each other, and parameters converted in the body (issue
23: parse's ``strf_date_convert(x, _, type)`` takes its ``else`` only where
``datetime.strptime(x, type)`` succeeds on a ``type`` without directives, that is ``x == type``;
``date_convert``'s ``tz`` is an index, ``tz = groups[tz]``, and its string uses afterwards made it
a string).

With both toys' steps (testcase.reuse's sibling values, analysis.rebinding) every branch is
covered at this budget and seed; with either taken out its toy misses a branch.
"""

from __future__ import annotations

import random

import pytest
from miogen.analysis.module import analyze_file
from miogen.analysis.typespec import ANY, TypeSpec, union
from miogen.testcase.model import Statement
from miogen.testcase.reuse import sibling_value
from miogen.testcase.sampling import TestFactory
from worker.helpers import missed_by_mio

EVALUATIONS = 300

TOYS = {
    # equal strings: strptime on a format without directives matches only that text
    "literal_format": """
        from datetime import datetime

        def _parses(text, fmt):
            try:
                datetime.strptime(text, fmt)
            except ValueError:
                return False
            return True

        def convert(text: str, fmt: str):
            if not fmt or "%" in fmt:
                return None
            if _parses(text, fmt):
                return 1
            return 0
        """,
    # an index converted into the text it names, then read as text
    "converted_index": """
        def pick(key=None):
            groups = ("AM", "pm", "+01:00")
            if key is not None:
                key = groups[key]
                key = key.strip()
                if key.isupper():
                    return "upper"
                return key.lower()
            return None
        """,
}
UNITS = {"literal_format": "convert", "converted_index": "pick"}


@pytest.mark.parametrize("toy", sorted(TOYS))
def test_every_branch_is_covered_within_the_budget(write_module, toy):
    assert missed_by_mio(write_module(toy, TOYS[toy]), UNITS[toy], EVALUATIONS) == []


def test_a_sibling_is_an_earlier_argument_of_a_type_the_parameter_takes():
    statements = [
        Statement("value", value="a"),
        Statement("value", value=True),
        Statement("value", value=3),
        Statement("list", args=(("", 2),)),
        Statement("value", value=b"x"),
    ]
    given = [("a", 0), ("b", 1), ("c", 2), ("d", 3), ("e", 4)]

    def drawn(spec: TypeSpec) -> set[int | None]:
        rng = random.Random(0)
        return {sibling_value(statements, given, spec, rng) for _ in range(300)}

    assert drawn(TypeSpec("str")) == {None, 0}  # now and then, not always
    assert drawn(TypeSpec("int")) == {None, 2}  # True is a bool: not passed for an int
    assert drawn(union([TypeSpec("bytes"), TypeSpec("float")])) == {None, 4}
    assert drawn(ANY) == {None, 0, 2, 4}
    assert drawn(TypeSpec("float")) == {None}
    rng = random.Random(0)
    state = rng.getstate()
    assert sibling_value(statements, [("d", 3)], TypeSpec("int"), rng) is None
    assert rng.getstate() == state  # nothing fits: nothing drawn, sampling goes on as before


PAIRED = """
def same(old: str, new: str) -> bool:
    if old == new:
        return True
    return False


def joined(head: str, tail: str) -> str:
    return head + "-" + tail
"""


def test_only_parameters_the_body_uses_together_get_a_siblings_value(write_module):
    # ``joined`` never compares or passes on its two strings together: giving ``tail`` the
    # value of ``head`` there spends draws on a shape the code does not have (issue 25: the
    # modules of the real corpus that lost branches with sibling values everywhere).
    model = analyze_file(write_module("paired", PAIRED))
    factory = TestFactory(model, model.unit("same"))

    def shared(function: str) -> int:
        rng, count = random.Random(0), 0
        for _ in range(200):
            statements: list[Statement] = []
            args = factory.arguments(statements, model.functions[function], rng, 0)
            count += len(args) == 2 and args[0][1] == args[1][1]
        return count

    assert shared("same") > 0
    assert shared("joined") == 0
