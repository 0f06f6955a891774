"""An overloaded callable whose implementation takes ``*args`` is called as its ``@overload``
stubs say (analysis.overloads)."""

from __future__ import annotations

from miogen.analysis.module import analyze_source

OVERLOADED = """
from typing import Callable, Iterable, Iterator, TypeVar, overload

A = TypeVar("A")


@overload
def fold(func: Callable[[A, A], A], items: Iterable[A]) -> Iterator[A]: ...


@overload
def fold(func: Callable[[A, A], A], items: Iterable[A], initial: A) -> Iterator[A]: ...


def fold(func, items, *args):
    total = args[0] if args else None
    for item in items:
        total = item if total is None else func(total, item)
        yield total


class Span:
    @overload
    def __init__(self, stop: int): ...

    @overload
    def __init__(self, start: int, stop: int): ...

    def __init__(self, *args):
        self.start, self.stop = (0, args[0]) if len(args) == 1 else args

    def size(self) -> int:
        return self.stop - self.start


def plain(*args):
    return len(args)
"""


def _params(signature) -> list[tuple[str, str, bool]]:
    return [(p.name, p.type.kind, p.has_default) for p in signature.params]


def test_a_function_takes_the_longest_stub_s_parameters_by_position() -> None:
    model = analyze_source(OVERLOADED)
    assert _params(model.functions["fold"]) == [
        ("/func", "callable", False),
        ("/items", "list", False),
        ("/initial", "any", True),
    ]


def test_a_constructor_s_stubs_are_read_without_self() -> None:
    constructor = analyze_source(OVERLOADED).classes["Span"].constructor
    assert constructor is not None
    assert _params(constructor) == [("/start", "int", False), ("/stop", "int", True)]


def test_args_without_stubs_stay_as_written() -> None:
    assert [p.name for p in analyze_source(OVERLOADED).functions["plain"].params] == ["*args"]
