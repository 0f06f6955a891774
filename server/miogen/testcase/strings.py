"""String mutations that follow the string distances: affixes and lengths from the constant pool.

The probes score ``s.startswith("AB-")`` by how far ``s``'s first three characters are from
"AB-", ``len(s) == 7`` by the length gap, ``s.isdigit()`` by the characters that are not digits.
One-character edits walk such distances down slowly; these steps jump: put a pool string at the
start or the end (replacing what was there, so the length stays), stretch or cut to a pool
length, or turn a character into the class (digit, letter, case) its neighbours suggest.

The module's source also says which lengths and characters matter (``shapes_of``): the
constants ``len(...)`` is compared with (``len(label) > 63`` wants 64 characters, ``len(s) >
(254 if dot else 253)`` 255: one character at a time the search never gets there), the indices
and slice bounds it reads, and the code points ``ord(...)`` is compared with (``cp == 0x200c``
wants that character in the string). Those lengths are tried as they are, and strings are doubled
or halved (which keeps their structure: "a.b" doubled four times is 48 characters of short
labels); those characters are put in.
"""

from __future__ import annotations

import ast
import functools
import random
import string
from collections.abc import Iterator
from dataclasses import dataclass

from miogen.analysis.model import ConstantPool
from miogen.common.syntax import parse

MAX_LENGTH = 64  # longest string a length step to a plain pool integer builds
MAX_SHAPED_LENGTH = 4096  # longest a length the source compares with, or a doubling, builds
FILL = string.ascii_letters + string.digits
SURROGATES = range(0xD800, 0xE000)


@dataclass(frozen=True)
class Shapes:
    """The lengths and characters a module's conditions look for (see the module docstring)."""

    lengths: tuple[int, ...] = ()
    characters: str = ""


def affix_or_length(
    text: str, rng: random.Random, pool: ConstantPool, shapes: Shapes = Shapes()
) -> str:
    """One step toward a prefix, a suffix, a length or a character class. The affixes are the
    pool's strings and its bytes (as Latin-1 text: code that encodes a ``str`` compares it with
    ``b"xn--"``, and code that decodes ``bytes`` with ``"xn--"``)."""
    texts = [*pool.strings, *(b.decode("latin-1") for b in pool.bytes_)]
    affixes = [s for s in texts if 0 < len(s) <= MAX_LENGTH]
    lengths = [n for n in pool.ints if 0 <= n <= MAX_LENGTH]
    roll = rng.random()
    if affixes and roll < 0.25:
        affix = rng.choice(affixes)
        return affix + text[len(affix) :] if rng.random() < 0.5 else affix + text
    if affixes and roll < 0.45:
        affix = rng.choice(affixes)
        kept = text[: max(0, len(text) - len(affix))]
        return kept + affix if rng.random() < 0.5 else text + affix
    if lengths and roll < 0.7 and not (shapes.lengths and roll < 0.6):
        return resize(text, rng.choice(lengths), rng)
    if shapes.lengths and roll < 0.8:
        return reshape(text, rng, shapes)
    return recharacter(text, rng)


def reshape(text: str, rng: random.Random, shapes: Shapes) -> str:
    """``text`` at a length the source compares with (padded, or repeated: "a.b" repeated to
    254 characters is still short labels), or doubled, or halved."""
    roll = rng.random()
    if shapes.lengths and roll < 0.6:
        length = rng.choice(shapes.lengths)
        if text and rng.random() < 0.5:
            return (text * (length // len(text) + 1))[:length]
        return resize(text, length, rng)
    if text and (roll < 0.85 or len(text) < 2) and 2 * len(text) <= MAX_SHAPED_LENGTH:
        return text + text
    return text[: len(text) // 2]


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


@functools.lru_cache(maxsize=16)
def shapes_of(source: str) -> Shapes:
    """The lengths and characters the conditions of ``source`` compare with (once per module).

    Lengths: ``len(x) <op> K`` gives K-1, K and K+1 (K an integer literal, a name bound to
    one, or either of ``a if c else b``); ``x[K]`` gives K and K+1; ``x[i:K]`` gives K.
    Characters: ``chr(K)`` for each K that ``ord(...)``, or a name assigned from it, is compared
    with.
    """
    try:
        tree = parse(source)
    except (SyntaxError, ValueError):
        return Shapes()
    nodes = list(ast.walk(tree))
    named = _named_ints(nodes)
    ordinals = {
        target.id
        for node in nodes
        if isinstance(node, ast.Assign) and _calls(node.value, "ord")
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    lengths: set[int] = set()
    points: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for a, b in zip(operands, operands[1:], strict=False):
                for measured, other in ((a, b), (b, a)):
                    if _calls(measured, "len"):
                        lengths.update(k + d for k in _ints(other, named) for d in (-1, 0, 1))
                    elif _calls(measured, "ord") or (
                        isinstance(measured, ast.Name) and measured.id in ordinals
                    ):
                        points.update(_ints(other, named))
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Slice):
                lengths.update(k for bound in (index.lower, index.upper) for k in _ints(bound, {}))
            else:
                lengths.update(k + d for k in _ints(index, {}) if k >= 0 for d in (0, 1))
    return Shapes(
        tuple(sorted(n for n in lengths if 1 < n <= MAX_SHAPED_LENGTH)),
        "".join(chr(p) for p in sorted(points) if 0 < p < 0x110000 and p not in SURROGATES),
    )


def _calls(node: ast.expr | None, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and len(node.args) == 1
    )


def _ints(node: ast.expr | None, named: dict[str, int]) -> Iterator[int]:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        yield node.value
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield from (-k for k in _ints(node.operand, named))
    elif isinstance(node, ast.IfExp):
        yield from _ints(node.body, named)
        yield from _ints(node.orelse, named)
    elif isinstance(node, ast.Name) and node.id in named:
        yield named[node.id]


def _named_ints(nodes: list[ast.AST]) -> dict[str, int]:
    """Names assigned an integer literal, and only that one, anywhere in the module."""
    values: dict[str, set[object]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            for target in targets:
                if isinstance(target, ast.Name):
                    literal = value.value if isinstance(value, ast.Constant) else None
                    values.setdefault(target.id, set()).add(
                        literal if type(literal) is int else object()
                    )
    return {
        name: found
        for name, (found,) in ((n, tuple(v)) for n, v in values.items() if len(v) == 1)
        if type(found) is int
    }
