"""A raise is a raises-test only when the project means it: a ``raise`` of its source, or a
call with values of the types it means (``assertions.observe.unmeant_raise``).

``random.Random(seed)`` refuses an object from 3.11 on and hashed it before: a test of
``pick(seed=<a Dist>)`` would check the interpreter, not the project (issue 24, "Types")."""

from __future__ import annotations

from miogen.assertions.observe import observe, unmeant_raise
from miogen.testcase.model import Statement
from worker.helpers import problem_for

SUBJECT = """
import math
import random


class Dist:
    def __init__(self, mu=0.0):
        self.mu = mu

    def pick(self, seed=None):
        return random.Random(seed).random() + self.mu

    def root(self, x: float) -> float:
        return math.sqrt(x)

    def scaled(self, factor: int) -> float:
        if not isinstance(factor, int):
            raise TypeError("factor must be an int")
        return self.mu * factor
"""


def judged(write_module, method: str, keyword: str, argument: Statement) -> tuple[bool, bool]:
    """(whether the call raised, whether that raise is unmeant) for ``Dist().method(...)``."""
    problem = problem_for(write_module("dists", SUBJECT), "Dist")
    test = (
        Statement("construct", "Dist"),
        argument,
        Statement("method", method, ((keyword, 1),), receiver=0),
    )
    observed = observe(problem.executor, test, "dists")
    return observed.raised_at == 2, unmeant_raise(observed, problem.factory.signature)


def test_an_object_for_a_seed_meant_as_none_raising_in_the_standard_library_is_unmeant(
    write_module,
):
    assert judged(write_module, "pick", "seed", Statement("construct", "Dist")) == (True, True)


def test_a_plain_value_against_the_annotation_raising_in_c_is_unmeant(write_module):
    assert judged(write_module, "root", "x", Statement("value", value="nine")) == (True, True)


def test_a_value_of_the_meant_type_that_the_standard_library_refuses_stays(write_module):
    assert judged(write_module, "root", "x", Statement("value", value=-1.0)) == (True, False)


def test_a_wrong_type_the_project_raises_on_on_purpose_stays(write_module):
    assert judged(write_module, "scaled", "factor", Statement("value", value="two")) == (
        True,
        False,
    )


def test_a_call_that_does_not_raise_is_not_judged(write_module):
    assert judged(write_module, "pick", "seed", Statement("value", value=7)) == (False, False)


FOLDS = """
from typing import Callable, List, TypeVar

A = TypeVar("A")


def scan(func: Callable[[A, A], A], items: List[A]) -> List[A]:
    if not items:
        raise ValueError("nothing to scan")
    totals = [items[0]]
    for item in items[1:]:
        totals.append(func(totals[-1], item))
    return totals
"""


def scanned(write_module, function: str, *items: object) -> tuple[bool, bool]:
    problem = problem_for(write_module("folds", FOLDS), "scan")
    values = [Statement("value", value=item) for item in items]
    test = (
        Statement("callable", function, value="lambda" if "lambda" in function else "builtin"),
        *values,
        Statement("list", args=tuple(("", i + 1) for i in range(len(values)))),
        Statement("call", "scan", (("func", 0), ("items", len(values) + 1))),
    )
    observed = observe(problem.executor, test, "folds")
    return observed.raised_at == len(test) - 1, unmeant_raise(observed, problem.factory.signature)


def test_a_catalogue_function_given_items_it_cannot_take_raises_unmeant(write_module):
    """``scan(lambda a, b: a * b, [None, "a"])``: the function and the items are of one
    ``TypeVar`` (mypy refuses the call); the interpreter raises on the lambda's operands."""
    assert scanned(write_module, "lambda a, b: a * b", None, "a") == (True, True)
    assert scanned(write_module, "min", "a", 0) == (True, True)  # of one type, not two


def test_a_catalogue_function_given_items_it_takes_and_the_project_s_raise_stay(write_module):
    assert scanned(write_module, "lambda a, b: a * b", 2, 3) == (False, False)
    assert scanned(write_module, "min") == (True, False)  # the project's ValueError
