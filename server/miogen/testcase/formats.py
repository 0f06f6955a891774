"""Valid ``str.format`` specs and format strings, for parameters the code uses as such.

A spec is ``[[fill]align][sign][z][#][0][width][grouping][.precision][type]`` (the format
specification mini-language); each part is there or not at random, so that code which takes a
spec apart by hand (``if spec[1] in "<>=^": fill = spec[0]``) sees every combination, fills
that are regular-expression metacharacters among them. A format string is literal text with
one to three fields, ``{}``, ``{name}``, ``{name.attribute}``, ``{name[0]}``, each with or
without a spec, and now and then ``{{``. The names come from a small vocabulary (``a``, ``b``,
``a_b``) so that the same name, or names that differ only by ``.`` and ``_``, appear together:
code that maps fields to names of its own meets its collisions.
"""

from __future__ import annotations

import random
import re
import string

from miogen.analysis.formats import SPEC, STRING
from miogen.analysis.model import Parameter
from miogen.analysis.typespec import TypeSpec

ALIGNMENTS = "<>=^"
# Fills: a space, the usual padding, and characters that mean something in a pattern.
FILLS = " *0-_x.+?$^()[]|\\"
SIGNS = ("+", "-", " ")
TYPES = ("s", "d", "f", "e", "g", "x", "o", "b", "n", "%", "F", "E", "G", "X", "c")
NAMES = ("a", "b", "a_b")
INDEXES = ("0", "1", "b")
TEXT = string.ascii_letters + string.digits + " -:/,."
MAX_FIELDS = 3
FORMAT_PROBABILITY = 0.5  # a format parameter gets a generated format text
RELATED_PROBABILITY = 0.5  # a field named after an earlier one


def format_text(kind: str, rng: random.Random) -> str:
    """A spec (``kind`` SPEC) or a format string (STRING); either, now and then, for the other:
    a format string's spec is a spec too."""
    if kind == SPEC:
        return spec(rng)
    if kind == STRING:
        return format_string(rng)
    raise ValueError(f"unknown kind of format text: {kind!r}")


def spec(rng: random.Random) -> str:
    """A valid format spec, each part there with some probability: ``*<+#010,.3f``, ``^``."""
    parts = []
    if rng.random() < 0.5:
        fill = rng.choice(FILLS) if rng.random() < 0.6 else ""
        parts.append(fill + rng.choice(ALIGNMENTS))
    if rng.random() < 0.25:
        parts.append(rng.choice(SIGNS))
    if rng.random() < 0.1:
        parts.append("#")
    if rng.random() < 0.15:
        parts.append("0")
    if rng.random() < 0.5:
        parts.append(str(rng.randint(1, 12)))
    if rng.random() < 0.1:
        parts.append(rng.choice(",_"))
    if rng.random() < 0.3:
        parts.append(f".{rng.randint(0, 6)}")
    if rng.random() < 0.6:
        parts.append(rng.choice(TYPES))
    return "".join(parts)


def format_string(rng: random.Random) -> str:
    """Literal text and one to ``MAX_FIELDS`` fields: ``"x{a.b}-{a_b:>4}"``."""
    names: list[str] = []
    for _ in range(rng.randint(1, MAX_FIELDS)):
        related = names and rng.random() < RELATED_PROBABILITY
        names.append(_related(rng.choice(names)) if related else _name(rng))
    if rng.random() < 0.5:
        rng.shuffle(names)  # the plain form of a name before the name, or after it
    pieces = [_text(rng)]
    for name in names:
        pieces.append("{" + name + (f":{spec(rng)}" if rng.random() < 0.6 else "") + "}")
        pieces.append(_text(rng))
    if rng.random() < 0.1:
        pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(("{{", "}}")))
    return "".join(pieces)


def _name(rng: random.Random) -> str:
    """No name (``{}``), a position, or a name with an attribute or an index now and then."""
    roll = rng.random()
    if roll < 0.3:
        return ""
    if roll < 0.4:
        return str(rng.randint(0, 2))
    name = rng.choice(NAMES)
    if rng.random() < 0.5:
        name += f".{rng.choice(NAMES)}" if rng.random() < 0.6 else f"[{rng.choice(INDEXES)}]"
    return name


def _related(name: str) -> str:
    """The name as an identifier (``a.b`` as ``a_b``, ``a[0]`` as ``a_0_``: what code that
    makes names of its own from fields makes of it), or the same name again."""
    return re.sub(r"\W", "_", name)


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(TEXT) for _ in range(rng.choice((0, 0, 1, 2, 3))))


def for_parameter(
    kinds: tuple[tuple[str, str], ...], parameter: Parameter, rng: random.Random
) -> str | None:
    """Now and then (``FORMAT_PROBABILITY``) a format text for ``parameter`` when ``kinds``
    (its function's, analysis.formats) say it is one and its type takes a string."""
    kind = dict(kinds).get(parameter.name.lstrip("/*"))
    if kind is None or not _takes_text(parameter.type) or rng.random() >= FORMAT_PROBABILITY:
        return None
    return format_text(kind, rng)


def _takes_text(spec: TypeSpec) -> bool:
    if spec.kind == "union":
        return any(_takes_text(arg) for arg in spec.args)
    return spec.kind in ("str", "any")
