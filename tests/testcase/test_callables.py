"""Functions passed for a parameter annotated ``Callable[...]`` type-check there, and the
catalogue's lambdas pass ruff: every text ``callables.choices`` offers for an annotation is
written into a call and checked by mypy and ruff under the bench's strict configuration."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from emit.strict_checks import strict_mypy, strict_ruff
from miogen.analysis.module import analyze_source
from miogen.analysis.typespec import TypeSpec
from miogen.testcase import callables
from miogen.testcase.model import Statement
from miogen.testcase.mutation import _change_callable
from miogen.testcase.sampling import TestFactory

SUBJECT = """
from typing import Callable, Optional, Union


def format_with(text: Union[str, Callable[[float], str]]) -> str:
    return text if isinstance(text, str) else text(1.5)


def report(logger: Optional[Callable[[str], None]]) -> None:
    if logger:
        logger("done")


def combine(f: Callable[[int, int], int]) -> int:
    return f(1, 2)


def describe(f: Callable[..., str]) -> str:
    return f(1)


def check(f: Callable[[str], bool]) -> bool:
    return f("a")


def measure(f: Callable[[str], float]) -> float:
    return f("ab")


def build(f: Callable[[], list[int]]) -> list[int]:
    return f()


def anything(f: Callable[[int], object]) -> object:
    return f(1)


def untyped(f):
    return f(1)


def shout(word: float) -> str:
    return str(word).upper()


def count(word: str) -> int:
    return len(word)
"""
TAKERS = ("format_with", "report", "combine", "describe", "check", "measure", "build", "anything")


def callable_spec(model, function: str) -> TypeSpec:
    spec = model.functions[function].params[0].type
    members = spec.args if spec.kind == "union" else (spec,)
    return next(m for m in members if m.kind == "callable")


def test_the_annotation_s_result_type_is_read():
    model = analyze_source(SUBJECT, "subject.py", "subject")
    assert callable_spec(model, "format_with") == TypeSpec(
        "callable", (TypeSpec("float"),), returns=TypeSpec("str")
    )
    assert callable_spec(model, "report").returns == TypeSpec("none")
    assert callable_spec(model, "describe") == TypeSpec(
        "callable", variadic=True, returns=TypeSpec("str")
    )


def test_every_offered_function_type_checks_and_passes_ruff(tmp_path: Path):
    model = analyze_source(SUBJECT, "subject.py", "subject")
    (tmp_path / "subject.py").write_text(SUBJECT)
    lines, offered = [], {}
    for function in TAKERS:
        offered[function] = callables.choices(callable_spec(model, function))
        lines += [f"    subject.{function}({text})" for text in offered[function]]
    test_file = tmp_path / "test_subject.py"
    test_file.write_text("import subject\n\n\ndef test_calls():\n" + "\n".join(lines) + "\n")
    assert strict_mypy(test_file) == []
    assert strict_ruff(test_file) == []
    # Not only lambdas that drop what they get: each annotation keeps functions to tell apart.
    assert offered["format_with"] == ("str",)
    assert offered["report"] == ("lambda _: None",)
    assert {"max", "min", "lambda a, b: a + b", "lambda a, _: a"} <= set(offered["combine"])
    assert "len" in offered["measure"] and "str.upper" not in offered["measure"]
    assert {"abs", "lambda x: x", "lambda x: x > 0"} <= set(offered["anything"])
    assert "len" not in offered["anything"]  # an int has no length


def test_an_unannotated_parameter_still_gets_any_function():
    model = analyze_source(SUBJECT, "subject.py", "subject")
    spec = model.functions["untyped"].params[0].type
    if spec.kind == "callable":  # inferred from ``f(1)``: nothing said of the types
        assert set(callables.choices(spec)) == set(callables.CATALOGUE[1])


def test_the_catalogue_s_every_lambda_passes_ruff(tmp_path: Path):
    groups = (*callables.CATALOGUE.values(), callables.ANY_ARITY, callables.RETURNING)
    texts = [t for group in groups for t in group]
    test_file = tmp_path / "test_lambdas.py"
    body = "\n".join(f"    functions.append({text})" for text in texts)
    test_file.write_text(f"def test_lambdas():\n    functions = []\n{body}\n    assert functions\n")
    assert [line for line in strict_ruff(test_file) if "ARG005" in line] == []


def test_sampling_and_mutation_pass_only_fitting_functions():
    model = analyze_source(SUBJECT, "subject.py", "subject")
    factory = TestFactory(model, model.unit("format_with"))
    spec = callable_spec(model, "format_with")
    rng = random.Random(3)
    passed = set()
    for _ in range(300):
        test = factory.sample(rng)
        passed |= {(s.name, s.value) for s in test if s.kind == "callable"}
    assert passed  # the union's callable member came up
    # ``shout`` takes a float and gives a str, ``untyped`` says nothing; ``count`` takes a str.
    assert passed <= {("str", "builtin"), ("shout", "module"), ("untyped", "module")}
    for _ in range(100):
        changed = _change_callable(
            factory, Statement("callable", "str", value="builtin"), rng, spec
        )
        assert changed.name == "str"
        changed = _change_callable(
            factory, Statement("callable", "shout", value="module"), rng, spec
        )
        assert changed.name in ("shout", "untyped")


@pytest.mark.parametrize(
    ("function", "fits"), [("shout", True), ("count", False)], ids=["shout", "count"]
)
def test_module_functions_fit_by_their_annotations(function: str, fits: bool):
    model = analyze_source(SUBJECT, "subject.py", "subject")
    spec = callable_spec(model, "format_with")
    assert callables.function_fits(model.functions[function], spec) is fits


TYPED_RESULTS = """
import datetime
import decimal
from typing import Callable


