"""What a clean run of a test showed, as values an assertion can state (Python literals)."""

from __future__ import annotations

import ast
import datetime
import decimal
import fractions
import math
import pathlib
import re
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from miogen.testcase import ast_nodes

MAX_LITERAL = 200  # characters: longer values are not asserted literally
MAX_INT_BITS = 700  # an int of more bits has more than MAX_LITERAL digits
# Bound at import: the worker later puts a clock-watching subclass in ``datetime.datetime``
# (worker/entropy.py) whose objects are of the real class.
_DATES = (datetime.date, datetime.datetime, datetime.time, datetime.timedelta, datetime.timezone)
_DATETIME = datetime.datetime

ObservationKind = Literal[
    "equals", "approx", "nan", "raises", "is_none", "attribute", "isinstance", "length", "callable"
]


@dataclass(frozen=True)
class Observation:
    """What a clean run of the test showed for one statement."""

    index: int
    kind: ObservationKind
    value: str = ""  # rendered Python expression
    detail: str = ""  # attribute name; for a raise, where its class is imported from
    message: str | None = None  # a raise's message, when it is the same in every run


def literal(value: object) -> str | None:
    """A Python expression that rebuilds ``value``, or None when there is no stable literal form.

    A container that holds itself has none (a linked list's sentinel ``end = [None, end,
    end]``): its items are rendered to a depth past which no literal fits in MAX_LITERAL.

    >>> end: list[object] = [None]
    >>> end += [end, end]
    >>> literal(end), literal([[1], (2,), {3: [4]}])
    (None, '[[1], (2,), {3: [4]}]')
    """
    return _item(value, 0)


def _item(value: object, depth: int) -> str | None:
    try:
        return _literal(value, depth)
    except ValueError:  # repr() of an int inside a container, past 4300 digits
        return None


def input_literal(value: object) -> str | None:
    """The expression that rebuilds ``value`` as a test's input: ``literal``'s, and also for
    values an assertion cannot compare with ``==`` but a call can take (a NaN ``Decimal``).

    >>> input_literal(decimal.Decimal("NaN")), literal(decimal.Decimal("NaN"))
    ('decimal.Decimal("NaN")', None)
    """
    if isinstance(value, decimal.Decimal) and type(value) is decimal.Decimal and value.is_nan():
        return f"decimal.Decimal({quoted(str(value))})"
    if isinstance(value, ast.AST):  # built by its constructor; never asserted (by identity)
        return ast_nodes.literal(value)
    return literal(value)


def _literal(value: object, depth: int = 0) -> str | None:
    if isinstance(value, str | bytes):
        if len(value) > MAX_LITERAL:  # its literal is longer still; and quoting a string of
            return None  # hundreds of megabytes (calendar's, w=10**8) ran out of memory
        text = quoted(value)
    elif value is None or isinstance(value, bool | int):
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            return None  # longer than MAX_LITERAL, and repr() refuses past 4300 digits
        text = repr(value)
    elif isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else '-float("inf")'
        text = repr(value)
    elif isinstance(value, complex):
        text = repr(value)
    elif isinstance(value, list | tuple | set | frozenset) and type(value) in CONTAINERS:
        return _container(value, depth)
    elif isinstance(value, dict) and type(value) is dict:
        return _dict(value, depth)
    else:
        stdlib = stdlib_literal(value)
        if stdlib is None:
            return None
        text = stdlib
    return text if len(text) <= MAX_LITERAL else None


CONTAINERS = (list, tuple, set, frozenset)
MAX_ITEMS = 20
# Each level of nesting adds two brackets: a literal nested deeper is longer than MAX_LITERAL.
MAX_DEPTH = MAX_LITERAL // 2


def _container(
    value: list[Any] | tuple[Any, ...] | set[Any] | frozenset[Any], depth: int
) -> str | None:
    if len(value) > MAX_ITEMS or depth >= MAX_DEPTH:
        return None
    unordered = isinstance(value, set | frozenset)
    items = []
    for v in sorted(value, key=repr) if unordered else value:
        item = _item(v, depth + 1)
        if item is None:  # at once: a cycle's other items would each go MAX_DEPTH deep again
            return None
        items.append(item)
    if type(value) is tuple:
        text = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    elif type(value) is list:
        text = "[" + ", ".join(items) + "]"
    elif not items:
        text = "set()" if type(value) is set else "frozenset()"
    else:
        text = "{" + ", ".join(items) + "}"
        text = text if type(value) is set else f"frozenset({text})"
    return text if len(text) <= MAX_LITERAL else None


def _dict(value: dict[Any, Any], depth: int) -> str | None:
    if len(value) > MAX_ITEMS or depth >= MAX_DEPTH:
        return None
    pairs = []
    for k, v in value.items():
        key, item = _item(k, depth + 1), _item(v, depth + 1)
        if key is None or item is None:
            return None
        pairs.append((key, item))
    text = "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return text if len(text) <= MAX_LITERAL else None


def quoted(value: str | bytes) -> str:
    """repr() with double quotes where that needs no escaping, as ruff format writes strings."""
    text = repr(value)
    prefix = "b" if isinstance(value, bytes) else ""
    body = text[len(prefix) + 1 : -1]
    has_quote = '"' in value if isinstance(value, str) else b'"' in value
    if text[len(prefix)] == "'" and not has_quote:
        return f'{prefix}"{body.replace(chr(92) + chr(39), chr(39))}"'
    return text


def stdlib_literal(value: object) -> str | None:
    """The constructor call that rebuilds a stdlib value: ``datetime.date(2024, 2, 29)``."""
    kind = type(value)
    if isinstance(value, _DATETIME) and kind is _DATETIME:
        if value.tzinfo is None and not value.fold:
            # naive on purpose (the code reads it as local time), written as linters take it:
            # ruff's DTZ001 flags ``datetime(2010, 1, 1)`` and ``tzinfo=None`` alike
            return f'datetime.datetime.fromisoformat("{value.isoformat()}")'
    if kind in _DATES:
        return repr(value)  # datetime.timezone.utc, not datetime.UTC: every Python has it
    if isinstance(value, decimal.Decimal):
        return None if value.is_nan() else f"decimal.Decimal({quoted(str(value))})"
    if isinstance(value, fractions.Fraction):
        if max(abs(value.numerator), value.denominator).bit_length() > MAX_INT_BITS:
            return None
        return f"fractions.Fraction({value.numerator}, {value.denominator})"
    if isinstance(value, uuid.UUID):
        return f"uuid.UUID({quoted(str(value))})"
    if isinstance(value, pathlib.PurePath):
        name = "Path" if isinstance(value, pathlib.Path) else kind.__name__
        return f"pathlib.{name}({quoted(str(value))})"
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        flags = re.RegexFlag(value.flags & ~re.UNICODE)
        return f"re.compile({quoted(value.pattern)}{f', {flags!r}' if flags else ''})"
    return None
