"""Branch distances for string and container conditions (digest section 0, extended to strings).

``s.startswith(p)``: how far ``s``'s first ``len(p)`` characters are from ``p`` (and how many are
missing); ``s.isdigit()``: the characters that are not digits; ``re.match(r, s)``: the edits that
make ``s`` match a simple pattern (analysis.patterns); ``k in d``: how far ``k`` is from the
nearest key. Only builtin values are looked at, so no user ``__eq__`` or ``__len__`` runs.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable
from typing import Any, cast

from miogen.analysis import patterns

K = 1.0
MAX_SCAN = 256  # elements, or positions of a substring, looked at
NUMBERS = (int, float)
MEMBERSHIP: tuple[type, ...] = (
    str,
    bytes,
    list,
    tuple,
    dict,
    set,
    frozenset,
    type({}.keys()),
    type({}.values()),
)

_ALL_CHARACTERS: dict[str, Callable[[str], bool]] = {
    "isdigit": str.isdigit,
    "isalpha": str.isalpha,
    "isalnum": str.isalnum,
    "isspace": str.isspace,
    "isdecimal": str.isdecimal,
    "isnumeric": str.isnumeric,
}
_REGEX_FUNCTIONS: dict[Any, patterns.Mode] = {
    re.match: "match",
    re.fullmatch: "fullmatch",
    re.search: "search",
}


def string_distance(a: str, b: str) -> float:
    """Per position 1 - 1/(1 + |code difference|), plus the difference in length."""
    differing = sum(1.0 - 1.0 / (1.0 + abs(ord(x) - ord(y))) for x, y in zip(a, b, strict=False))
    return differing + abs(len(a) - len(b))


def call_distance(function: object, args: tuple[Any, ...], kwargs: dict[str, Any]) -> float | None:
    """Distance to making a recognised call's result truthy; None for calls it does not know."""
    owner = getattr(function, "__self__", None)
    name = getattr(function, "__name__", "")
    if type(function) is types.BuiltinMethodType and type(owner) is str and not kwargs:
        if name in ("startswith", "endswith") and len(args) == 1:
            return _affix_distance(owner, args[0], name == "startswith")
        if not args:
            return _predicate_distance(owner, name)
        return None
    if type(owner) is re.Pattern and name in ("match", "fullmatch", "search"):
        if len(args) == 1 and not kwargs and type(args[0]) is str:
            return _regex_distance(owner.pattern, owner.flags, args[0], cast(patterns.Mode, name))
        return None
    mode: patterns.Mode | None = _REGEX_FUNCTIONS.get(function) if _hashable(function) else None
    if mode is not None and len(args) >= 2 and type(args[1]) is str:
        flags = args[2] if len(args) > 2 else kwargs.get("flags", 0)
        pattern = args[0]
        if type(pattern) is re.Pattern:
            pattern, flags = pattern.pattern, pattern.flags | flags
        if type(pattern) is str and type(flags) in (int, re.RegexFlag):
            return _regex_distance(pattern, int(flags), args[1], mode)
    return None


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _affix_distance(text: str, affix: object, at_start: bool) -> float | None:
    options = affix if type(affix) is tuple else (affix,)
    if not options or not all(type(o) is str for o in options):
        return None
    distances = []
    for option in options:
        part = text[: len(option)] if at_start else text[len(text) - len(option) :]
        distances.append(string_distance(part, option))
    return min(distances) or K


def _predicate_distance(text: str, name: str) -> float | None:
    if name in _ALL_CHARACTERS:
        test = _ALL_CHARACTERS[name]
        return float(sum(not test(c) for c in text)) or K
    if name == "isascii":
        return float(sum(not c.isascii() for c in text)) or K
    if name in ("isupper", "islower"):
        wrong = sum(c.islower() if name == "isupper" else c.isupper() for c in text)
        cased = any(c.isupper() or c.islower() for c in text)
        return float(wrong + (0 if cased else K)) or K
    return None


def _regex_distance(pattern: str, flags: int, text: str, mode: patterns.Mode) -> float | None:
    shape = patterns.shape_of(pattern, flags)
    if shape is None:
        return None
    return patterns.distance(shape, text, mode) or K


def membership_distance(item: object, container: object) -> float | None:
    """Distance to ``item in container`` being true, for builtin items and containers."""
    kind = type(container)
    if kind not in MEMBERSHIP:
        return None
    if isinstance(item, str) and isinstance(container, str) and type(item) is str:
        return _substring_distance(item, container)
    if kind in (str, bytes):
        return None
    elements = list(cast(Iterable[Any], container))[:MAX_SCAN]
    if isinstance(item, int | float) and type(item) in NUMBERS:
        gaps = [abs(item - x) for x in elements if type(x) in NUMBERS]
        return min(gaps) + K if gaps else None
    if type(item) is str:
        gaps = [string_distance(item, x) for x in elements if type(x) is str]
        return (min(gaps) or K) if gaps else None
    return None


def _substring_distance(needle: str, haystack: str) -> float:
    if len(needle) >= len(haystack):
        return string_distance(haystack, needle) or K
    windows = range(min(len(haystack) - len(needle) + 1, MAX_SCAN))
    return min(string_distance(haystack[i : i + len(needle)], needle) for i in windows) or K