def rate(f: Callable[[datetime.date, datetime.date], decimal.Decimal]) -> decimal.Decimal:
    return f(datetime.date(2000, 1, 1), datetime.date(2001, 1, 1))


def ratio(f: Callable[[datetime.date, datetime.date, float], float]) -> float:
    return f(datetime.date(2000, 1, 1), datetime.date(2001, 1, 1), 0.5)


def days(start: datetime.date, end: datetime.date) -> decimal.Decimal:
    return decimal.Decimal((end - start).days)
"""


def test_a_result_no_catalogue_text_gives_gets_a_lambda_of_its_type(tmp_path: Path):
    model = analyze_source(TYPED_RESULTS, "subject.py", "subject")
    offered = callables.choices(callable_spec(model, "ratio"))
    # a bool and an int are floats to a type checker
    assert set(offered) == {"lambda *_args: 0", "lambda *_args: 0.0", "lambda *_args: False"}
    (tmp_path / "subject.py").write_text(TYPED_RESULTS)
    test_file = tmp_path / "test_subject.py"
    lines = "\n".join(f"    subject.ratio({text})" for text in offered)
    test_file.write_text(f"import subject\n\n\ndef test_calls():\n{lines}\n")
    assert strict_mypy(test_file) == []
    assert strict_ruff(test_file) == []


def test_a_module_function_is_passed_where_no_catalogue_text_fits():
    model = analyze_source(TYPED_RESULTS, "subject.py", "subject")
    spec = callable_spec(model, "rate")
    assert callables.fitting(spec) == ()
    factory = TestFactory(model, model.unit("rate"))
    rng = random.Random(5)
    passed = set()
    for _ in range(200):
        passed |= {(s.name, s.value) for s in factory.sample(rng) if s.kind == "callable"}
    assert passed == {("days", "module")}
    for _ in range(50):
        changed = _change_callable(
            factory, Statement("callable", "lambda *args: args", value="lambda"), rng, spec
        )
        assert (changed.name, changed.value) == ("days", "module")


def test_an_argument_of_unknown_type_is_not_returned_where_a_type_is_asked():
    generic = TypeSpec("callable", (TypeSpec("any"),), returns=TypeSpec("bool"))
    offered = callables.choices(generic)
    assert "lambda x: x" not in offered and "abs" not in offered
    assert {"bool", "lambda x: not x", "lambda x: x is None"} <= set(offered)


OVERLOADED = """
from typing import Callable, Generic, Iterable, Iterator, TypeVar, overload

T = TypeVar("T")
R = TypeVar("R")


class Mapped(Generic[R]):
    def __init__(self, func: Callable[[T], R], items: Iterable[T]) -> None:
        self.values = [func(item) for item in items]


@overload
def split(items: Iterable[T], *, sep: T) -> Iterator[list[T]]: ...
@overload
def split(items: Iterable[T], *, key: Callable[[T], bool]) -> Iterator[list[T]]: ...
def split(items, *, sep=None, key=None):
    yield list(items)


