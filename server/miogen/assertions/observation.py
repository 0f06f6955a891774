"""What a clean run of a test showed, as values an assertion can state (Python literals)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

MAX_LITERAL = 200  # characters: longer values are not asserted literally

ObservationKind = Literal[
    "equals", "approx", "nan", "raises", "is_none", "attribute", "isinstance", "length"
]


@dataclass(frozen=True)
class Observation:
    """What a clean run of the test showed for one statement."""

    index: int
    kind: ObservationKind
    value: str = ""  # rendered Python expression
    detail: str = ""  # attribute name, or exception type name


def literal(value: object) -> str | None:
    """A Python expression that rebuilds ``value``, or None when there is no stable literal form."""
    if isinstance(value, str | bytes):
        text = _quoted(value)
    elif value is None or isinstance(value, bool | int):
        text = repr(value)
    elif isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else '-float("inf")'
        text = repr(value)
    elif isinstance(value, complex):
        text = repr(value)
    elif type(value) in (list, tuple, set, frozenset) and len(value) <= 20:
        items = [
            literal(v)
            for v in (sorted(value, key=repr) if isinstance(value, set | frozenset) else value)
        ]
        if any(i is None for i in items):
            return None
        if type(value) is tuple:
            text = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        elif type(value) is list:
            text = "[" + ", ".join(items) + "]"
        elif not items:
            text = "set()" if type(value) is set else "frozenset()"
        else:
            text = "{" + ", ".join(items) + "}"
            text = text if type(value) is set else f"frozenset({text})"
    elif type(value) is dict and len(value) <= 20:
        pairs = [(literal(k), literal(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        text = "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    else:
        return None
    return text if len(text) <= MAX_LITERAL else None


def _quoted(value: str | bytes) -> str:
    """repr() with double quotes where that needs no escaping, as ruff format writes strings."""
    text = repr(value)
    prefix = "b" if isinstance(value, bytes) else ""
    body = text[len(prefix) + 1 : -1]
    quote = '"' if isinstance(value, str) else b'"'
    if text[len(prefix)] == "'" and quote not in value:
        return f'{prefix}"{body.replace(chr(92) + chr(39), chr(39))}"'
    return text
