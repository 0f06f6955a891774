"""Probes that instrumented code calls: they return the plain result and record branch distances.

Every probe evaluates exactly what the original expression evaluated, in the same order, calling
``bool()`` once where the original did; distances are computed only from builtin values so that no
user ``__len__``/``__eq__`` runs an extra time. A probe result inside a condition is a tuple
``(value, distance_to_true, distance_to_false)``; ``branch`` records it for the statement's line and
returns the bare value.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

Probe = tuple[Any, float, float]  # (value, distance to true, distance to false)

K = 1.0  # the constant of the Korel/Tracey distance table (digest section 0)
NUMBERS = (int, float)
SIZED = (str, bytes, list, tuple, dict, set, frozenset, range)
MAX_SCAN = 256  # elements looked at for the distance of `x in container`

# line -> [best distance to true, best distance to false] for the current execution
DISTANCES: dict[int, list[float]] = {}
# (line, outcome) of every branch taken in the current execution; (line, None) for function entries
HITS: set[tuple[int, bool | None]] = set()


def reset() -> None:
    DISTANCES.clear()
    HITS.clear()


def hit(line: int, outcome: bool | None) -> None:
    HITS.add((line, outcome))


OPERATORS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "is": operator.is_,
    "is not": operator.is_not,
}


def branch(line: int, probe: Probe) -> Any:
    value, to_true, to_false = probe
    HITS.add((line, value))
    best = DISTANCES.get(line)
    if best is None:
        DISTANCES[line] = [to_true, to_false]
    else:
        if to_true < best[0]:
            best[0] = to_true
        if to_false < best[1]:
            best[1] = to_false
    return value


def loop(line: int, iterable: Any) -> Any:
    """The iterable of a for loop, unchanged; records whether the loop can be entered."""
    if type(iterable) in SIZED:
        size = len(iterable)
        _record(line, 0.0 if size else K, K)
    return iterable


def _record(line: int, to_true: float, to_false: float) -> None:
    best = DISTANCES.get(line)
    if best is None:
        DISTANCES[line] = [to_true, to_false]
    else:
        best[0] = min(best[0], to_true)
        best[1] = min(best[1], to_false)


def truth(value: Any) -> Probe:
    result = bool(value)
    kind = type(value)
    if kind in NUMBERS or kind is bool:
        magnitude = _finite(abs(value))
        return (result, 0.0, magnitude) if result else (result, K, 0.0)
    if kind in SIZED:
        return (result, 0.0, float(len(value))) if result else (result, K, 0.0)
    return (result, 0.0, K) if result else (result, K, 0.0)


def compare(op: str, left: Any, right: Any) -> Probe:
    result = bool(OPERATORS[op](left, right))
    try:
        distance = _distance(op, left, right)
    except Exception:  # noqa: BLE001 - a user type's arithmetic failed: fall back to K
        distance = K
    return (result, 0.0, distance) if result else (result, distance, 0.0)


def chain(ops: tuple[str, ...], first: Any, *rest: Callable[[], Any]) -> Probe:
    """``a < b < c``: operands after the first arrive as thunks, evaluated only as far as needed."""
    left = first
    to_false = math.inf
    for index, op in enumerate(ops):
        right = rest[index]()
        value, to_true, to_false_here = compare(op, left, right)
        if not value:
            return (False, to_true + K * (len(ops) - index - 1), 0.0)
        to_false = min(to_false, to_false_here)
        left = right
    return (True, 0.0, to_false)


def and_(left: Probe, right_thunk: Callable[[], Probe]) -> Probe:
    if not left[0]:
        return (False, left[1] + K, 0.0)
    right = right_thunk()
    return (right[0], right[1], min(left[2], right[2]))


def or_(left: Probe, right_thunk: Callable[[], Probe]) -> Probe:
    if left[0]:
        return (True, 0.0, left[2] + K)
    right = right_thunk()
    return (right[0], min(left[1], right[1]), right[2])


def not_(inner: Probe) -> Probe:
    return (not inner[0], inner[2], inner[1])


def _finite(value: float) -> float:
    if value != value or value == math.inf:  # nan, inf: far, but still "reached"
        return 1e300
    return float(value)


def _distance(op: str, left: Any, right: Any) -> float:
    """Distance to flip the comparison's outcome (Korel/Tracey, digest section 0)."""
    if type(left) in NUMBERS and type(right) in NUMBERS:
        gap = _finite(abs(left - right))
        if op in ("==", "!="):
            return gap if gap else K
        if op in ("<", ">="):
            return gap + (K if (op == "<") == (left < right) else 0.0)
        return gap + (K if (op == "<=") == (left <= right) else 0.0)
    if op in ("==", "!=") and type(left) is str and type(right) is str:
        return _string_distance(left, right) or K
    if op in ("in", "not in") and type(right) in SIZED and type(left) in NUMBERS:
        gaps = [abs(left - x) for x in list(right)[:MAX_SCAN] if type(x) in NUMBERS]
        return _finite(min(gaps)) + K if gaps else K
    if op in ("in", "not in") and type(right) is str and type(left) is str:
        return float(max(1, len(left) - len(right))) if left not in right else float(len(left) or K)
    return K


def _string_distance(a: str, b: str) -> float:
    differing = sum(1.0 - 1.0 / (1.0 + abs(ord(x) - ord(y))) for x, y in zip(a, b, strict=False))
    return differing + abs(len(a) - len(b))
