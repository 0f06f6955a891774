"""Values of the standard library's value types: sampled, mutated, and kept in JSON.

Dates, times, durations, decimals, fractions, paths, compiled patterns and UUIDs are immutable,
so a test holds them as plain ``value`` statements; the emitted test writes them as their
constructor calls (``datetime.date(2024, 2, 29)``, see emit.render). Match objects too: one
of the module's patterns (``ConstantPool.patterns``) matched against a string it matches
(analysis.regexes), written ``match = re.fullmatch(...)`` and ``assert match is not None``.
"""

from __future__ import annotations

import ast
import calendar
import datetime
import decimal
import fractions
import pathlib
import random
import re
import uuid
from collections.abc import Callable
from typing import Any

from miogen.analysis import regexes
from miogen.analysis.model import ConstantPool
from miogen.testcase import ast_nodes

DAY_STEPS = (1, 1, 7, 30, 365)
NAMES = {
    datetime.date: "datetime.date",
    datetime.datetime: "datetime.datetime",
    datetime.time: "datetime.time",
    datetime.timedelta: "datetime.timedelta",
    decimal.Decimal: "decimal.Decimal",
    fractions.Fraction: "fractions.Fraction",
    pathlib.PurePosixPath: "pathlib.PurePosixPath",
    re.Pattern: "re.Pattern",
    re.Match: "re.Match",
    uuid.UUID: "uuid.UUID",
}
PATH_PARTS = ("a", "b", "data", "file.txt", "notes.md", "..", ".hidden", "x.tar.gz")
SAMPLE_PATTERNS = (r"\d+", r"[a-z]+", r"^\w+@\w+\.\w+$", r"a.c", r"(ab)*")


def is_stdlib_value(value: object) -> bool:
    return type(value) in NAMES or isinstance(value, ast.AST)


def sample(name: str, rng: random.Random, pool: ConstantPool) -> object:
    """A value of the named type ("datetime.date", ...), sometimes built from the pool; a
    syntax tree node for "ast.expr" and the like (testcase.ast_nodes), None if none is one."""
    if name.startswith("ast."):
        return ast_nodes.sample(name, rng)
    return _SAMPLERS[name](rng, pool)


def _date(rng: random.Random, pool: ConstantPool) -> datetime.date:
    roll = rng.random()
    if roll < 0.3:  # the calendar's edges: month ends, leap days, the year's turn
        year = rng.choice((1999, 2000, 2023, 2024, 2100))
        leap = calendar.isleap(year)
        month, day = rng.choice(((1, 1), (2, 28), (2, 29) if leap else (3, 1), (12, 31)))
        return datetime.date(year, month, day)
    years = [y for y in pool.ints if 1 <= y <= 9999]
    year = rng.choice(years) if years and roll < 0.4 else rng.randint(1970, 2040)
    return datetime.date(year, 1, 1) + datetime.timedelta(days=rng.randrange(365))


def _datetime(rng: random.Random, pool: ConstantPool) -> datetime.datetime:
    day = _date(rng, pool)
    moment = datetime.datetime(day.year, day.month, day.day, *_clock(rng))
    return moment.replace(tzinfo=datetime.UTC) if rng.random() < 0.2 else moment


def _clock(rng: random.Random) -> tuple[int, int, int]:
    if rng.random() < 0.3:
        return rng.choice(((0, 0, 0), (12, 0, 0), (23, 59, 59)))
    return rng.randrange(24), rng.randrange(60), rng.randrange(60)


def _time(rng: random.Random, pool: ConstantPool) -> datetime.time:
    return datetime.time(*_clock(rng))


def _timedelta(rng: random.Random, pool: ConstantPool) -> datetime.timedelta:
    roll = rng.random()
    if roll < 0.3 and pool.ints:
        return datetime.timedelta(days=max(-999, min(999, rng.choice(pool.ints))))
    if roll < 0.6:
        return datetime.timedelta(days=rng.randint(-10, 400))
    return datetime.timedelta(seconds=rng.randint(-3600, 86400 * 2))


def _decimal(rng: random.Random, pool: ConstantPool) -> decimal.Decimal:
    numbers = [*pool.ints, *pool.floats]
    if numbers and rng.random() < 0.3:
        return decimal.Decimal(str(rng.choice(numbers)))
    if rng.random() < 0.05:
        return decimal.Decimal(rng.choice(("NaN", "Infinity", "-0")))
    return decimal.Decimal(rng.randint(-100000, 100000)).scaleb(-rng.randint(0, 4))


def _fraction(rng: random.Random, pool: ConstantPool) -> fractions.Fraction:
    return fractions.Fraction(rng.randint(-20, 20), rng.randint(1, 12))


def _path(rng: random.Random, pool: ConstantPool) -> pathlib.PurePosixPath:
    parts = [p for p in pool.strings if p and "\x00" not in p and len(p) <= 30]
    chosen = [rng.choice(parts if parts and rng.random() < 0.3 else PATH_PARTS)]
    chosen += [rng.choice(PATH_PARTS) for _ in range(rng.randint(0, 2))]
    root = "/" if rng.random() < 0.3 else ""
    return pathlib.PurePosixPath(root, *chosen)


def _pattern(rng: random.Random, pool: ConstantPool) -> re.Pattern[str]:
    candidates = list(SAMPLE_PATTERNS) + list(pool.strings)
    for _ in range(4):
        try:
            return re.compile(rng.choice(candidates))
        except (re.error, RecursionError, OverflowError):
            continue
    return re.compile(SAMPLE_PATTERNS[0])


