"""Sampling builds the inputs real code needs: operators, factories, callables, dates, packages."""

from __future__ import annotations

import datetime
import decimal
import random
import textwrap

from miogen.analysis.module import analyze_source
from miogen.testcase.model import CALLS, canonical_key, from_json, has_value, to_json
from miogen.testcase.mutation import mutate
from miogen.testcase.sampling import TestFactory

VALUE_TYPE = """
import datetime
from typing import Callable


class Amount:
    def __new__(cls, cents=0):
        return super().__new__(cls)

    @classmethod
    def parse(cls, text: str) -> "Amount":
        return cls(int(text))

    def __add__(self, other):
        return self

    def __getitem__(self, index):
        return index

    def __enter__(self):
        return self

    def __exit__(self, *details):
        return False

    @property
    def label(self):
        return ""

    @label.setter
    def label(self, value: str) -> None:
        pass

    def apply(self, function: Callable[[int], int], day: datetime.date) -> int:
        return function(day.day)


def double(x: int) -> int:
    return 2 * x
"""


def factory(source: str = VALUE_TYPE, unit: str = "Amount") -> TestFactory:
    model = analyze_source(textwrap.dedent(source), "amount.py", "amount")
    return TestFactory(model, model.unit(unit))


def sampled(f: TestFactory, count: int = 400, seed: int = 3) -> list[tuple]:
    rng = random.Random(seed)
    return [f.sample(rng) for _ in range(count)]


def test_operators_setters_and_context_managers_are_called():
    kinds = {(s.kind, s.name) for test in sampled(factory()) for s in test}
    assert {("operator", "__add__"), ("operator", "__getitem__")} <= kinds
    assert ("operator", "__enter__") in kinds
    assert ("assign", "label") in kinds


def test_objects_come_from_constructors_factories_and_earlier_results():
    f = factory()
    tests = sampled(f)
    producers = {s.name for t in tests for s in t if f.produces(s) == "Amount"}
    assert {"Amount", "Amount.parse", "__add__"} <= producers
    # An operator's operand is sometimes the object another statement made.
    reused = [
        s
        for t in tests
        for s in t
        if s.kind == "operator" and s.args and f.produces(t[s.args[0][1]]) == "Amount"
    ]
    assert reused


def test_callable_parameters_get_functions_and_dates_get_dates():
    f = factory()
    functions, days = set(), set()
    for test in sampled(f):
        for statement in test:
            if statement.name == "apply":
                arguments = dict(statement.args)
                functions.add((test[arguments["function"]].kind, test[arguments["function"]].value))
                days.add(type(test[arguments["day"]].value))
    assert {("callable", "builtin"), ("callable", "lambda"), ("callable", "module")} <= functions
    assert days == {datetime.date}


def test_stdlib_values_survive_json_and_keys_tell_them_apart():
    test = (
        _value(datetime.date(2024, 2, 29)),
        _value(datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.UTC)),
        _value(datetime.timedelta(days=-3, seconds=5)),
        _value(decimal.Decimal("1.10")),
    )
    assert from_json(to_json(test)) == test
    assert canonical_key(test) != canonical_key(test[:3] + (_value(decimal.Decimal("1.1")),))


def _value(value):
    from miogen.testcase.model import Statement

    return Statement("value", value=value)


def test_mutation_keeps_every_reference_valid_with_the_new_kinds():
    f = factory()
    rng = random.Random(5)
    for test in sampled(f, 100):
        for _ in range(5):
            test = mutate(f, test, rng)
            for index, statement in enumerate(test):
                assert all(ref < index for ref in statement.references()), test
                if statement.kind in ("operator", "assign", "method"):
                    assert f.produces(test[statement.receiver]) == "Amount"


def test_varargs_and_positional_only_parameters_go_by_position():
    f = factory(
        "class Bag:\n    def __init__(self, name, *items):\n        self.items = items\n\n"
        "    def size(self):\n        return len(self.items)\n",
        "Bag",
    )
    shapes = set()
    for test in sampled(f, 200):
        for statement in test:
            if statement.kind == "construct":
                shapes.add(tuple(name for name, _ in statement.args))
    assert ("/name",) in shapes and ("/name", "*items", "*items") in shapes
    assert all(not shape or shape[0] == "/name" for shape in shapes)  # nothing before name


def test_setters_and_item_assignments_have_no_value_to_check():
    f = factory()
    for test in sampled(f, 100):
        for statement in test:
            if statement.kind in CALLS:
                expected = statement.kind != "assign"
                assert has_value(statement) == expected


def test_the_results_of_generator_functions_are_iterated():
    f = factory(
        "def pairs(items: list):\n    for item in items:\n        yield item, item\n", "pairs"
    )
    tests = sampled(f, 50)
    consumed = [t for t in tests if any(s.kind == "operator" and s.name == "__iter__" for s in t)]
    assert len(consumed) >= 40
    for test in consumed:
        iterated = next(s for s in test if s.name == "__iter__")
        assert test[iterated.receiver].name == "pairs"


CHECKED = """
class Ledger:
    def __init__(self, owner: str):
        if not isinstance(owner, str):
            raise TypeError("owner")
        self.owner = owner

    def add(self, name: str, note: str) -> None:
        if not isinstance(name, str):
            raise TypeError("name")
        if not isinstance(note, str):
            raise TypeError("note")
"""


def test_at_most_one_argument_per_test_has_another_type_and_never_a_constructors():
    """A call with an argument of another type raises and ends the test: per parameter, tests of
    a class that checks every argument rarely got past their first calls (configparser)."""
    f = factory(CHECKED, "Ledger")

    def other_type(test, index: int) -> bool:
        statement = test[index]
        return not (statement.kind == "value" and isinstance(statement.value, str))

    per_test = []
    for test in sampled(f, count=600):
        for statement in test:
            if statement.kind == "construct":
                assert not any(other_type(test, i) for _, i in statement.args), test
        calls = [s for s in test if s.kind == "method"]
        per_test.append(sum(other_type(test, i) for s in calls for _, i in s.args))
    assert max(per_test) == 1
    assert 0.05 < sum(per_test) / len(per_test) < 0.25  # the checks' other side is still tried
