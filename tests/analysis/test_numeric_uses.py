"""Untyped parameters without default that the body uses as numbers."""

from __future__ import annotations

import collections.abc
import typing

from miogen.analysis.numeric_uses import numeric_uses, whole_number_uses

SOURCE = """
NAMES = ["Monday", "Tuesday"]


class Week:
    def format_weekday(self, day, width):
        if width >= 9:
            return NAMES[day]
        return NAMES[day][:width]

    def label(self, text, flag, count: int, size=3):
        if flag is True or flag == False:
            return "%s" % text
        return text.upper() if size == 1 else count + size


def first_week(year, month, *, steps):
    for offset in range(steps):
        year = -month
    return year == 0


def nested(value):
    def inner(value):
        return value + 1

    return inner
"""


def test_comparisons_indexes_slices_arithmetic_and_range_are_numeric_uses():
    found = numeric_uses(SOURCE)
    assert found == {
        (6, "format_weekday"): frozenset({"day", "width"}),
        (17, "first_week"): frozenset({"month", "steps", "year"}),
        (24, "inner"): frozenset({"value"}),
    }


def test_flags_typed_defaulted_formatted_and_nested_names_are_not():
    """``label``: ``flag`` is compared with bools, ``count`` is typed, ``size`` has a default,
    ``text`` is formatted by ``%``; ``nested``'s ``value`` is used only by ``inner``'s own."""
    found = numeric_uses(SOURCE)
    assert (10, "label") not in found
    assert (23, "nested") not in found
    assert found[(24, "inner")] == frozenset({"value"})
    assert numeric_uses("def broken(:\n") == {}


LEAP = """
def leapdays(y1, y2, label):
    y1 -= 1
    y2 -= 1
    return (y2 // 4 - y1 // 4) + len("%d" % label)


def scaled(x, rows, start):
    x *= 2
    return [rows[start:] for _ in range(x)], x / 3
"""


def test_floor_division_modulo_indexes_and_range_are_whole_number_uses():
    """``y2 // 4`` takes a whole number (a float there is floored), ``x / 3`` any number;
    an augmented assignment is a use too; a text formatted by ``%`` is not."""
    assert whole_number_uses(LEAP) == {
        (2, "leapdays"): frozenset({"y1", "y2"}),
        (8, "scaled"): frozenset({"x", "start"}),
    }
    assert numeric_uses(LEAP)[(2, "leapdays")] == frozenset({"y1", "y2"})
    assert numeric_uses("def shift(y):\n    y -= 1\n    return y\n") == {
        (1, "shift"): frozenset({"y"})
    }


FORWARDING = """
class Text:
    def weekday(self, day, width):
        return NAMES[day][:width]


class Localized(Text):
    def weekday(self, day, width):
        with LOCALE:
            return super().weekday(day, width=width)


class Spanish(Localized):
    def weekday(self, day, width):
        if width is True:
            return ""
        return super().weekday(day, width)
"""


def test_a_parameter_passed_on_to_the_overridden_method_takes_what_that_one_does():
    """``Localized.weekday`` only forwards ``day`` and ``width`` to ``super()``, whose body
    indexes and slices with them (issue 24, ``LocaleTextCalendar().formatweekday(day=True)``);
    ``Spanish`` forwards to ``Localized`` in turn, but compares ``width`` with ``True``."""
    both = frozenset({"day", "width"})
    assert numeric_uses(FORWARDING) == {
        (3, "weekday"): both, (8, "weekday"): both, (14, "weekday"): frozenset({"day"}),
    }  # fmt: skip
    assert whole_number_uses(FORWARDING)[(8, "weekday")] == both


def test_the_cached_uses_are_typed_read_only():
    """Both readers are cached per source and every unit's factory shares their answer: typed
    as a Mapping, so that mypy stops a caller that would change what the other units read."""
    for reader in (numeric_uses, whole_number_uses):
        answer = typing.get_type_hints(reader.__wrapped__)["return"]
        assert typing.get_origin(answer) is collections.abc.Mapping, answer
