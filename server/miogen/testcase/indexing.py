"""Index arguments that point inside the sequence argument they index.

For the (index, sequence) parameter pairs of a call (analysis.indexes: the body reads
``label[pos]``), a sampled call now and then (``INDEX_PROBABILITY``) passes for the index a
position inside the string, bytes, list or tuple literal passed for the sequence: at one of
the characters the module's code looks for (``sought``: the code points ``ord(...)`` is
compared with) when it holds any, else anywhere. A random integer is past the end of a short
string most of the time, and the call stops at an IndexError before any branch.
"""

from __future__ import annotations

import random

from miogen.testcase.model import Statement

INDEX_PROBABILITY = 0.7
SOUGHT_PROBABILITY = 0.7  # of an index that points inside: at a sought character, if any
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
        statements.append(Statement("value", value=position_in(target.value, rng, sought)))
        changed[slot] = (changed[slot][0], len(statements) - 1)
    return tuple(changed)


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
