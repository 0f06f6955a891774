"""An overloaded callable whose implementation takes ``*args`` is called as its ``@overload``
stubs say (analysis.overloads)."""

from __future__ import annotations

from emit.strict_checks import strict_mypy
from miogen.analysis.module import analyze_source
from miogen.emit.render import render_test
from miogen.testcase import callables
from miogen.testcase.calling import mistyped
from miogen.testcase.model import Statement
from miogen.testcase.sampling import TestFactory

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


SPLIT = """
from typing import Callable, Iterable, Iterator, TypeVar, overload

A = TypeVar("A")


@overload
def split(items: Iterable[A], keep: bool = False, *, key: Callable[[A], bool]) -> Iterator[list[A]]: ...
@overload
def split(items: Iterable[A], keep: bool = False, *, sep: A) -> Iterator[list[A]]: ...
def split(items, keep=False, *, key=None, sep=None):
    if (key is None) == (sep is None):
        raise ValueError("Exactly one of `key` and `sep` should be given")
    yield list(items)
"""


def test_keyword_only_parameters_take_their_stubs_types_and_sets(tmp_path) -> None:
    """``split(items, *, key=None, sep=None)`` after stubs requiring ``key`` or ``sep``: each
    takes its stub's type (``key`` a ``Callable[[A], bool]``: no identity lambda fits), and a
    call passing neither (the code raises on it on purpose) or both is written with
    ``# type: ignore[call-overload]``, the one error mypy gives it."""
    model = analyze_source(SPLIT, "splits.py", "splits")
    split = model.functions["split"]
    key = next(p for p in split.params if p.name == "key")
    assert key.annotated and key.type.kind == "callable"
    assert "lambda x: x" not in callables.choices(key.type)
    assert set(split.overload_keywords) == {frozenset({"key"}), frozenset({"sep"})}
    factory = TestFactory(model, model.unit("split"))
    neither = (Statement("list"), Statement("call", "split", (("items", 0),)))
    both = (
        Statement("list"),
        Statement("callable", "bool", value="builtin"),
        Statement("value", value=0),
        Statement("call", "split", (("items", 0), ("key", 1), ("sep", 2))),
    )
    one = (
        Statement("list"),
        Statement("value", value=0),
        Statement("call", "split", (("items", 0), ("sep", 1))),
    )
    assert mistyped(neither, factory.signature) == {1: "call-overload"}
    assert mistyped(both, factory.signature) == {3: "call-overload"}
    assert mistyped(one, factory.signature) == {}
    bodies = [
        render_test(t, [], f"test_{n}", set(), mistyped(t, factory.signature)).source
        for n, t in (("neither", neither), ("both", both), ("one", one))
    ]
    (tmp_path / "splits.py").write_text(SPLIT)
    test_file = tmp_path / "test_splits.py"
    test_file.write_text("from splits import split\n\n\n" + "\n\n".join(bodies))
    assert "# type: ignore[call-overload]" in bodies[0], bodies[0]
    assert strict_mypy(test_file) == [], test_file.read_text()
