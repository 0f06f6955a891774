"""Simple regular expressions as sequences of character classes: edit distances and examples.

A pattern is *simple* when, after expanding a few alternatives, it is a sequence of single
characters or character classes, each repeated between a minimum and a maximum number of times,
with ``^``/``$`` only at its ends: ``[A-Z]{2}\\d{4}``, ``^(mr|ms)\\.? \\w+$``, ``\\d+(\\.\\d*)?``.
Everything else (backreferences, lookarounds, repeated groups) is not simple, and callers fall
back to a plain truth distance. The distance is the edit distance (insertions, deletions,
substitutions) between the string and the nearest string the pattern matches (Myers and Miller's
approximate regular-expression matching, restricted to sequences).
"""

from __future__ import annotations

import functools
import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

try:  # re's parser (3.11+; sre_parse warns there)
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10, where a project's worker may run
    import sre_constants
    import sre_parse

Mode = Literal["match", "fullmatch", "search"]
MAX_ALTERNATIVES = 16  # sequences a pattern may expand to
MAX_LENGTH = 96  # characters of the subject the distance looks at
MAX_REPEAT = 64  # an unbounded repetition counts as at most this many characters
ALPHABET = string.ascii_letters + string.digits + " _-.,:/@#+*()[]!?'\"\t\n"

CharTest = Callable[[str], bool]


@dataclass(frozen=True)
class Item:
    """One character class, repeated ``low`` to ``high`` times."""

    accepts: CharTest
    low: int
    high: int
    text: str  # a character it accepts, for examples


@dataclass(frozen=True)
class Shape:
    """A simple pattern: alternatives of item sequences, and whether its ends are anchored."""

    sequences: tuple[tuple[Item, ...], ...]
    anchored_start: bool
    anchored_end: bool


class NotSimple(Exception):
    """The pattern uses something beyond sequences of character classes."""


@functools.lru_cache(maxsize=256)
def shape_of(pattern: str, flags: int = 0) -> Shape | None:
    """The pattern's shape, or None when it is not simple (or not a valid pattern)."""
    try:
        parsed = sre_parse.parse(pattern, flags)
        ignore_case = bool((flags | parsed.state.flags) & re.IGNORECASE)
        items = list(parsed)
        start = bool(items) and items[0][0] is sre_constants.AT and _is_start(items[0][1])
        end = bool(items) and items[-1][0] is sre_constants.AT and _is_end(items[-1][1])
        items = items[1 if start else 0 : len(items) - 1 if end else len(items)]
        sequences = _sequences(items, ignore_case)
    except (NotSimple, re.error, RecursionError, OverflowError, TypeError):
        return None
    return Shape(tuple(tuple(s) for s in sequences), start, end)


def _is_start(at: Any) -> bool:
    return at in (sre_constants.AT_BEGINNING, sre_constants.AT_BEGINNING_STRING)


def _is_end(at: Any) -> bool:
    return at in (sre_constants.AT_END, sre_constants.AT_END_STRING)


def _sequences(items: list[Any], ignore_case: bool) -> list[list[Item]]:
    """Expand the parsed items into at most MAX_ALTERNATIVES flat sequences of Items."""
    sequences: list[list[Item]] = [[]]
    for opcode, argument in items:
        if opcode is sre_constants.SUBPATTERN:
            options = _sequences(list(argument[3]), ignore_case)
        elif opcode is sre_constants.BRANCH:
            options = [s for branch in argument[1] for s in _sequences(list(branch), ignore_case)]
        elif _is_optional_group(opcode, argument):  # (...)? : without it, or with it once
            options = [[], *_sequences(list(argument[2]), ignore_case)]
        else:
            options = [[_item(opcode, argument, ignore_case)]]
        sequences = [head + tail for head in sequences for tail in options]
        if len(sequences) > MAX_ALTERNATIVES:
            raise NotSimple
    return sequences


def _is_optional_group(opcode: Any, argument: Any) -> bool:
    if opcode not in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
        return False
    inner = list(argument[2])
    single = len(inner) == 1 and inner[0][0] in _SINGLE_CHARACTER
    return argument[0] == 0 and argument[1] == 1 and not single


