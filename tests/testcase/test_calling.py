"""Calls are written as the project's code would write them: required parameters by position,
optional ones by keyword unless equal to their default, plain values of the annotated type."""

from __future__ import annotations

import random

from miogen.analysis.module import analyze_source
from miogen.emit.render import render_test
from miogen.testcase.calling import as_written, mistyped, off_type
from miogen.testcase.model import Statement
from miogen.testcase.mutation import _change_value
from miogen.testcase.sampling import TestFactory

MODULE = """
from typing import Any, Optional


class Stack:
    def __init__(self, capacity: int, strict: bool = False, *, label: str = "") -> None:
        self.capacity = capacity

    def push(self, item: int, /, times: int = 1) -> None:
        pass

    def limit(self, count: int) -> int:
        if not isinstance(count, int):
            raise TypeError("count")
        return count


def parse(__text: str, __base: int, strict: bool = False) -> int:
    return 0


def is_word(text: Any) -> bool:
    \"\"\"Whether the text is a word.

    :param text: the text to check
    :type text: str
    \"\"\"
    return text.isalpha()


class Store:
    def __init__(self, maxsize: Optional[int] = None) -> None:
        self.maxsize = maxsize
"""


def factory(unit: str = "Stack") -> TestFactory:
    model = analyze_source(MODULE, "stack.py", "stack")
    return TestFactory(model, model.unit(unit))


def source(test, unit: str = "Stack") -> str:
    f = factory(unit)
    text = render_test(as_written(test, f.signature), [], "test_x", {"Stack", "Store"}).source
    return text.split("\n", 1)[1]


def value(v: object) -> Statement:
    return Statement("value", value=v)


def test_required_parameters_go_by_position_optional_ones_by_keyword():
    test = (
        value(3), value(True), value("s"),
        Statement("construct", "Stack", (("capacity", 0), ("strict", 1), ("label", 2))),
    )  # fmt: skip
    assert source(test).strip() == 'Stack(3, strict=True, label="s")'


def test_a_boolean_goes_by_keyword_and_so_does_what_follows_it():
    """``Stack(capacity=True)``, not the boolean trap ``Stack(True)`` (ruff's FBT003)."""
    test = (
        value(True), value(3),
        Statement("construct", "Stack", (("capacity", 0), ("strict", 0))),
        Statement("method", "limit", (("count", 0),), receiver=2),
        Statement("method", "push", (("/item", 0), ("times", 1)), receiver=2),
    )  # fmt: skip
    assert source(test).split("\n")[:3] == [
        "    stack = Stack(capacity=True, strict=True)",
        "    stack.limit(count=True)",
        "    stack.push(True, times=3)",  # positional-only: by position all the same
    ]


def test_keywords_equal_to_their_defaults_are_left_out():
    test = (
        value(3), value(False), value(""), value(1), value(0),
        Statement("construct", "Stack", (("capacity", 0), ("strict", 1), ("label", 2))),
        Statement("method", "push", (("/item", 4), ("times", 3)), receiver=5),  # times=1
        Statement("construct", "Stack", (("capacity", 0), ("strict", 4))),  # 0 is not False
    )  # fmt: skip
    assert source(test).split() == [
        "stack", "=", "Stack(3)", "stack.push(0)", "Stack(3,", "strict=0)",
    ]  # fmt: skip


def test_positional_only_parameters_never_go_by_keyword():
    model = analyze_source(MODULE, "stack.py", "stack")
    assert [p.name for p in model.functions["parse"].params] == ["/__text", "/__base", "strict"]
    args = (("/__text", 0), ("/__base", 1), ("strict", 2))
    test = (value("1.2"), value(16), value(True), Statement("call", "parse", args))
    assert source(test, "parse").strip() == 'parse("1.2", 16, strict=True)'


def test_a_value_of_another_type_is_marked_for_type_checkers():
    f = factory()
    test = (
        value(3), Statement("construct", "Stack", (("capacity", 0),)),
        value(None), Statement("method", "limit", (("count", 2),), receiver=1),
        value(True), Statement("method", "limit", (("count", 4),), receiver=1),
    )  # fmt: skip
    assert mistyped(test, f.signature) == {3: "arg-type"}
    rendered = render_test(as_written(test, f.signature), [], "t", {"Stack"}, {3}).source
    assert "stack.limit(None)  # type: ignore[arg-type]" in rendered
    assert "stack.limit(count=True)\n" in rendered  # a bool is an int to type checkers


RULES = """
from typing import Union


class Rule:
    pass


AnyRule = Union["Style", Rule]


class Style(str):
    def __new__(cls, *rules: AnyRule, value: str = "") -> "Style":
        for rule in rules:
            if not isinstance(rule, (Style, Rule)):
                raise ValueError("rules must be rules")
        return str.__new__(cls, value)
"""


def test_an_element_of_annotated_varargs_of_another_type_is_marked():
    """``Style(None)`` for ``*rules: AnyRule`` (a module alias of a union): the code raises on
    it on purpose, and mypy holds each element to the annotation (sty.primitive's arg-type)."""
    model = analyze_source(RULES, "styles.py", "styles")
    f = TestFactory(model, model.unit("Style"))
    test = (value(None), Statement("construct", "Style", (("*rules", 0),)))
    assert mistyped(test, f.signature) == {1: "arg-type"}
    rendered = render_test(as_written(test, f.signature), [], "t", {"Style"}, {1}).source
    assert "Style(None)  # type: ignore[arg-type]" in rendered


