"""Values read as a person would write them: a number, not False, where the code takes a number."""

from __future__ import annotations

import re
import sys
import tempfile
import time

from minimize.test_shrink import cache_for
from miogen.analysis.module import analyze_file
from miogen.analysis.numeric_uses import numeric_uses, whole_number_uses
from miogen.common.records import JobSpec, UnitJob
from miogen.minimize.readable import number_parameters, numbers_for_bools
from miogen.minimize.reduce import ReducedTest
from miogen.minimize.shrink import Shrinker
from miogen.testcase.model import Statement
from miogen.worker import phases
from miogen.worker.objectives import Objectives
from miogen.worker.search import Budget
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


MONEY = """
class Money:
    def __init__(self, cents: int = 0) -> None:
        self.cents = cents

    def __radd__(self, other):
        if isinstance(other, int):
            return Money(self.cents + other)
        return NotImplemented

    def __rdivmod__(self, other):
        if isinstance(other, int):
            return divmod(other, self.cents)
        return NotImplemented


def spread(values, flag: bool = False):
    return max(values) - min(values) if values else 0
"""


def rdivmod(operand: object) -> tuple[Statement, ...]:
    """``divmod(operand, Money())``: ``Money().__rdivmod__(operand)``."""
    return (
        Statement("construct", "Money"),
        Statement("value", value=operand),
        Statement("operator", "__rdivmod__", (("other", 1),), receiver=0),
    )


def test_an_untyped_operand_of_an_operator_and_an_item_among_numbers_take_numbers(write_module):
    """An operator's untyped operand is a union of the class, int, float and anything
    (``analysis.enrich``): a bool there stands for an int. A bool among a list's ints or
    floats stands for one of them; a parameter with a bool default takes a flag."""
    problem = problem_for(write_module("money", MONEY), "Money")
    kind = number_parameters(problem.factory.model, problem.factory.signature)
    assert kind(rdivmod(False), 1) is int
    assert number_parameters(problem.factory.model)(rdivmod(False), 1) is None  # no operators
    values = [Statement("value", value=v) for v in (True, 3, 2.5, False)]
    among_ints = (*values, Statement("list", args=(("", 0), ("", 1))))
    among_floats = (*values, Statement("list", args=(("", 0), ("", 1), ("", 2))))
    among_bools = (*values, Statement("tuple", args=(("", 0), ("", 3))))
    assert [kind(t, 0) for t in (among_ints, among_floats, among_bools)] == [int, float, None]
    flag = (Statement("value", value=True), Statement("call", "spread", (("flag", 0),)))
    assert kind(flag, 0) is None


def test_a_bool_operand_of_a_reflected_operator_becomes_a_number(write_module):
    """``divmod(False, money)`` passes a bool by position (ruff's FBT003), and ``False`` is
    as simple as ``0`` in the simplicity order: only the readable pass turns it into 0."""
    problem = problem_for(write_module("money", MONEY), "Money")
    cache = cache_for(problem)
    test = rdivmod(False)
    _, covered = cache(test)  # ZeroDivisionError in __rdivmod__
    numbers = number_parameters(problem.factory.model, problem.factory.signature)
    shrinker = Shrinker(cache, time.monotonic() + 30, numbers)
    shrunk = shrinker.shrink(ReducedTest(test, covered)).test
    assert [(type(s.value), s.value) for s in shrunk if s.kind == "value"] == [(int, 0)], shrunk


def generated_source(path, unit: str, seed: int = 1, evaluations: int = 300) -> str:
    """The kept tests' source of ``unit`` in the module at ``path``, through the worker's
    phases (search, then reduce, readable values and assertions) at a fixed seed and budget."""
    spec = JobSpec(
        path=str(path), module_name=path.stem, import_root=str(path.parent),
        units=(UnitJob(unit),), scratch=tempfile.mkdtemp(), seed=seed, evaluations=evaluations,
    )  # fmt: skip
    sys.modules.pop(path.stem, None)
    model = analyze_file(path, path.stem)
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    run = phases.UnitRun(spec, spec.units[0], model, module, None, lambda _: None, objectives)
    run.search(Budget(evaluations=evaluations))
    return "\n".join(t.source for t in run.finish(time.monotonic() + 120, set()).tests)


