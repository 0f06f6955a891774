"""An empty collection a test keeps in a variable is annotated, so that mypy (strict, as the
bench runs it) knows its type: the parameter's where the signature says one, ``Any`` else."""

from __future__ import annotations

from pathlib import Path

from emit.strict_checks import strict_mypy, strict_ruff
from miogen.analysis.module import analyze_source
from miogen.analysis.typespec import TypeSpec
from miogen.assertions.select import without_command_results
from miogen.emit.annotations import annotation, empty_collection_types
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.render import Observation, render_test
from miogen.emit.style import Style
from miogen.testcase.model import Statement
from miogen.testcase.sampling import TestFactory

SUBJECT = """
from typing import Optional, Sequence


def total(values: Sequence[int]) -> int:
    return sum(values)


def merged(first: dict[str, float], second: Optional[dict[str, float]] = None) -> int:
    return len(first) + len(second or {})


def rows(table: list[list[str]]) -> int:
    return len(table)


def loose(items):
    return len(items)
"""


def rendered_file(tmp_path: Path, test: tuple[Statement, ...], observations) -> Path:
    model = analyze_source(SUBJECT, "subject.py", "subject")
    factory = TestFactory(model, model.unit("total"))
    rendered = render_test(test, observations, "test_it", set(), {}, factory.signature)
    (tmp_path / "subject.py").write_text(SUBJECT)
    imports = sorted(rendered.extra_imports) + [
        f"from subject import {', '.join(sorted(rendered.imports))}"
    ]
    text = merge_tests(None, imports, [GeneratedTest("test_it", rendered.source)], style=Style())
    path = tmp_path / "test_subject.py"
    path.write_text(text.text)
    return path


def test_empty_collections_passed_twice_get_their_parameter_s_type(tmp_path: Path):
    test = (
        Statement("list"),
        Statement("call", "total", (("values", 0),)),
        Statement("call", "total", (("values", 0),)),
        Statement("dict"),
        Statement("call", "merged", (("first", 3), ("second", 3))),
        Statement("set"),
        Statement("call", "loose", (("items", 5),)),
        Statement("call", "loose", (("items", 5),)),
        Statement("list"),
        Statement("list", args=(("", 8), ("", 8))),
        Statement("call", "rows", (("table", 9),)),
    )
    path = rendered_file(tmp_path, test, [Observation(10, "equals", "2")])
    source = path.read_text()
    assert "list_: list[int] = []" in source
    assert "dict_: dict[str, float] = {}" in source
    assert "set_: set[Any] = set()" in source
    assert "list_2: list[str] = []" in source
    assert strict_mypy(path) == []
    assert strict_ruff(path) == []


def test_annotations_in_plain_types():
    assert annotation(
        TypeSpec("list", (TypeSpec("union", (TypeSpec("int"), TypeSpec("none"))),))
    ) == ("list[int | None]")
    assert annotation(TypeSpec("dict")) == "dict[Any, Any]"
    assert annotation(TypeSpec("set", (TypeSpec("class", name="Point"),))) == "set[Any]"


def test_without_signatures_every_empty_collection_is_of_any():
    test = (Statement("list"), Statement("call", "f", (("x", 0),)))
    assert empty_collection_types(test, None) == {0: "list[Any]"}


COMMANDS = """
def reset(values: list[int]) -> None:
    values.clear()


def find(values: list[int]):
    return None
"""


def test_a_call_declared_to_return_none_gets_no_is_none_check():
    model = analyze_source(COMMANDS, "commands.py", "commands")
    factory = TestFactory(model, model.unit("reset"))
    test = (
        Statement("list"),
        Statement("call", "reset", (("values", 0),)),
        Statement("call", "find", (("values", 0),)),
    )
    observed = [Observation(1, "is_none"), Observation(2, "is_none")]
    observations = without_command_results(test, observed, factory.signature)  # as chosen
    source = render_test(test, observations, "test_it", set(), {}, factory.signature).source
    assert "assert reset(" not in source and "reset(" in source, source  # mypy: func-returns-value
    assert "assert find(" in source and "is None" in source, source  # not declared: checked


