"""String mutations that follow the string distances: affixes and lengths from the constant pool.

The probes score ``s.startswith("AB-")`` by how far ``s``'s first three characters are from
"AB-", ``len(s) == 7`` by the length gap, ``s.isdigit()`` by the characters that are not digits.
One-character edits walk such distances down slowly; these steps jump: put a pool string at the
start or the end (replacing what was there, so the length stays), stretch or cut to a pool
length, or turn a character into the class (digit, letter, case) its neighbours suggest.
"""

from __future__ import annotations

import random
import string

from miogen.analysis.model import ConstantPool

MAX_LENGTH = 64  # longest string a length step builds
FILL = string.ascii_letters + string.digits


def affix_or_length(text: str, rng: random.Random, pool: ConstantPool) -> str:
    """One step toward a prefix, a suffix, a length or a character class."""
    affixes = [s for s in pool.strings if 0 < len(s) <= MAX_LENGTH]
    lengths = [n for n in pool.ints if 0 <= n <= MAX_LENGTH]
    roll = rng.random()
    if affixes and roll < 0.25:
        affix = rng.choice(affixes)
        return affix + text[len(affix) :] if rng.random() < 0.5 else affix + text
    if affixes and roll < 0.45:
        affix = rng.choice(affixes)
        kept = text[: max(0, len(text) - len(affix))]
        return kept + affix if rng.random() < 0.5 else text + affix
    if lengths and roll < 0.7:
        return resize(text, rng.choice(lengths), rng)
    return recharacter(text, rng)


def resize(text: str, length: int, rng: random.Random) -> str:
    """``text`` cut or padded (with characters like its own) to ``length``."""
    if len(text) >= length:
        return text[:length]
    alphabet = _alphabet_like(text)
    return text + "".join(rng.choice(alphabet) for _ in range(length - len(text)))


def recharacter(text: str, rng: random.Random) -> str:
    """One character changed into a digit, a letter, or the other case."""
    if not text:
        return rng.choice(FILL)
    position = rng.randrange(len(text))
    char = text[position]
    roll = rng.random()
    if roll < 0.35:
        new = rng.choice(string.digits)
    elif roll < 0.7:
        new = rng.choice(string.ascii_letters)
    else:
        new = char.lower() if char.isupper() else char.upper()
    return text[:position] + new + text[position + 1 :]


def _alphabet_like(text: str) -> str:
    """Pad digits with digits, letters with letters: the class a check on the rest expects."""
    tail = text[-3:]
    if tail and tail.isdigit():
        return string.digits
    if tail and tail.isalpha():
        return string.ascii_uppercase if tail.isupper() else string.ascii_lowercase
    return FILL