def test_a_generated_test_of_a_reflected_operator_passes_no_bool(write_module):
    """The unit end to end, at a seed whose search finds ``divmod(False, money)`` first."""
    source = generated_source(write_module("money", MONEY), "Money")
    assert "divmod(0, money)" in source, source
    assert not re.search(r"\b(True|False)\b", source), source


WEEK = """
MONDAY, SUNDAY = 0, 6


class Week:
    def __init__(self):
        self.first = MONDAY

    def set_first(self, first):
        if not MONDAY <= first <= SUNDAY:
            raise ValueError("not a weekday")
        self.first = first

    def pick(self, value, strict):
        return value if strict is True else None
"""


def set_first_test(first: object) -> tuple[Statement, ...]:
    """``Week().set_first(first=...)``, as calendar's ``setfirstweekday(firstweekday=False)``
    (an untyped parameter the inference gives no type: compared with names, not numbers)."""
    return (
        Statement("construct", "Week"),
        Statement("value", value=first),
        Statement("method", "set_first", (("first", 1),), receiver=0),
    )


def test_an_untyped_parameter_the_body_uses_as_a_number_takes_a_number(write_module):
    """``first`` is ordered against the weekday constants: with the body's uses
    (``analysis.numeric_uses``) a bool given to it becomes an int; ``strict``, compared with
    True, stays a flag; without the uses nothing is known of the untyped parameter."""
    path = write_module("week", WEEK)
    problem = problem_for(path, "Week")
    uses = numeric_uses(path.read_text())
    kind = number_parameters(problem.factory.model, problem.factory.signature, uses)
    assert kind(set_first_test(False), 1) is int
    pick = (
        Statement("construct", "Week"),
        Statement("value", value=True),
        Statement("method", "pick", (("value", 1), ("strict", 1)), receiver=0),
    )
    assert kind(pick, 1) is None
    without = number_parameters(problem.factory.model, problem.factory.signature)
    assert without(set_first_test(False), 1) is None
    cache = cache_for(problem)
    test = set_first_test(False)
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30, kind).shrink(ReducedTest(test, covered)).test
    values = [(type(s.value), s.value) for s in shrunk if s.kind == "value"]
    assert values == [(int, 0)], shrunk


WEEKDAYS = """
MONDAY, SUNDAY = 0, 6


class IllegalWeekdayError(ValueError):
    pass


class _Settings:
    first = MONDAY


settings = _Settings()


def set_first_weekday(first):
    if not MONDAY <= first <= SUNDAY:
        raise IllegalWeekdayError(first)
    settings.first = first
"""


def test_a_generated_test_of_an_untyped_number_parameter_passes_no_bool(write_module):
    """calendar's ``setfirstweekday(firstweekday=False)``, end to end, at a seed whose search
    keeps ``first=False`` for three mutants of the comparison. ``0`` kills them too, but the
    reduction's cache held ``set_first_weekday(0)`` from a run under another focus, without
    those kills: the readable candidate was refused (``CoverageCache``'s ``checking``)."""
    source = generated_source(write_module("weekdays", WEEKDAYS), "set_first_weekday")
    assert "set_first_weekday(0)" in source, source
    assert not re.search(r"\b(True|False)\b", source), source


PAGES = """
def page(index, scale):
    if index // 10 >= 1:
        return "second"
    return "first" * int(scale / 2)
"""