GENERIC = """
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def take(n: int, iterable: Iterable[T]) -> Iterator[T]:
    return iter(list(iterable)[:n])


def size(items: Iterator[object]) -> int:
    return len(list(items))


class Box:
    def __init__(self, items: Iterable[T]) -> None:
        self.items = list(items)

    def count(self) -> int:
        return len(self.items)
"""


def test_an_empty_collection_a_generic_call_keeps_a_result_of_is_annotated(tmp_path: Path):
    """``result = take(0, [])``: mypy cannot tell what ``result`` yields ("Need type
    annotation"); the empty list gets its parameter's name and type. A constructor's result
    is of its class, whatever it is given: ``Box([])`` stays as it is."""
    model = analyze_source(GENERIC, "generic.py", "generic")
    factory = TestFactory(model, model.unit("take"))
    test = (
        Statement("value", value=0),
        Statement("list"),
        Statement("call", "take", (("n", 0), ("iterable", 1))),
        Statement("call", "size", (("items", 2),)),
        Statement("list"),
        Statement("construct", "Box", (("items", 4),)),
        Statement("method", "count", (), receiver=5),
    )
    observations = [Observation(3, "equals", "0"), Observation(6, "equals", "0")]
    rendered = render_test(test, observations, "test_it", set(), {}, factory.signature)
    (tmp_path / "generic.py").write_text(GENERIC)
    imports = sorted(rendered.extra_imports) + [
        f"from generic import {', '.join(sorted(rendered.imports))}"
    ]
    text = merge_tests(None, imports, [GeneratedTest("test_it", rendered.source)], style=Style())
    path = tmp_path / "test_generic.py"
    path.write_text(text.text)
    assert "iterable: list[Any] = []" in text.text
    assert "result = take(n=0, iterable=iterable)" in text.text
    assert "box = Box(items=[])" in text.text
    assert strict_mypy(path) == []
    assert strict_ruff(path) == []


GENERIC_CLASS = """
from typing import Generic, Iterable, Sequence, TypeVar

T = TypeVar("T")


class Lazy(Generic[T], Sequence[T]):
    def __init__(self, iterable: Iterable[T]) -> None:
        self.items = list(iterable)

    def __getitem__(self, index):
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)


class Eager(Lazy[T]):
    pass
"""


def test_an_empty_collection_a_generic_class_is_built_from_is_annotated(tmp_path: Path):
    """``lazy = Lazy([])`` of a class generic in ``T``: mypy cannot infer ``T`` from an empty
    list ("Need type annotation for lazy"); the list is named and typed as its parameter,
    for a subclass of the module's generic class as well."""
    model = analyze_source(GENERIC_CLASS, "lazy.py", "lazy")
    assert model.classes["Lazy"].generic and model.classes["Eager"].generic
    factory = TestFactory(model, model.unit("Lazy"))
    generic = {n for n, c in model.classes.items() if c.generic}
    test = (
        Statement("list"),
        Statement("construct", "Lazy", (("iterable", 0),)),
        Statement("list"),
        Statement("construct", "Eager", (("iterable", 2),)),
    )
    observations = [
        Observation(1, "attribute", "[]", "items"),
        Observation(3, "attribute", "[]", "items"),
    ]
    rendered = render_test(test, observations, "test_it", set(), {}, factory.signature, generic)
    (tmp_path / "lazy.py").write_text(GENERIC_CLASS)
    imports = sorted(rendered.extra_imports) + [
        f"from lazy import {', '.join(sorted(rendered.imports))}"
    ]
    text = merge_tests(None, imports, [GeneratedTest("test_it", rendered.source)], style=Style())
    path = tmp_path / "test_lazy.py"
    path.write_text(text.text)
    assert "iterable: list[Any] = []" in text.text, text.text
    assert strict_mypy(path) == [], text.text
    assert strict_ruff(path) == []
