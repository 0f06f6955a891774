"""What counted code calls at run time: statement counters and weak-mutation infection probes.

Kept apart from ``runtime`` (branch distances): instrumented code reaches this module as
``__miogen_tally__``. ``COUNTS[site]`` is how often statement ``site`` started in the current
test; ``INFECTIONS[mutant]`` is the smallest infection distance a mutant of the unit saw (0: the
mutated expression would have produced another value, EvoSuite's weak-mutation kill; infinity:
reached, but never with operands it could judge). Both are replaced, not cleared, by ``reset``,
so an execution record may keep them without a copy.

Infection distances are computed only from builtin values (numbers, strings, bytes, sets), like
branch distances: no user ``__eq__`` or ``__add__`` runs an extra time.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

K = 1.0  # as in runtime: the distance of "not infected, no gradient known"
MAX_INT_BITS = 4096  # operands larger than this are not recomputed (a mutant's a*b could hang)
MAX_PENDING = 64  # left operands kept per site (recursion); more means chains cut short

COUNTS: list[int] = []
INFECTIONS: dict[int, float] = {}
_sites_total = 0

NUMBERS = (int, float, bool)
BUILTIN_SCALARS = (int, float, bool, str, bytes, type(None))
BUILTIN_OPERANDS = (int, float, bool, str, bytes, frozenset, set)


@dataclass(frozen=True, slots=True)
class Mutation:
    """One mutant at a probed site: ``operator`` of position ``position`` becomes ``replacement``."""

    mutant: int  # the mutant's index (assertions.mutants numbering)
    kind: str  # "compare" | "binary" | "boolean"
    position: int  # compare: which operator of a chain; binary and boolean: 0
    original: str  # operator name, e.g. "Lt", "Add", "And"
    replacement: str


class Site:
    """One probed expression: how many operands it has and its mutants, by operator position."""

    __slots__ = ("operands", "kind", "mutants", "by_position", "pending")

    def __init__(self, operands: int, mutations: tuple[Mutation, ...]) -> None:
        self.operands = operands
        self.kind = mutations[0].kind
        self.mutants = tuple(dict.fromkeys(m.mutant for m in mutations))
        positions = max(1, operands - 1)
        self.by_position = tuple(
            tuple(m for m in mutations if m.position == p) for p in range(positions)
        )
        self.pending: list[Any] = []  # left operands waiting for their right one (recursion)


SITES: list[Site] = []
_touched: set[int] = set()  # sites that may hold pending operands, cleared by reset


def register_statements(count: int) -> int:
    """Reserve ``count`` statement counters; returns the first one's index."""
    global _sites_total
    start = _sites_total
    _sites_total += count
    reset()
    return start


def register_site(operands: int, mutations: tuple[Mutation, ...]) -> int:
    """Register one probed expression with its mutants; returns the site's id."""
    SITES.append(Site(operands, mutations))
    return len(SITES) - 1


def reset() -> None:
    """A fresh tally for the next test (new objects: the last execution may keep the old ones)."""
    global COUNTS, INFECTIONS
    COUNTS = [0] * _sites_total
    INFECTIONS = {}
    for site in _touched:
        SITES[site].pending.clear()
    _touched.clear()


def operand(site: int, position: int, value: object) -> object:
    """Note operand ``position`` of a probed expression; returns ``value`` unchanged.

    Operands arrive in evaluation order. A compare or binary site is judged as soon as both
    sides of an operator are known; a boolean site once its last operand arrives (if it does:
    ``a and b`` with a falsy ``a`` never evaluates ``b``, and what the mutant ``a or b`` would
    do then cannot be known without running ``b``, so such a run only counts as reaching it).
    """
    probed = SITES[site]
    pending = probed.pending
    if position == 0:
        if site not in _touched:
            _touched.add(site)
            for mutant in probed.mutants:
                if mutant not in INFECTIONS:
                    INFECTIONS[mutant] = math.inf  # reached; judged once its operands are known
        elif len(pending) >= MAX_PENDING:
            del pending[0]
        pending.append([value] if probed.kind == "boolean" else value)
        return value
    if not pending:
        return value
    if probed.kind == "boolean":
        values = pending[-1]
        values.append(value)
        if position == probed.operands - 1:
            pending.pop()
            _judge_boolean(probed.by_position[0], values)
        return value
    left = pending.pop()
    if position < probed.operands - 1:
        pending.append(value)  # the next operator of a chain compares against this one
    _judge(probed.by_position[position - 1], left, value)
    return value


def _record(mutant: int, distance: float) -> None:
    if distance < INFECTIONS.get(mutant, math.inf):
        INFECTIONS[mutant] = distance


def _judge(mutations: tuple[Mutation, ...], left: object, right: object) -> None:
    left_type, right_type = type(left), type(right)
    if left_type not in BUILTIN_OPERANDS or right_type not in BUILTIN_OPERANDS:
        return
    if _too_big(left) or _too_big(right):
        return
    infections = INFECTIONS
    if mutations[0].kind == "compare" and left_type in NUMBERS and right_type in NUMBERS:
        _judge_numbers(mutations, difference(left, right))  # type: ignore[arg-type]
        return
    for mutation in mutations:
        mutant = mutation.mutant
        if infections.get(mutant) == 0.0:
            continue  # already infected in this test: nothing to learn
        if mutation.kind == "compare":
            _record(mutant, compare_infection(mutation, left, right))
        else:
            _record(mutant, binary_infection(mutation, left, right))


