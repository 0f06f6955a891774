"""Simple patterns: the edit distance is 0 exactly when the pattern matches; examples match."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from miogen.analysis.patterns import distance, examples, shape_of

SIMPLE = [
    r"[A-Z]{2}\d{4}",
    r"\d{5}$",
    r"^(mr|ms)\.? \w+$",
    r"(\d+)(\.\d+)?",
    r"a(b(c)?)?",
    r"[^aeiou]+x",
    r"(?i)abc",
    r"\s*(?:#.*)?$",
    r"a.c|d",
]
MODES = {"match": re.match, "fullmatch": re.fullmatch, "search": re.search}


def test_the_simple_patterns_are_recognised_and_the_others_are_not():
    assert all(shape_of(p) is not None for p in SIMPLE)
    assert all(shape_of(p) is None for p in [r"(ab)+", r"(x)\1", r"a(?=b)", "[", r"\bword"])


def test_examples_match_their_pattern():
    for pattern in SIMPLE:
        shape = shape_of(pattern)
        for example in examples(shape, random.Random(1), 3):
            assert re.fullmatch(pattern, example.rstrip("\n")) or re.match(pattern, example)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(SIMPLE),
    st.text(alphabet="aAbBcx09 .#\n-", max_size=8),
    st.sampled_from(sorted(MODES)),
)
def test_distance_is_zero_exactly_when_the_pattern_matches(pattern, text, mode):
    measured = distance(shape_of(pattern), text, mode)
    matched = MODES[mode](pattern, text) is not None
    if measured == 0:
        assert matched
    # `$` also matches before a final newline: the only way to match at a distance above 0.
    if matched and not text.endswith("\n"):
        assert measured == 0


def test_closer_strings_are_nearer():
    shape = shape_of(r"[A-Z]{2}-\d{3}")
    ladder = ["", "a", "AB", "AB-", "AB-1", "AB-12", "AB-123"]
    measured = [distance(shape, text, "fullmatch") for text in ladder]
    assert measured == sorted(measured, reverse=True) and measured[-1] == 0
