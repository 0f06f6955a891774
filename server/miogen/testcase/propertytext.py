"""Text made of the characters whose Unicode properties the module compares.

``analysis.unicodeprops`` finds characters of each class the code asks about (a right-to-left
letter, a European and an Arabic digit, a combining mark, a virama); one inserted into random
text takes the first check on its class, but rules over the whole string (every character of
a right-to-left label must be of the right-to-left classes, and it must end in one of them)
need strings made mostly of such characters. ``text`` writes them: a few characters, most of
them the module's, the others ASCII letters and digits, now and then a dot or a hyphen (label
separators and joiners). Half of them take their characters from the groups of one line each
(``analysis.unicodeprops.groups_of``): the first from one group, the rest from another, so
that a check every character must pass (the classes a right-to-left label allows) and one on
the first character (it must be right-to-left) pass together. Of those, half get one of the
characters the code looks for by code point (``sought``: ``ord(c) == 0x200C``, a joiner)
somewhere after the first: the rules about the neighbours of a joiner (a letter that joins on
the left before it, one that joins on the right after it, transparent marks between) read
characters of the classes around one such character.
"""

from __future__ import annotations

import random
import string

MAX_LENGTH = 6
OWN_PROBABILITY = 0.75  # a character of the text is one of the module's
ASCII = string.ascii_lowercase + string.digits
SEPARATORS = ".-"
SEPARATOR_PROBABILITY = 0.05


GROUPED_PROBABILITY = 0.5
SOUGHT_PROBABILITY = 0.5  # a grouped text gets one of the sought characters


def text(
    characters: str, rng: random.Random, groups: tuple[str, ...] = (), sought: str = ""
) -> str:
    """A string of one to ``MAX_LENGTH`` characters, mostly of ``characters`` (or of two of
    the ``groups``: one for the first character, one for the others, and maybe one of
    ``sought`` among the others)."""
    length = rng.randint(1, MAX_LENGTH)
    out: list[str] = []
    if groups and rng.random() < GROUPED_PROBABILITY:
        out.append(rng.choice(rng.choice(groups)))
        characters = rng.choice(groups)
        if sought and length > 1 and rng.random() < SOUGHT_PROBABILITY:
            cut = rng.randint(0, length - 2)
            before, after = text(characters, rng)[:cut], text(characters, rng)
            return out[0] + before + rng.choice(sought) + after[: length - 2 - cut]
    for _ in range(length - len(out)):
        roll = rng.random()
        if characters and roll < OWN_PROBABILITY:
            out.append(rng.choice(characters))
        elif roll < OWN_PROBABILITY + SEPARATOR_PROBABILITY:
            out.append(rng.choice(SEPARATORS))
        else:
            out.append(rng.choice(ASCII))
    return "".join(out)