def double(value: int) -> int:
    return value * 2
"""


def test_an_overloaded_module_function_is_not_passed_as_a_callable(tmp_path: Path):
    """``Mapped(split, [0])``: mypy matches an overloaded function against no ``Callable[[T],
    R]`` ("incompatible type overloaded function"), so ``split`` is never offered; ``double``
    is, and type-checks there."""
    model = analyze_source(OVERLOADED, "subject.py", "subject")
    assert model.functions["split"].overloaded
    factory = TestFactory(model, model.unit("Mapped"))
    spec = factory.signature(Statement("construct", "Mapped")).params[0].type  # type: ignore[union-attr]
    assert not callables.function_fits(model.functions["split"], spec)
    assert callables.function_fits(model.functions["double"], spec)
    rng = random.Random(1)
    passed = set()
    for _ in range(300):
        passed |= {(s.name, s.value) for s in factory.sample(rng) if s.kind == "callable"}
    assert passed  # Mapped's func came up
    assert ("split", "module") not in passed
    (tmp_path / "subject.py").write_text(OVERLOADED)
    test_file = tmp_path / "test_subject.py"
    test_file.write_text(
        "import subject\n\n\ndef test_calls():\n"
        "    mapped = subject.Mapped(subject.double, [1])\n"
        "    assert mapped.values == [2]\n"
        "    split = subject.Mapped(subject.split, [1])\n"
        "    assert split.values\n"
    )
    errors = strict_mypy(test_file)
    assert errors and all(":7:" in error for error in errors), errors  # split's line only


FOLDS = """
from typing import Callable, Iterable, Iterator, TypeVar

A = TypeVar("A")
B = TypeVar("B")


def fold(func: Callable[[B, A], B], items: Iterable[A], initial: B) -> B:
    for item in items:
        initial = func(initial, item)
    return initial


def take(n: int, items: Iterable[A]) -> Iterator[A]:
    return iter(list(items)[:n])


def add(total: int, item: int) -> int:
    return total + item
"""


def test_a_fold_s_function_gives_what_it_takes_first(tmp_path: Path):
    """``fold(take, ...)`` for ``Callable[[B, A], B]``: the result goes back in as the first
    argument, so ``take`` (an int in, an iterator out) does not fit, ``add`` does."""
    model = analyze_source(FOLDS, "subject.py", "subject")
    spec = model.functions["fold"].params[0].type
    assert not callables.function_fits(model.functions["take"], spec)
    assert callables.function_fits(model.functions["add"], spec)
    (tmp_path / "subject.py").write_text(FOLDS)
    test_file = tmp_path / "test_subject.py"
    test_file.write_text(
        "import subject\n\n\ndef test_calls():\n"
        "    assert subject.fold(subject.add, [1], 0) == 1\n"
        "    assert subject.fold(subject.take, [1], 0)\n"
    )
    errors = strict_mypy(test_file)
    assert errors and all(":6:" in error for error in errors), errors  # take's line only


def test_a_callable_of_open_types_gets_a_function_taking_anything(tmp_path: Path):
    """``scan(func: Callable[[A, A], A], items: List[A])``: the items are drawn of any kind,
    and ``[0, ""]`` is a list of ``object`` to mypy, on which ``lambda a, b: a * b`` and
    ``min`` fail it (and ``0 * ""`` runs); ``lambda a, _: a`` takes anything."""
    model = analyze_source(FOLDS, "subject.py", "subject")
    spec = model.functions["fold"].params[0].type
    offered = callables.choices(spec)
    assert "lambda a, _: a" in offered
    assert not {"lambda a, b: a * b", "lambda a, b: a + b", "min", "max"} & set(offered)
    (tmp_path / "subject.py").write_text(FOLDS)
    test_file = tmp_path / "test_subject.py"
    test_file.write_text(
        "import subject\n\n\ndef test_calls():\n"
        '    assert subject.fold(lambda a, _: a, [0, ""], 0) == 0\n'
        '    assert subject.fold(lambda a, b: a * b, [0, ""], 0) == ""\n'
    )
    errors = strict_mypy(test_file)
    assert errors and all(":6:" in error for error in errors), errors  # a * b's line only