def _judge_numbers(mutations: tuple[Mutation, ...], difference: float) -> None:
    """``compare_infection`` for numbers, for all mutants of one operator at once (hot path)."""
    if difference != difference:
        return  # nan: reached, no comparison differs
    sign = (difference > 0) - (difference < 0)
    size = abs(difference)
    infections = INFECTIONS
    for mutation in mutations:
        differing = _DIFFERING[mutation.original, mutation.replacement]
        if sign in differing:
            infections[mutation.mutant] = 0.0
            continue
        distance = size if 0 in differing else size + K
        if distance < infections.get(mutation.mutant, math.inf):
            infections[mutation.mutant] = distance


def difference(left: float, right: float) -> float:
    """``left - right`` as a float, within +-1e300: an int of more than 1,024 bits (``10**400``)
    does not convert to a float, and the OverflowError would surface in the user's code as if
    it raised there (a test expecting it fails under pytest, where nothing is instrumented).

    >>> difference(5, 3), difference(10**400 + 1, 10**400), difference(10**400, 0.5)
    (2.0, 1.0, 1e+300)
    """
    try:
        return float(left) - float(right)
    except OverflowError:
        pass
    try:
        return float(left - right)
    except OverflowError:
        return 1e300 if left > right else -1e300


def _too_big(value: object) -> bool:
    return type(value) is int and value.bit_length() > MAX_INT_BITS


# ---------------------------------------------------------------- relational (ROR)

# Which signs of left - right make each comparison true.
_TRUE_FOR = {
    "Lt": {-1},
    "LtE": {-1, 0},
    "Gt": {1},
    "GtE": {0, 1},
    "Eq": {0},
    "NotEq": {-1, 1},
}
# Signs of left - right on which two comparisons disagree.
_DIFFERING = {(a, b): _TRUE_FOR[a] ^ _TRUE_FOR[b] for a in _TRUE_FOR for b in _TRUE_FOR}
_COMPARE: dict[str, Callable[[Any, Any], object]] = {
    "Lt": operator.lt,
    "LtE": operator.le,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Eq": operator.eq,
    "NotEq": operator.ne,
}


def compare_infection(mutation: Mutation, left: object, right: object) -> float:
    """Distance to a state where ``left op right`` and ``left op' right`` differ (0: they do).

    For numbers, the two operators disagree on some signs of ``left - right``; the distance is
    how far the difference is from the nearest such sign (``|d|`` to 0, ``K`` past it to the
    other side), the same scale as branch distances. Other builtin values only say whether the
    two results differ.

    >>> compare_infection(Mutation(0, "compare", 0, "Lt", "LtE"), 3, 5)  # infected iff a == b
    2.0
    >>> compare_infection(Mutation(0, "compare", 0, "Lt", "NotEq"), 3, 5)  # iff a > b
    3.0
    """
    if type(left) in NUMBERS and type(right) in NUMBERS:
        gap = difference(left, right)  # type: ignore[arg-type]
        if gap != gap:  # nan: no comparison is true, none differs
            return K
        differing = _DIFFERING[mutation.original, mutation.replacement]
        sign = (gap > 0) - (gap < 0)
        if sign in differing:
            return 0.0
        # Not there yet: |d| away from d == 0, one K further to the other side of it.
        return abs(gap) if 0 in differing else abs(gap) + K
    original = _outcome(_COMPARE[mutation.original], left, right)
    mutated = _outcome(_COMPARE[mutation.replacement], left, right)
    return K if _same(original, mutated) else 0.0  # a raise on one side only differs too


# ---------------------------------------------------------------- arithmetic and bitwise (AOR, BOR)

_BINARY: dict[str, Callable[[Any, Any], object]] = {
    "Add": operator.add,
    "Sub": operator.sub,
    "Mult": operator.mul,
    "Div": operator.truediv,
    "FloorDiv": operator.floordiv,
    "Mod": operator.mod,
    "BitAnd": operator.and_,
    "BitOr": operator.or_,
    "BitXor": operator.xor,
}


def binary_infection(mutation: Mutation, left: object, right: object) -> float:
    """0 when ``left op' right`` differs from ``left op right`` (a value or a raise), else K.

    The regions where two arithmetic operators agree are thin (``b == 0`` for + and -, the
    points 0 and 2 for + and *), so there is no gradient worth computing: K means "reached".

    >>> binary_infection(Mutation(0, "binary", 0, "Add", "Sub"), 4, 0)
    1.0
    >>> binary_infection(Mutation(0, "binary", 0, "Add", "Sub"), 4, 1)
    0.0
    """
    if isinstance(left, str | bytes) and mutation.replacement == "Mult":
        return 0.0  # str * str raises; str * int would build a huge string: it differs anyway
    original = _outcome(_BINARY[mutation.original], left, right)
    mutated = _outcome(_BINARY[mutation.replacement], left, right)
    return K if _same(original, mutated) else 0.0


def _outcome(function: Callable[[Any, Any], object], left: object, right: object) -> object:
    """The value ``function`` returns, or the class of the exception it raises."""
    try:
        return function(left, right)
    except Exception as error:  # noqa: BLE001 - a raise is an outcome like a value
        return type(error)


def _same(first: object, second: object) -> bool:
    """Same type and equal, nan equal to nan (an assertion could not tell them apart)."""
    if type(first) is not type(second):
        return False
    return bool(first == second) or (first != first and second != second)


# ---------------------------------------------------------------- logical connectors (LCR)


def _judge_boolean(mutations: tuple[Mutation, ...], values: list[object]) -> None:
    """All operands of ``a and b ...`` ran: the original gave the last, the mutant the first truthy."""
    if not all(type(value) in BUILTIN_SCALARS for value in values):
        return
    for mutation in mutations:
        if mutation.original == "And":
            mutated = next((v for v in values if v), values[-1])
        else:
            mutated = next((v for v in values if not v), values[-1])
        same = type(mutated) is type(values[-1]) and mutated == values[-1]
        _record(mutation.mutant, K if same else 0.0)
