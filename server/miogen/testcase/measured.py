"""Strings of the lengths, separators and affixes a function measures its parameter against.

For a parameter that analysis.measures found measured (``len(v) > 253`` on a value derived
from it, here or in a function it is passed to; ``v.split(".")``; ``v.startswith(b"xn--")``,
``v[-1] == "-"``), a sampled call now and then (``MEASURED_PROBABILITY``) passes, instead of
the string or bytes it drew, one built to the measure:

- a length: exactly one of the lengths (K-1, K, K+1 of each K compared with), made of a unit
  repeated: a character of the drawn text (now and then a letter beyond ASCII: ``len(x.
  encode())`` and Punycode count those differently), and, where the value is split, pieces
  shorter than the shorter lengths joined with the separator: a domain of 255 characters in
  labels of at most 61, which a check of each label lets through to the check of the whole;
- an affix: a prefix, a suffix, or both, around a short middle: ``xn--ab-``.
"""

from __future__ import annotations

import random
import string

from miogen.analysis.measures import Measures

MEASURED_PROBABILITY = 0.2  # a drawn string or bytes argument of a measured parameter
WIDE_PROBABILITY = 0.3  # the repeated unit holds a letter beyond ASCII
WIDE_LETTERS = "éüñçøåßàöíž"  # letters (lower case, so case folding keeps them) of two bytes
SPLIT_PROBABILITY = 0.8  # of a length, where the value is split: pieces joined


def measured_value(value: str | bytes, measures: Measures, rng: random.Random) -> str | bytes:
    """A value of ``value``'s type built to one of ``measures`` (see the module docstring)."""
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    affixes = measures.prefixes or measures.suffixes
    if measures.lengths and (not affixes or rng.random() < 0.6):
        built = sized(text, measures, rng, wide=not isinstance(value, bytes))
    elif affixes:
        built = affixed(text, measures, rng)
    else:
        return value
    if isinstance(value, bytes):
        return built.encode("latin-1", "replace")
    return built


def sized(text: str, measures: Measures, rng: random.Random, wide: bool = True) -> str:
    """A string of exactly one of the lengths, of a repeated unit; split where it is split."""
    length = rng.choice(measures.lengths)
    separators = measures.separators
    unit = _unit(text, separators, rng, wide)
    if not separators or rng.random() >= SPLIT_PROBABILITY:
        return (unit * (length // len(unit) + 1))[:length]
    separator = rng.choice(separators)
    shorter = [n for n in measures.lengths if n < length]
    longest = max(1, min(shorter) - 1) if shorter else max(1, length // 4)
    piece_length = rng.randint(max(1, longest // 2), longest)
    piece = (unit * (piece_length // len(unit) + 1))[:piece_length]
    count = length // (piece_length + len(separator)) + 1
    return separator.join([piece] * count)[:length]


def affixed(text: str, measures: Measures, rng: random.Random) -> str:
    """A prefix, a suffix or both around a short middle (the drawn text, or letters)."""
    middle = text if 0 < len(text) <= 8 else "".join(rng.choices(string.ascii_lowercase, k=3))
    prefix = rng.choice(measures.prefixes) if measures.prefixes else ""
    suffix = rng.choice(measures.suffixes) if measures.suffixes else ""
    roll = rng.random()
    if prefix and suffix and roll < 0.3:
        suffix = ""
    elif prefix and suffix and roll < 0.6:
        prefix = ""
    return prefix + middle + suffix


def _unit(text: str, separators: tuple[str, ...], rng: random.Random, wide: bool) -> str:
    """What a long value repeats: a character or two of ``text`` (not a separator), or a
    letter; with a letter beyond ASCII now and then."""
    own = [c for c in text if c not in "".join(separators) and c.isprintable()]
    unit = "".join(rng.choice(own) for _ in range(rng.randint(1, 2))) if own else ""
    if not unit or rng.random() < 0.3:
        unit = rng.choice(string.ascii_lowercase)
    if wide and rng.random() < WIDE_PROBABILITY:
        unit = rng.choice(WIDE_LETTERS) + unit[:1]
    return unit
