"""A decorated function is called as its decorator's type says (analysis.decorated)."""

from __future__ import annotations

from miogen.analysis.module import analyze_source

REGISTERED = """
import datetime
from typing import Callable, Optional

Rate = Callable[[datetime.date, datetime.date, Optional[float]], float]


def register(name: str) -> Callable[[Rate], Rate]:
    def keep(func: Rate) -> Rate:
        return func
    return keep


def plain(func: Rate) -> "Rate":
    return func


def same(func):
    return func


@register("act")
def actual(start: datetime.date, end: datetime.date, freq: Optional[float] = None) -> float:
    return float((end - start).days) / (freq or 365.0)


@plain
def thirty(start: datetime.date, end: datetime.date, freq: Optional[float] = None) -> float:
    return 30.0


@same
def kept(start: datetime.date, end: datetime.date, freq: Optional[float] = None) -> float:
    return 1.0
"""


def _params(name: str) -> list[tuple[str, bool]]:
    model = analyze_source(REGISTERED)
    return [(p.name, p.has_default) for p in model.functions[name].params]


def test_a_decorator_factory_giving_a_callable_makes_every_parameter_positional_and_given() -> None:
    assert _params("actual") == [("/start", False), ("/end", False), ("/freq", False)]


def test_a_plain_decorator_giving_a_callable_through_a_string_alias_does_too() -> None:
    assert _params("thirty") == [("/start", False), ("/end", False), ("/freq", False)]


def test_an_untyped_decorator_leaves_the_signature_as_written() -> None:
    assert _params("kept") == [("start", False), ("end", False), ("freq", True)]
