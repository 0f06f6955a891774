"""Output coverage's categories for Python values, and how close a value is to each one.

Families (digest sec. 5.5): bool -> true/false; int and float -> negative/zero/positive;
str, bytes, list, tuple, dict, set and frozenset -> empty/non-empty; Optional -> none/not-none.
Only builtin types count (exact ``type()``), so no user ``__len__`` or ``__lt__`` runs.
"""

from __future__ import annotations

import math

from miogen.analysis.typespec import TypeSpec

K = 1.0
BOOLEAN = ("true", "false")
NUMBER = ("negative", "zero", "positive")
SIZED = ("empty", "non-empty")
OPTIONAL = ("none", "not-none")
SIZED_TYPES = (str, bytes, list, tuple, dict, set, frozenset)
_SIZED_KINDS = {"str", "bytes", "list", "dict", "set"}


def declared_families(spec: TypeSpec) -> tuple[str, ...] | None:
    """The categories a return annotation promises; None when there is no annotation (``any``).

    A class, a complex number, a fixed-length tuple or ``None`` alone promise none: an object
    that can never be None, or a value with no categories of its own.

    >>> declared_families(TypeSpec("union", (TypeSpec("int"), TypeSpec("none"))))
    ('negative', 'zero', 'positive', 'none', 'not-none')
    """
    if spec.kind == "any":
        return None
    members = spec.args if spec.kind == "union" else (spec,)
    found: list[str] = []
    for member in members:
        found += _family(member)
    if spec.kind == "union" and any(m.kind == "none" for m in members):
        found += OPTIONAL
    return tuple(dict.fromkeys(found))


def _family(spec: TypeSpec) -> tuple[str, ...]:
    if spec.kind == "bool":
        return BOOLEAN
    if spec.kind in ("int", "float"):
        return NUMBER
    if spec.kind in _SIZED_KINDS or (spec.kind == "tuple" and (spec.variadic or not spec.args)):
        return SIZED
    return ()


def observed_families(value: object) -> tuple[str, ...]:
    """The categories a returned value shows there are, for callables without an annotation.

    >>> observed_families(3), observed_families(None), observed_families(object())
    (('negative', 'zero', 'positive'), ('none', 'not-none'), ())
    """
    kind = type(value)
    if kind is bool:
        return BOOLEAN
    if kind in (int, float):
        return NUMBER
    if kind in SIZED_TYPES:
        return SIZED
    if value is None:
        return OPTIONAL
    return ()


def category_h(category: str, value: object) -> float:
    """h of ``value`` for ``category``: 1 inside it, ``0.5/(1+d)`` at distance d, 0 if unrelated.

    >>> category_h("zero", 0), category_h("zero", 3), category_h("positive", -1)
    (1.0, 0.125, 0.16666666666666666)
    """
    distance = _distance(category, value)
    if distance is None:
        return 0.0
    return 1.0 if distance == 0 else 0.5 / (1.0 + distance)


def _distance(category: str, value: object) -> float | None:
    kind = type(value)
    if category in OPTIONAL:
        return 0.0 if (value is None) == (category == "none") else K
    if category in BOOLEAN:
        return (0.0 if value is (category == "true") else K) if kind is bool else None
    if category in NUMBER:
        if kind not in (int, float) or (kind is float and math.isnan(value)):  # type: ignore[arg-type]
            return None
        return _number_distance(category, _bounded(value))  # type: ignore[arg-type]
    if category in SIZED and kind in SIZED_TYPES:
        size = len(value)  # type: ignore[arg-type]
        return float(size) if category == "empty" else (0.0 if size else K)
    return None


def _bounded(value: float) -> float:
    """``value`` as a float within +-1e300: an int past float's range (``10**400``) would raise
    OverflowError here, in the middle of the user's code, where the uninstrumented code does not.

    >>> _bounded(-(10**400)), _bounded(float("inf")), _bounded(3)
    (-1e+300, 1e+300, 3.0)
    """
    try:
        number = float(value)
    except OverflowError:
        return 1e300 if value > 0 else -1e300
    return number if math.isfinite(number) else math.copysign(1e300, number)


def _number_distance(category: str, number: float) -> float:
    if category == "zero":
        return abs(number)
    if category == "negative":
        return 0.0 if number < 0 else number + K
    return 0.0 if number > 0 else -number + K
