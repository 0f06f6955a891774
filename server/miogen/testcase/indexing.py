"""Index arguments that point inside the sequence argument they index.

For the (index, sequence) parameter pairs of a call (analysis.indexes: the body reads
``label[pos]``), a sampled call now and then (``INDEX_PROBABILITY``) passes for the index a
position inside the string, bytes, list or tuple literal passed for the sequence: at one of
the characters the module's code looks for (``sought``: the code points ``ord(...)`` is
compared with) when it holds any, else anywhere; a string without one gets one now and then,
where the index points (the string is a literal of the call's own). A random integer is past
the end of a short string most of the time, and the call stops at an IndexError before any
branch.
"""

from __future__ import annotations

import random

from miogen.testcase.model import Statement

INDEX_PROBABILITY = 0.7
SOUGHT_PROBABILITY = 0.7  # of an index that points inside: at a sought character, if any
INSERT_PROBABILITY = 0.5  # a string without a sought character gets one, and the index
Arguments = tuple[tuple[str, int], ...]


def point_indexes(
    statements: list[Statement],
    args: Arguments,
    pairs: tuple[tuple[str, str], ...],
    rng: random.Random,
    sought: str = "",
) -> Arguments:
    """``args`` with each index of ``pairs`` (maybe) pointing inside its sequence's literal;
    the new positions are literals appended to ``statements``."""
    if not pairs:
        return args
    where = {name.lstrip("/"): slot for slot, (name, _) in enumerate(args)}
    changed = list(args)
    for index, sequence in pairs:
        if index not in where or sequence not in where:
            continue
        slot = where[index]
        current = statements[changed[slot][1]]
        target = statements[changed[where[sequence]][1]]
        if current.kind != "value" or type(current.value) is not int:
            continue
        if target.kind != "value" or not isinstance(target.value, str | bytes | list | tuple):
            continue
        if not target.value or rng.random() >= INDEX_PROBABILITY:
            continue
        value, position = _pointed(target.value, rng, sought)
        if value is not target.value:  # a literal of this call's own: no other call reads it
            statements[changed[where[sequence]][1]] = Statement("value", value=value)
        statements.append(Statement("value", value=position))
        changed[slot] = (changed[slot][0], len(statements) - 1)
    return tuple(changed)


def _pointed(
    value: str | bytes | list[object] | tuple[object, ...], rng: random.Random, sought: str
) -> tuple[str | bytes | list[object] | tuple[object, ...], int]:
    """``value`` and a position inside it; a string without a ``sought`` character gets one
    there now and then (``INSERT_PROBABILITY``)."""
    if isinstance(value, str) and sought and not any(c in sought for c in value):
        if rng.random() < INSERT_PROBABILITY:
            at = rng.randint(0, len(value))
            return value[:at] + rng.choice(sought) + value[at:], at
    return value, position_in(value, rng, sought)


def position_in(
    value: str | bytes | list[object] | tuple[object, ...], rng: random.Random, sought: str = ""
) -> int:
    """A position inside ``value`` (not empty): at a ``sought`` character
    (``SOUGHT_PROBABILITY``) where it has one."""
    if isinstance(value, str) and sought:
        at = [i for i, c in enumerate(value) if c in sought]
        if at and rng.random() < SOUGHT_PROBABILITY:
            return rng.choice(at)
    return rng.randrange(len(value))