def test_a_parameter_annotated_any_takes_every_value():
    """``is_word(0)`` for ``text: Any`` type-checks: marking it would be an unused ignore,
    though the type inferred for ``text`` (from the docstring) is str."""
    f = factory("is_word")
    test = (value(0), Statement("call", "is_word", (("text", 0),)))
    [parameter] = f.signature(test[1]).params
    assert parameter.type.kind in ("str", "union")  # inferred
    assert mistyped(test, f.signature) == {}


def test_a_builtins_own_parameter_types_hold_for_special_methods():
    """``round(stack, 1.5)`` calls ``Stack.__round__``, but mypy checks round's ``ndigits``
    (an int or None: call-overload, round is overloaded); ``format``'s spec is a str."""
    f = factory()
    test = (
        value(3), Statement("construct", "Stack", (("capacity", 0),)),
        value(1.5), Statement("operator", "__round__", (("ndigits", 2),), receiver=1),
        Statement("operator", "__round__", (("ndigits", 0),), receiver=1),
        Statement("operator", "__round__", (("ndigits", 1),), receiver=1),
        Statement("operator", "__format__", (("spec", 0),), receiver=1),
        value(""), Statement("operator", "__format__", (("spec", 7),), receiver=1),
    )  # fmt: skip
    assert mistyped(test, f.signature) == {3: "call-overload", 5: "call-overload", 6: "arg-type"}
    rendered = render_test(test, [], "t", {"Stack"}, mistyped(test, f.signature)).source
    assert "round(stack, 1.5)  # type: ignore[call-overload]" in rendered
    assert "round(stack, 3)\n" in rendered


def test_a_collection_passed_for_a_plain_type_is_marked_too():
    """``stack.limit([])`` for ``count: int``: the code checks the type, mypy refuses the list."""
    f = factory()
    test = (
        value(3), Statement("construct", "Stack", (("capacity", 0),)),
        Statement("list", "", ()), Statement("method", "limit", (("count", 2),), receiver=1),
        Statement("method", "push", (("/item", 2),), receiver=1),  # item: int, positional-only
    )  # fmt: skip
    assert mistyped(test, f.signature) == {3: "arg-type", 4: "arg-type"}
    wrong = mistyped(test, f.signature)
    rendered = render_test(as_written(test, f.signature), [], "t", {"Stack"}, wrong).source
    assert "stack.limit(list_)  # type: ignore[arg-type]" in rendered  # one list, used twice
    assert "stack.push(list_)  # type: ignore[arg-type]" in rendered


def test_an_object_passed_for_a_plain_type_is_marked_too():
    f = factory()
    test = (
        value(3), Statement("construct", "Stack", (("capacity", 0),)),
        Statement("method", "limit", (("count", 1),), receiver=1),  # limit(count: int)
        Statement("construct", "Stack", (("capacity", 0),)),
        Statement("method", "push", (("/item", 0),), receiver=3),
    )  # fmt: skip
    assert mistyped(test, f.signature) == {2: "arg-type"}
    rendered = render_test(as_written(test, f.signature), [], "t", {"Stack"}, {2}).source
    assert "stack.limit(stack)  # type: ignore[arg-type]" in rendered


def test_a_none_for_an_optional_int_changes_into_an_int():
    f = factory("Store")
    test = (value(None), Statement("construct", "Store", (("maxsize", 0),)))
    rng = random.Random(0)
    changed = {type(_change_value(f, test, rng)[0].value) for _ in range(50)}  # type: ignore[index]
    assert changed == {int}


INFERRED = """
class Box:
    pass


def seeded(n, seed=None):
    return [seed] * n


def anything(value):
    return value
"""


def off(unit: str, *arguments: tuple[str, Statement]) -> bool:
    """Whether ``unit(...)`` of INFERRED passes a value of a type the project does not mean."""
    model = analyze_source(INFERRED, "inferred.py", "inferred")
    f = TestFactory(model, model.unit(unit))
    test = (
        *(argument for _, argument in arguments),
        Statement("call", unit, tuple((name, i) for i, (name, _) in enumerate(arguments))),
    )
    signature = f.signature(test[-1])
    assert signature is not None
    return off_type(test[-1], test, signature)


def test_off_type_judges_by_the_inferred_types_that_are_named():
    assert off("seeded", ("n", value(2)), ("seed", Statement("construct", "Box")))
    assert off("seeded", ("n", value("two")))  # counted with: an int or a float
    assert not off("seeded", ("n", value(2.0)), ("seed", value(None)))


def test_off_type_judges_only_objects_of_the_module_where_only_the_default_names_a_type():
    """``seed=None``: an optional something; a string or a list may be what it means (the
    encoding of ``encode(text, charset=None)``), an object of the module's classes nothing says."""
    assert off("seeded", ("n", value(2)), ("seed", Statement("construct", "Box")))
    assert not off("seeded", ("n", value(2)), ("seed", value("text")))
    assert not off("seeded", ("n", value(2)), ("seed", Statement("list")))


def test_off_type_leaves_a_parameter_whose_inference_names_nothing_alone():
    assert not off("anything", ("value", Statement("construct", "Box")))
    assert not off("anything", ("value", value("text")))


def test_off_type_finds_positional_only_parameters_by_their_annotation():
    f = factory()
    test = (
        value(0), Statement("construct", "Stack", (("capacity", 0),)), value("a"),
        Statement("method", "push", (("/item", 2),), receiver=1),
    )  # fmt: skip
    signature = f.signature(test[-1])
    assert signature is not None and off_type(test[-1], test, signature)
