"""What a raise is observed as: the class a test can import, and its message when runs agree."""

from __future__ import annotations

import time

from miogen.assertions.observe import observe
from miogen.testcase.model import Statement
from worker.helpers import problem_for

SUBJECT = """
import itertools
import json


class LocalError(LookupError):
    pass


def fail(kind: int) -> int:
    if kind == 0:
        raise ValueError("width must be > 0 (got 0)")
    if kind == 1:
        json.loads("")  # json.decoder.JSONDecodeError, exported by json
    if kind == 2:
        raise LocalError("local")
    if kind == 3:

        class Hidden(KeyError):
            pass

        raise Hidden("nowhere to import it from")
    if kind == 4:
        raise RuntimeError(f"object at {hex(id(object()))}")
    if kind == 5:
        raise RuntimeError(f"call number {next(COUNTER)}")
    if kind == 6:
        return fail(kind)
    if kind == 7:
        return kind > [kind]  # CPython's words, which change between versions
    if kind == 8:
        return "text"[kind / 2]  # type: ignore[index]
    if kind == 9:
        try:
            int("nine")
        except ValueError:
            raise
    if kind == 10:
        try:
            int("ten")
        except ValueError as error:
            raise ValueError(
                "kind 10 is not a number"
            ) from error
    if kind == 11:
        raise NotImplementedError
    if kind == 12:
        assert kind < 0
    return kind


COUNTER = itertools.count()
"""


def raised(write_module, kind: int):
    problem = problem_for(write_module("failing", SUBJECT), "fail")
    test = (Statement("value", value=kind), Statement("call", "fail", (("kind", 0),)))
    observations = observe(problem.executor, test, "failing").observations
    [raises] = [o for o in observations if o.kind == "raises"]
    return raises.value, raises.detail, raises.message


def test_a_builtin_class_with_its_message(write_module):
    assert raised(write_module, 0) == ("ValueError", "", "width must be > 0 (got 0)")


def test_a_class_from_its_shortest_public_module(write_module):
    value, detail, message = raised(write_module, 1)
    assert (value, detail) == ("JSONDecodeError", "json:JSONDecodeError")
    assert message is None  # json's words, not the project's


def test_only_a_message_the_projects_own_raise_made_is_matched(write_module):
    assert raised(write_module, 7) == ("TypeError", "", None)
    assert raised(write_module, 8) == ("TypeError", "", None)
    assert raised(write_module, 9) == ("ValueError", "", None)  # a bare raise passes int()'s on
    assert raised(write_module, 10) == ("ValueError", "", "kind 10 is not a number")


def test_an_empty_message_is_not_matched(write_module):
    """``match="^$"`` checks nothing a reader looks for: the class alone."""
    assert raised(write_module, 11) == ("NotImplementedError", "", None)
    assert raised(write_module, 12) == ("AssertionError", "", None)


def test_the_modules_own_class(write_module):
    assert raised(write_module, 2) == ("LocalError", "failing", "local")


def test_a_class_nobody_can_import_is_named_by_its_nearest_importable_base(write_module):
    assert raised(write_module, 3)[:2] == ("KeyError", "")


def test_messages_that_differ_between_runs_are_not_matched(write_module):
    assert raised(write_module, 4) == ("RuntimeError", "", None)  # an address
    assert raised(write_module, 5) == ("RuntimeError", "", None)  # differs from run to run
    assert raised(write_module, 6) == ("RecursionError", "", None)  # where the stack ran out


COUNTER_CLASS = """
class Counter:
    def __init__(self, start: int = 0):
        self.start = start

    @property
    def current(self) -> int:  # no mutant: no assertion on it would be chosen for a kill
        return self.start

    def bump(self) -> int:
        return self.start + 1
"""


def test_a_property_read_nothing_uses_keeps_a_check_of_its_value(write_module):
    from miogen.assertions.kills import MutantSet
    from miogen.assertions.select import MutationAnalysis

    path = write_module("counters", COUNTER_CLASS)
    problem = problem_for(path, "Counter")
    test = (
        Statement("value", value=3),
        Statement("construct", "Counter", (("start", 0),)),
        Statement("property", "current", receiver=1),
        Statement("method", "bump", receiver=1),
    )
    seen = observe(problem.executor, test, "counters")
    test, observed = seen.test, seen.observations
    unit = problem.factory.model.unit("Counter")
    mutants = MutantSet(problem.factory.model.source, str(path), unit, "counters", timeout=0.2)
    kept = MutationAnalysis(mutants).select(test, observed, time.monotonic() + 10)
    assert any(o.index == 2 and o.kind == "equals" and o.value == "3" for o in kept), kept
