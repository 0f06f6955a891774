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

from miogen.instrument import distances

Probe = tuple[Any, float, float]  # (value, distance to true, distance to false)

K = 1.0  # the constant of the Korel/Tracey distance table (digest section 0)
NUMBERS = (int, float)
SIZED = (str, bytes, list, tuple, dict, set, frozenset, range)

# line -> [best distance to true, best distance to false] for the current execution
DISTANCES: dict[int, list[float]] = {}
# (line, outcome) of every branch taken in the current execution; (line, None) for function
# entries. A dict for its order: the first time each was taken (which statement of the test
# took a branch first, ``Execution.first_hits``).
HITS: dict[tuple[int, bool | None], None] = {}


def reset() -> None:
    DISTANCES.clear()
    HITS.clear()


def hit(line: int, outcome: bool | None) -> None:
    HITS[line, outcome] = None


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
    HITS[line, value] = None
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
        distance = _distance(op, left, right, result)
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
    """``a and b``. Distances of the operands are normalised (d / (d + 1)) before they add up:
    with raw distances, ``s.startswith("AB-") and len(s) == 7`` would score "A" (prefix 2 away,
    plus one for the length never looked at) nearer than "AB-" (prefix right, length 4 away)."""
    if not left[0]:
        return (False, _normalised(left[1]) + K, 0.0)
    right = right_thunk()
    return (right[0], _normalised(right[1]), _normalised(min(left[2], right[2])))


def or_(left: Probe, right_thunk: Callable[[], Probe]) -> Probe:
    if left[0]:
        return (True, 0.0, _normalised(left[2]) + K)
    right = right_thunk()
    return (right[0], _normalised(min(left[1], right[1])), _normalised(right[2]))


def _normalised(distance: float) -> float:
    return distance / (distance + 1.0)


def not_(inner: Probe) -> Probe:
    return (not inner[0], inner[2], inner[1])


def _finite(value: float) -> float:
    if value != value or value == math.inf:  # nan, inf: far, but still "reached"
        return 1e300
    try:
        return float(value)
    except OverflowError:  # an int past float's range (10**400): as far as infinity
        return 1e300


def _distance(op: str, left: Any, right: Any, result: bool) -> float:
    """Distance to flip the comparison's outcome (Korel/Tracey, digest section 0)."""
    if type(left) in NUMBERS and type(right) in NUMBERS:
        gap = _finite(abs(left - right))
        if op in ("==", "!="):
            return gap if gap else K
        if op in ("<", ">="):
            return gap + (K if (op == "<") == (left < right) else 0.0)
        return gap + (K if (op == "<=") == (left <= right) else 0.0)
    if op in ("==", "!=") and type(left) is str and type(right) is str:
        return distances.string_distance(left, right) or K
    if op in ("in", "not in"):
        contained = (op == "in") == result
        # Making `x in c` true takes the nearest element; making it false, one edit.
        found = None if contained else distances.membership_distance(left, right)
        return _finite(found) if found is not None else K
    return K


def call(
    function: Callable[..., object], /, *args: object, **kwargs: object
) -> tuple[bool, float, float]:
    """A call in a condition (``s.startswith(p)``, ``re.match(r, s)``): called exactly once."""
    result = bool(function(*args, **kwargs))
    try:
        distance = None if result else distances.call_distance(function, args, kwargs)
    except Exception:  # noqa: BLE001 - never let a distance change what the code does
        distance = None
    to_true = K if distance is None else _finite(distance)
    return (result, 0.0, K) if result else (result, to_true, 0.0)