def test_a_whole_float_for_a_parameter_taking_whole_numbers_becomes_an_int(write_module):
    """``page(12.0, ...)``: the body floors ``index`` (``index // 10``), so a float there
    reads as if a page could have a fraction; it becomes 12 (then shrinks as an int). ``scale``
    is divided (``scale / 2``): its float stays one (issue 24, ``leapdays(179375.0, ...)``)."""
    path = write_module("pages", PAGES)
    problem = problem_for(path, "page")
    source = path.read_text()
    kind = number_parameters(
        problem.factory.model, problem.factory.signature, numeric_uses(source),
        whole_number_uses(source),
    )  # fmt: skip
    test = (
        Statement("value", value=12.0),
        Statement("value", value=4.0),
        Statement("call", "page", (("index", 0), ("scale", 1))),
    )
    assert [kind(test, 0), kind(test, 1)] == [int, None]
    assert [t[0].value for t in numbers_for_bools(test, kind)] == [12]
    fraction = (Statement("value", value=12.5), *test[1:])
    assert list(numbers_for_bools(fraction, kind)) == []
    cache = cache_for(problem)
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30, kind).shrink(ReducedTest(test, covered)).test
    call = next(s for s in shrunk if s.kind == "call")
    index = shrunk[dict(call.args)["index"]].value
    assert type(index) is int and index == 10, shrunk


def test_the_units_numbers_walk_the_module_once_for_all_its_units(monkeypatch):
    """Each unit's numbers come from one walk of the module, not one walk per unit."""
    import ast

    from miogen.minimize.readable import unit_numbers

    source = "def a(y):\n    return y // 400\n\n\ndef b(y):\n    return y % 7 + y % 7 + 100\n"
    source += f"# {time.monotonic_ns()}: a text no earlier test has read\n"
    walks = []
    walk = ast.walk

    def counted(node):
        walks.append(node)
        return walk(node)

    monkeypatch.setattr(ast, "walk", counted)
    assert unit_numbers(source, ((1, 2),)) == (400,)
    assert unit_numbers(source, ((5, 6),)) == (7, 100)
    assert len([n for n in walks if isinstance(n, ast.Module)]) == 1


STARRED = """
def first(*items):
    if items and items[0]:
        return "yes"
    return "no"
"""


def test_a_bool_among_untyped_starred_arguments_becomes_a_number(write_module):
    """``first(True)``: a bool of ``*items`` goes by position (ruff's FBT003) and nothing says
    the function takes a flag: 1 keeps the branch."""
    problem = problem_for(write_module("starred", STARRED), "first")
    cache = cache_for(problem)
    test = (Statement("value", value=True), Statement("call", "first", (("*items", 0),)))
    _, covered = cache(test)
    shrinker = Shrinker(cache, time.monotonic() + 5, number_parameters(problem.factory.model))
    shrunk = shrinker.shrink(ReducedTest(test, covered)).test
    values = [s.value for s in shrunk if s.kind == "value"]
    assert values == [1] and type(values[0]) is int, shrunk


OVERLOADED = """
from typing import Callable, Iterable, TypeVar, overload

A = TypeVar("A")
B = TypeVar("B")


@overload
def fold(func: Callable[[A, A], A], items: Iterable[A]) -> list[A]: ...
@overload
def fold(func: Callable[[B, A], B], items: Iterable[A], initial: B) -> list[B]: ...
def fold(func, items, *args):
    if len(args) > 1:
        raise ValueError("Too many arguments")
    totals = list(args)
    for item in items:
        totals.append(func(totals[-1], item) if totals else item)
    if args and args[0]:
        return totals
    return []
"""


def test_a_bool_for_an_overload_s_typevar_parameter_becomes_a_number(write_module):
    """``fold(add, [], True)``: the overloads make ``initial`` positional-only (a ``TypeVar``
    ``B``), so the bool goes by position (ruff's FBT003) and nothing says a flag: 1 keeps
    what ``True`` covered."""
    problem = problem_for(write_module("folds", OVERLOADED), "fold")
    params = problem.factory.model.functions["fold"].params
    assert [p.name for p in params] == ["/func", "/items", "/initial"]
    cache = cache_for(problem)
    test = (
        Statement("callable", "lambda a, b: a + b", value="lambda"),
        Statement("list"),
        Statement("value", value=True),
        Statement("call", "fold", (("/func", 0), ("/items", 1), ("/initial", 2))),
    )
    _, covered = cache(test)
    shrinker = Shrinker(cache, time.monotonic() + 5, number_parameters(problem.factory.model))
    shrunk = shrinker.shrink(ReducedTest(test, covered)).test
    values = [s.value for s in shrunk if s.kind == "value"]
    assert values == [1] and type(values[0]) is int, shrunk
