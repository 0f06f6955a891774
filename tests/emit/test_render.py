"""Rendering: every kind of value, statement and check render.py writes, and that it reads right."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest
from emit.test_merge import ruff
from hypothesis import given, settings
from hypothesis import strategies as st
from miogen.assertions.observation import literal
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.render import (
    Observation,
    match_pattern,
    pattern_literal,
    render_test,
    snake,
)
from miogen.emit.style import Style
from miogen.testcase.model import Statement

# --- values --------------------------------------------------------------------------------

LITERALS = [
    ("text", '"text"'),
    ("it's", '"it\'s"'),
    ('say "hi"', "'say \"hi\"'"),
    (b"raw", 'b"raw"'),
    (None, "None"),
    (True, "True"),
    (-7, "-7"),
    (2.5, "2.5"),
    (float("inf"), 'float("inf")'),
    (float("-inf"), '-float("inf")'),
    (1 + 2j, "(1+2j)"),
    ([1, "a"], '[1, "a"]'),
    ((), "()"),
    ((1,), "(1,)"),
    ((1, 2), "(1, 2)"),
    (set(), "set()"),
    ({2, 1}, "{1, 2}"),
    (frozenset(), "frozenset()"),
    (frozenset({1}), "frozenset({1})"),
    ({"k": [None]}, '{"k": [None]}'),
]


@pytest.mark.parametrize(("value", "text"), LITERALS, ids=[repr(v) for v, _ in LITERALS])
def test_each_kind_of_value_has_its_literal(value: object, text: str) -> None:
    assert literal(value) == text
    assert eval(text, {}) == value and type(eval(text, {})) is type(value)


def test_nan_and_values_without_a_stable_literal() -> None:
    assert literal(float("nan")) == 'float("nan")' and math.isnan(eval(literal(float("nan"))))
    assert literal(object()) is None
    assert literal([1, object()]) is None
    assert literal(list(range(21))) is None  # longer collections are not asserted literally
    assert literal("x" * 300) is None


plain = st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.binary(max_size=8)
values = st.recursive(
    plain | st.floats(allow_nan=False),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.frozensets(plain, max_size=3)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_a_literal_rebuilds_its_value(value: object) -> None:
    text = literal(value)
    if text is not None:
        rebuilt = eval(text, {})
        assert rebuilt == value and type(rebuilt) is type(value)
        assert literal(rebuilt) == text  # one value, one way of writing it


def test_snake_names_avoid_keywords_and_builtins() -> None:
    assert [snake(n) for n in ("PrettyPrinter", "HTTPServer", "list", "class", "")] == [
        "pretty_printer",
        "httpserver",
        "list_",
        "class_",
        "value",
    ]


# --- statements and checks -----------------------------------------------------------------


def value(v: object) -> Statement:
    return Statement("value", value=v)


def render(statements: list[Statement], observations: list[Observation] = ()) -> str:
    return render_test(tuple(statements), list(observations), "test_it", {"Stack"}).source


def body(statements: list[Statement], observations: list[Observation] = ()) -> list[str]:
    return [line.strip() for line in render(statements, observations).splitlines()[1:]]


STACK = Statement("construct", "Stack", (("capacity", 0),))


def test_statement_kinds() -> None:
    collections = [value(1), value("a"), Statement("list", args=(("", 0), ("", 1)))]
    assert body([*collections, Statement("call", "f", (("x", 2),))]) == ['f(x=[1, "a"])']
    tuple_ = Statement("tuple", args=(("", 0),))
    assert body([value(1), tuple_, Statement("call", "f", (("x", 1),))]) == ["f(x=(1,))"]
    empty_set = Statement("set")
    assert body([empty_set, Statement("call", "f", (("x", 0),))]) == ["f(x=set())"]
    mapping = [value("k"), value(2), Statement("dict", args=(("", 0), ("", 1)))]
    assert body([*mapping, Statement("call", "f", (("x", 2),))]) == ['f(x={"k": 2})']
    enum = Statement("enum", "Color.RED")
    assert body([enum, Statement("call", "paint", (("color", 0),))]) == ["paint(color=Color.RED)"]
    method = [value(3), STACK, value(5), Statement("method", "push", (("item", 2),), receiver=1)]
    assert body(method) == ["stack = Stack(capacity=3)", "stack.push(item=5)"]


def test_a_shared_collection_gets_a_name_and_a_number_is_written_where_used() -> None:
    statements = [
        value(-104),
        Statement("list", args=(("", 0),)),
        Statement("call", "f", (("a", 1), ("b", 1), ("c", 0))),
    ]
    assert body(statements) == ["list_ = [-104]", "f(a=list_, b=list_, c=-104)"]


@pytest.mark.parametrize(
    ("observation", "line"),
    [
        (Observation(1, "equals", "3"), "assert f(x=2) == 3"),
        (Observation(1, "equals", "True"), "assert f(x=2) is True"),
        (Observation(1, "equals", "False"), "assert f(x=2) is False"),
        (Observation(1, "is_none"), "assert f(x=2) is None"),
        (Observation(1, "approx", "0.1"), "assert f(x=2) == pytest.approx(0.1)"),
        # a complex's repr is parenthesised: the call's own parentheses do (ruff UP034)
        (Observation(1, "approx", "(-1.5-2j)"), "assert f(x=2) == pytest.approx(-1.5-2j)"),
        (Observation(1, "approx", "(1.5, 2.0)"), "assert f(x=2) == pytest.approx((1.5, 2.0))"),
        (Observation(1, "nan"), "assert math.isnan(f(x=2))"),
        (Observation(1, "isinstance", "Stack", "Stack"), "assert isinstance(f(x=2), Stack)"),
        (Observation(1, "length", "4"), "assert len(f(x=2)) == 4"),
    ],
)
def test_each_check_on_a_value(observation: Observation, line: str) -> None:
    assert body([value(2), Statement("call", "f", (("x", 0),))], [observation]) == [line]


def test_checks_on_an_objects_state_come_last_and_use_is_for_singletons() -> None:
    observations = [
        Observation(1, "attribute", "True", "full"),
        Observation(1, "attribute", "None", "top"),
        Observation(1, "attribute", "[]", "items"),
    ]
    assert body([value(0), STACK], observations) == [
        "stack = Stack(capacity=0)",
        "assert stack.full is True",
        "assert stack.top is None",
        "assert stack.items == []",
    ]


def test_a_property_read_is_never_a_bare_expression() -> None:
    read = [value(0), STACK, Statement("property", "size", receiver=1)]
    assert body(read) == ["stack = Stack(capacity=0)", "_ = stack.size"]
    assert body(read, [Observation(2, "equals", "0")]) == [
        "stack = Stack(capacity=0)",
        "assert stack.size == 0",
    ]
    raising = body(read, [Observation(2, "raises", "KeyError", "", "'size'")])
    assert raising[-1] == "_ = stack.size"


def test_a_hash_is_checked_as_a_user_would_and_never_left_as_a_pointless_isinstance() -> None:
    """``__hash__`` runs as ``isinstance(hash(x), int)`` (string hashes vary between runs)."""
    hashed = [value(0), STACK, Statement("operator", "__hash__", receiver=1)]
    assert body(hashed) == ["stack = Stack(capacity=0)", "hash(stack)"]
    assert body(hashed, [Observation(2, "equals", "True")]) == [
        "stack = Stack(capacity=0)",
        "assert isinstance(hash(stack), int)",
    ]
    raising = body(hashed, [Observation(2, "raises", "TypeError", "", "unhashable")])
    assert raising[-1] == "hash(stack)"


@pytest.mark.parametrize(
    ("raises", "line", "imports"),
    [
        # CPython's words are not matched; ruff's PT011 wants a match for the broad classes
        (
            Observation(1, "raises", "ValueError"),
            "with pytest.raises(ValueError):  # noqa: PT011",
            set(),
        ),
        (Observation(1, "raises", "TypeError"), "with pytest.raises(TypeError):", set()),
        (
            Observation(1, "raises", "ValueError", "", "bad value (got 3)"),
            'with pytest.raises(ValueError, match=r"bad value \\(got 3\\)"):',
            set(),
        ),
        (
            Observation(1, "raises", "ValueError", "", ""),
            'with pytest.raises(ValueError, match="^$"):',
            set(),
        ),
        (
            Observation(1, "raises", "FullError", "stacks", "full"),
            'with pytest.raises(FullError, match="full"):',
            {"FullError"},
        ),
        (
            Observation(1, "raises", "JSONDecodeError", "json:JSONDecodeError", "Expecting value"),
            'with pytest.raises(JSONDecodeError, match="Expecting value"):',
            {"from json import JSONDecodeError"},
        ),
    ],
)
def test_raises_with_the_message_and_the_class_imported(
    raises: Observation, line: str, imports: set[str]
) -> None:
    rendered = render_test((value(2), Statement("call", "f", (("x", 0),))), [raises], "t", set())
    assert rendered.source.splitlines()[1:] == [f"    {line}", "        f(x=2)"]
    assert imports <= rendered.imports | rendered.extra_imports
    assert "import pytest" in rendered.extra_imports


def test_match_patterns_find_the_message() -> None:
    import re

    for message in ["a (b) [c] {d} e.f*g+h?i|j^k$l\\m", "x" * 90, "first line\nsecond", "  ", ""]:
        pattern = match_pattern(message)
        assert re.search(pattern, message), (message, pattern)
        assert eval(pattern_literal(message)) == pattern
    assert match_pattern("x" * 90) == "x" * 60


def test_rendered_tests_pass_the_linters(tmp_path: Path) -> None:
    cases = [
        ([value(2), Statement("call", "f", (("x", 0),))], [Observation(1, "equals", "True")]),
        ([value(0), STACK, Statement("property", "size", receiver=1)], []),
        ([value(0), STACK], [Observation(1, "attribute", "None", "top")]),
        (
            [value(2), Statement("call", "f", (("x", 0),))],
            [Observation(1, "raises", "ValueError", "", "bad (1)")],
        ),
        ([value(2), Statement("call", "f", (("x", 0),))], [Observation(1, "nan")]),
    ]
    tests, imports = [], {"from stacks import Stack, f"}
    for number, (statements, observations) in enumerate(cases):
        rendered = render_test(tuple(statements), observations, f"test_{number}", {"Stack"})
        tests.append(GeneratedTest(rendered.name, rendered.source))
        imports |= rendered.extra_imports
    style = Style(first_party=frozenset({"stacks"}))
    path = tmp_path / "test_rendered.py"
    path.write_text(merge_tests(None, sorted(imports), tests, style=style).text)
    check = subprocess.run(
        [ruff(), "check", "--isolated", "--select", "E,F,I,PT,B,UP,SIM", "--config",
         'lint.isort.known-first-party=["stacks"]', str(path)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout
