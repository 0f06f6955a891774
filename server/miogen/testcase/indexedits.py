"""Edits of a string around the position its index argument points at, the index following.

For a call whose index parameter reads a sequence parameter (analysis.indexes: ``label[pos]``),
``pos`` pointing inside the string takes the first check on ``label[pos]``; the rules after
it read the neighbours: ``label[pos - 1]``, the characters before it back to one of a kind,
those after it (idna's ``valid_contextj``: a joiner needs a letter joining on the left before
it, past transparent marks, and one joining on the right after it). A plain string edit
inserts or deletes at a random place and the index then points at another character, most of
the time past the one the code looked for: the test leaves the branch it had reached.
``edit_near_index`` edits the string of such a call near the position, mostly right before or
after it, with the characters the module looks for (the characters of the Unicode properties its own lines
compare, ``unit_characters``; else those the module looks for), and moves the index with the character it pointed at.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from miogen.analysis.model import Signature
from miogen.testcase.model import Statement, TestCase

OWN_PROBABILITY = 0.8  # an inserted or replacing character is one of the module's
NEXT_TO_PROBABILITY = 0.5  # an edit is right before or right after the pointed character
INSERT, DELETE = 0.6, 0.8  # cumulative: insert, delete, else replace a neighbour
Pairs = tuple[tuple[str, str], ...]


def indexed_calls(test: TestCase, pairs_of: Callable[[Statement], Pairs]) -> list[tuple[int, int]]:
    """(string statement, index statement) of each call of ``test`` whose index argument, an
    int literal, points inside its string literal (``pairs_of``: the call's pairs)."""
    found: list[tuple[int, int]] = []
    for statement in test:
        pairs = pairs_of(statement)
        if not pairs:
            continue
        where = {name.lstrip("/"): at for name, at in statement.args}
        for index, sequence in pairs:
            if index not in where or sequence not in where:
                continue
            text, position = test[where[sequence]], test[where[index]]
            if text.kind != "value" or not isinstance(text.value, str):
                continue
            if position.kind != "value" or type(position.value) is not int:
                continue
            if 0 <= position.value < len(text.value):
                found.append((where[sequence], where[index]))
    return found


def edit_near_index(
    test: TestCase,
    pairs_of: Callable[[Statement], Pairs],
    rng: random.Random,
    characters: str,
    other: Callable[[random.Random], str],
) -> TestCase | None:
    """``test`` with one indexed string edited near its index (``edited``), the index moved
    with its character; None when no call indexes a string literal."""
    calls = indexed_calls(test, pairs_of)
    if not calls:
        return None
    text_at, index_at = rng.choice(calls)
    text, position = test[text_at].value, test[index_at].value
    assert isinstance(text, str) and isinstance(position, int)
    new_text, new_position = edited(text, position, rng, characters, other)
    changed = list(test)
    changed[text_at] = Statement("value", value=new_text)
    changed[index_at] = Statement("value", value=new_position)
    return tuple(changed)


def edited(
    text: str,
    position: int,
    rng: random.Random,
    characters: str,
    other: Callable[[random.Random], str],
) -> tuple[str, int]:
    """``text`` with a character inserted, deleted or replaced, not the one at ``position``
    (mostly one of ``characters``, else ``other``'s), and where that character is now."""
    roll = rng.random()
    if roll < INSERT or len(text) < 2:
        at = _near(position, len(text) + 1, rng, (position, position + 1))
        return text[:at] + _character(rng, characters, other) + text[at:], position + (
            at <= position
        )
    places = [p for p in range(len(text)) if p != position]
    neighbours = tuple(p for p in (position - 1, position + 1) if 0 <= p < len(text))
    at = _near(position, len(text), rng, neighbours, places)
    if roll < DELETE:
        return text[:at] + text[at + 1 :], position - (at < position)
    return text[:at] + _character(rng, characters, other) + text[at + 1 :], position


def _near(
    position: int,
    size: int,
    rng: random.Random,
    neighbours: tuple[int, ...],
    places: list[int] | None = None,
) -> int:
    """One of ``neighbours`` (``NEXT_TO_PROBABILITY``), else any of ``places`` (all of
    ``range(size)`` by default)."""
    if neighbours and rng.random() < NEXT_TO_PROBABILITY:
        return rng.choice(neighbours)
    return rng.choice(places) if places is not None else rng.randrange(size)


def _character(rng: random.Random, characters: str, other: Callable[[random.Random], str]) -> str:
    if characters and rng.random() < OWN_PROBABILITY:
        return rng.choice(characters)
    return other(rng)


def unit_characters(groups: tuple[tuple[int, str], ...], contains: Callable[[int], bool]) -> str:
    """The characters of the (line, characters) ``groups`` on the unit's own lines (those
    ``contains`` takes): the classes its code reads around the index."""
    return "".join(dict.fromkeys("".join(found for line, found in groups if contains(line))))


def signature_pairs(signature: Signature | None, pairs: dict[int, Pairs]) -> Pairs:
    """The (index, sequence) pairs of the function a call statement calls."""
    return pairs.get(signature.line, ()) if signature is not None else ()