def _match(rng: random.Random, pool: ConstantPool) -> re.Match[str]:
    """A match of one of the module's patterns (else a sample pattern's) on a string it
    matches as a whole: an example of the pattern's, now and then a freshly written one."""
    candidates = list(pool.patterns) or [(p, 0) for p in SAMPLE_PATTERNS]
    for _ in range(4):
        pattern, flags = rng.choice(candidates)
        found = _match_of(pattern, flags, rng)
        if found is not None:
            return found
    return re.fullmatch(r"\d+", str(rng.randint(0, 99)))  # type: ignore[return-value]


def _match_of(pattern: str, flags: int, rng: random.Random) -> re.Match[str] | None:
    texts = list(regexes.examples_of(pattern, flags))
    if not texts or rng.random() < 0.3:
        texts += regexes.examples(pattern, flags, rng, 1)
    return re.fullmatch(pattern, rng.choice(texts), flags) if texts else None


def _uuid(rng: random.Random, pool: ConstantPool) -> uuid.UUID:
    return uuid.UUID(int=rng.getrandbits(128), version=4)


_SAMPLERS: dict[str, Callable[[random.Random, ConstantPool], Any]] = {
    "datetime.date": _date,
    "datetime.datetime": _datetime,
    "datetime.time": _time,
    "datetime.timedelta": _timedelta,
    "decimal.Decimal": _decimal,
    "fractions.Fraction": _fraction,
    "pathlib.PurePosixPath": _path,
    "re.Pattern": _pattern,
    "re.Match": _match,
    "uuid.UUID": _uuid,
}


def mutate(value: Any, rng: random.Random, pool: ConstantPool) -> object:
    """A neighbour of ``value``: a day or a month away, one more digit, one more part."""
    kind = type(value)
    if isinstance(value, ast.AST):  # another node of its class
        return ast_nodes.sample(f"ast.{kind.__name__}", rng)
    try:
        if kind is datetime.date or kind is datetime.datetime:
            step = rng.choice(DAY_STEPS) * rng.choice((-1, 1))
            return value + datetime.timedelta(days=step)
        if kind is datetime.time:
            return _time(rng, pool)
        if kind is datetime.timedelta:
            return value + datetime.timedelta(days=rng.choice((-1, 1)) * rng.choice(DAY_STEPS))
        if kind is decimal.Decimal:
            if not value.is_finite():
                return _decimal(rng, pool)
            return value + decimal.Decimal(rng.choice((-1, 1))).scaleb(-rng.randint(0, 3))
        if kind is fractions.Fraction:
            numerator = value.numerator + rng.choice((-1, 1))
            return fractions.Fraction(numerator, max(1, value.denominator + rng.choice((-1, 0, 1))))
        if kind is pathlib.PurePosixPath:
            if value.parts and rng.random() < 0.5:
                return value.parent
            return value / rng.choice(PATH_PARTS)
        if kind is re.Match and isinstance(value.re.pattern, str) and rng.random() < 0.7:
            other = _match_of(value.re.pattern, value.re.flags, rng)  # the same pattern
            return other if other is not None else value
    except (OverflowError, ValueError, ArithmeticError):
        pass
    return sample(NAMES[kind], rng, pool)


def key(value: Any) -> object:
    """What tells two stdlib values apart in a test (``Decimal("1.10") == Decimal("1.1")``,
    but they read apart; a match is its pattern and string)."""
    if isinstance(value, re.Match):
        return (value.re.pattern, value.re.flags, value.string)
    if isinstance(value, ast.AST):  # its repr has its address
        return ast.dump(value)
    return repr(value)


def encode(value: Any) -> dict[str, object] | None:
    """A JSON form for a stdlib value, or None when ``value`` is not one."""
    if isinstance(value, ast.AST):
        origin = ast_nodes.encode(value)
        return None if origin is None else {"stdlib": "ast", "data": origin}
    name = NAMES.get(type(value))
    if name is None:
        return None
    if isinstance(value, datetime.timedelta):
        data: object = [value.days, value.seconds, value.microseconds]
    elif isinstance(value, datetime.date | datetime.time):
        data = value.isoformat()
    elif isinstance(value, re.Pattern):
        data = [value.pattern, value.flags]
    elif isinstance(value, re.Match):
        data = [value.re.pattern, value.re.flags, value.string]
    else:
        data = str(value)
    return {"stdlib": name, "data": data}


def decode(data: dict[str, Any]) -> object:
    name, payload = data["stdlib"], data["data"]
    if name == "ast":
        return ast_nodes.decode(payload)
    if name == "datetime.timedelta":
        return datetime.timedelta(*payload)
    if name == "re.Pattern":
        return re.compile(payload[0], payload[1])
    if name == "re.Match":
        return re.fullmatch(payload[0], payload[2], payload[1])
    builders: dict[str, Callable[[Any], object]] = {
        "datetime.date": datetime.date.fromisoformat,
        "datetime.datetime": datetime.datetime.fromisoformat,
        "datetime.time": datetime.time.fromisoformat,
        "decimal.Decimal": decimal.Decimal,
        "fractions.Fraction": fractions.Fraction,
        "pathlib.PurePosixPath": pathlib.PurePosixPath,
        "uuid.UUID": uuid.UUID,
    }
    return builders[name](payload)
