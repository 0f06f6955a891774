"""A test that drew from the clock or a generator still checks the type all its runs agree on."""

from __future__ import annotations

import random

from miogen.assertions.observe import observe
from miogen.testcase.model import Statement
from worker.helpers import problem_for

MOMENTS = """
import datetime
import random
import types


def parse_moment(text: str, pattern: str):
    moment = datetime.datetime.strptime(text, pattern)
    if "%Y" not in pattern:
        moment = moment.replace(year=datetime.date.today().year)
    if "%d" in pattern:
        return moment.date()
    if "%H" in pattern:
        return moment.time()
    return None


def noisy(scale: float) -> float:
    return random.random() * scale


def coin():
    return random.choice([None, 1])


def stamped(label: str):
    return types.SimpleNamespace(label=label, at=datetime.datetime.now())


def fixed(day: int) -> datetime.date:
    return datetime.date(2020, 1, day)
"""


def checks(write_module, unit: str, *values: object) -> tuple[bool, set[tuple[str, str]]]:
    """Whether the test of ``unit(*values)`` drew, and the (kind, value) of its call's checks."""
    problem = problem_for(write_module("moments", MOMENTS), unit)
    statements = [Statement("value", value=v) for v in values]
    named = tuple((f"/{i}", i) for i in range(len(values)))
    test = (*statements, Statement("call", unit, named))
    observed = observe(problem.executor, test, "moments")
    assert observed.stable
    return observed.drew, {(o.kind, o.value) for o in observed.observations}


def test_a_value_read_from_the_clock_is_checked_by_its_type(write_module):
    assert checks(write_module, "parse_moment", "3", "%d") == (
        True, {("isinstance", "datetime.date")},
    )  # fmt: skip
    assert checks(write_module, "parse_moment", "7", "%H") == (
        True, {("isinstance", "datetime.time")},
    )  # fmt: skip


def test_a_path_that_read_the_clock_and_returned_none_is_checked_as_none(write_module):
    assert checks(write_module, "parse_moment", "x", "x") == (True, {("is_none", "")})


def test_a_random_float_is_checked_by_its_builtin_type(write_module):
    assert checks(write_module, "noisy", 2.0) == (True, {("isinstance", "float")})


def test_a_type_the_runs_do_not_agree_on_is_not_checked(write_module):
    """None or 1 at random: six runs agree for 1 test in 32; twenty tests all agreeing never."""
    found = [checks(write_module, "coin")[1] for _ in range(20)]
    assert found.count(set()) >= 10


def test_an_unnamed_type_gets_no_check_and_a_value_without_a_draw_keeps_its_own(write_module):
    assert checks(write_module, "stamped", "a") == (True, set())
    drew, found = checks(write_module, "fixed", 3)
    assert not drew and ("equals", "datetime.date(2020, 1, 3)") in found


FLIPS = """
import random


def flip():
    return 1 if random.random() < 0.5 else "one"


def roll():
    return random.randint(1, 6)
"""


def flip_checks(write_module, unit: str, trials: int) -> list[set[tuple[str, str]]]:
    problem = problem_for(write_module("flips", FLIPS), unit)
    test = (Statement("call", unit),)
    random.seed(20261128)  # the trials' draws repeat; the watch still sees each as unseeded
    found = []
    for _ in range(trials):
        observed = observe(problem.executor, test, "flips")
        assert observed.drew and observed.stable
        found.append({(o.kind, o.value) for o in observed.observations})
    return found


def test_a_type_that_depends_on_the_draw_is_never_checked(write_module):
    """int or str at random: the first two runs agree half the time, six runs 1 in 32; the
    type is checked only when all of TYPE_RUNS runs agree (1 in 32768)."""
    assert flip_checks(write_module, "flip", 64) == [set()] * 64


def test_a_type_that_does_not_depend_on_the_draw_is_checked(write_module):
    assert flip_checks(write_module, "roll", 8) == [{("isinstance", "int")}] * 8
