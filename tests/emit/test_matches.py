"""Match objects as inputs are written as a match of their pattern and an assert that it matched
(emit.matches): plain code that runs the same and that a type checker reads as ``re.Match``."""

from __future__ import annotations

import re

import pytest
from miogen.assertions.observation import Observation
from miogen.emit.matches import match_call, pattern_literal
from miogen.emit.render import module_imports, render_test
from miogen.testcase.model import Statement as S


def test_a_match_input_is_bound_checked_then_passed():
    first = re.fullmatch(r"(\d+)\.(\d+)", "3.14")
    second = re.fullmatch(r"(\s+[AP]M)", " PM", re.IGNORECASE)
    test = (
        S("value", value=first),
        S("value", value=second),
        S("call", "merge", (("m", 0), ("other", 1))),
    )
    rendered = render_test(test, [Observation(2, "equals", "3")], "test_merge", set())
    lines = [line.strip() for line in rendered.source.splitlines()]
    assert lines[1:6] == [
        r'match = re.fullmatch(r"(\d+)\.(\d+)", "3.14")',
        "assert match is not None",
        r'match_2 = re.fullmatch(r"(\s+[AP]M)", " PM", re.IGNORECASE)',
        "assert match_2 is not None",
        "assert merge(m=match, other=match_2) == 3",
    ]
    assert "import re" in module_imports(rendered.source)


def test_the_written_call_rebuilds_the_same_match():
    for pattern, text, flags in [
        (r"(\d+)\.(\d+)", "3.14", 0),
        ('say "(\\w+)"', 'say "hi"', 0),  # a quote: no raw string
        ("a\\\\", "a\\", 0),  # ends with a backslash pair
        ("line\\n(x)", "line\nx", re.M | re.S),
    ]:
        match = re.fullmatch(pattern, text, flags)
        assert match is not None
        rebuilt = eval(match_call(match), {"re": re})  # noqa: S307 - our own literal
        assert rebuilt is not None
        assert (rebuilt.re.pattern, rebuilt.re.flags, rebuilt.string) == (
            match.re.pattern,
            match.re.flags,
            match.string,
        )


@pytest.mark.parametrize(
    ("pattern", "written"),
    [
        (r"\d+", r'r"\d+"'),
        ("abc", '"abc"'),
        ('"\\w"', "'\"\\\\w\"'"),
        ("a\\", '"a\\\\"'),
        ("\\\n", '"\\\\\\n"'),
    ],
)
def test_patterns_are_raw_strings_where_they_can_be(pattern: str, written: str):
    assert pattern_literal(pattern) == written
    assert eval(written) == pattern  # noqa: S307