def _item(opcode: Any, argument: Any, ignore_case: bool) -> Item:
    if opcode in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
        low, high, inner = argument
        inner = list(inner)
        if len(inner) != 1:
            raise NotSimple
        single = _item(inner[0][0], inner[0][1], ignore_case)
        if single.low != 1 or single.high != 1:
            raise NotSimple
        high = MAX_REPEAT if high is sre_constants.MAXREPEAT else min(high, MAX_REPEAT)
        return Item(single.accepts, min(low, MAX_REPEAT), high, single.text)
    accepts = _char_test(opcode, argument)
    if ignore_case:
        exact = accepts

        def accepts(c: str) -> bool:
            return exact(c) or exact(c.lower()) or exact(c.upper())

    example = next((c for c in ALPHABET if accepts(c)), None)
    if example is None:
        raise NotSimple
    return Item(accepts, 1, 1, example)


def _char_test(opcode: Any, argument: Any) -> CharTest:
    if opcode is sre_constants.LITERAL:
        char = chr(argument)
        return char.__eq__
    if opcode is sre_constants.NOT_LITERAL:
        char = chr(argument)
        return char.__ne__
    if opcode is sre_constants.ANY:
        return "\n".__ne__
    if opcode is sre_constants.IN:
        return class_test(list(argument))
    raise NotSimple


_SINGLE_CHARACTER = (
    sre_constants.LITERAL,
    sre_constants.NOT_LITERAL,
    sre_constants.ANY,
    sre_constants.IN,
)
_CATEGORIES: dict[Any, CharTest] = {
    sre_constants.CATEGORY_DIGIT: str.isdigit,
    sre_constants.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre_constants.CATEGORY_SPACE: str.isspace,
    sre_constants.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre_constants.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre_constants.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}


def class_test(members: list[tuple[Any, Any]]) -> CharTest:
    """Whether a character is in a ``[...]`` class (as parsed); ``NotSimple`` beyond ranges,
    literals and the digit/space/word categories."""
    negate = bool(members) and members[0][0] is sre_constants.NEGATE
    tests: list[CharTest] = []
    for opcode, argument in members[1:] if negate else members:
        if opcode is sre_constants.LITERAL:
            tests.append(chr(argument).__eq__)
        elif opcode is sre_constants.RANGE:
            tests.append(_in_range(*argument))
        elif opcode is sre_constants.CATEGORY and argument in _CATEGORIES:
            tests.append(_CATEGORIES[argument])
        else:
            raise NotSimple
    if negate:
        return lambda c: not any(test(c) for test in tests)
    return lambda c: any(test(c) for test in tests)


def _in_range(low: int, high: int) -> CharTest:
    return lambda c: low <= ord(c) <= high


def distance(shape: Shape, text: str, mode: Mode) -> float:
    """Edits that make ``text`` match under ``mode`` (0 when it would; never exact beyond that)."""
    text = text[:MAX_LENGTH]
    free_start = mode == "search" and not shape.anchored_start
    free_end = mode != "fullmatch" and not shape.anchored_end
    return float(
        min(_sequence_distance(items, text, free_start, free_end) for items in shape.sequences)
    )


def _sequence_distance(items: tuple[Item, ...], text: str, free_start: bool, free_end: bool) -> int:
    """Dynamic programme over (items matched, characters consumed)."""
    n = len(text)
    infinity = n + sum(item.low for item in items) + 1
    costs = [0 if free_start else j for j in range(n + 1)]
    for item in items:
        following = [infinity] * (n + 1)
        for j in range(n + 1):
            if costs[j] >= infinity:
                continue
            mismatches = 0
            for taken in range(0, min(item.high, n - j) + 1):
                if taken:
                    mismatches += not item.accepts(text[j + taken - 1])
                cost = costs[j] + mismatches + max(0, item.low - taken)
                if cost < following[j + taken]:
                    following[j + taken] = cost
        for j in range(1, n + 1):  # a surplus character is deleted
            following[j] = min(following[j], following[j - 1] + 1)
        costs = following
    return min(costs) if free_end else costs[n]


def examples(shape: Shape, rng: random.Random, count: int = 2) -> list[str]:
    """Strings the pattern matches (``count`` per alternative, shortest first)."""
    found: list[str] = []
    for items in shape.sequences:
        found.append("".join(item.text * item.low for item in items))
        for _ in range(count - 1):
            found.append("".join(_sample(item, rng) for item in items))
    return list(dict.fromkeys(found))


def _sample(item: Item, rng: random.Random) -> str:
    repeat = rng.randint(item.low, min(item.high, item.low + 3))
    choices = [c for c in ALPHABET if item.accepts(c)] or [item.text]
    return "".join(rng.choice(choices) for _ in range(repeat))
