"""Shrinking a test under a stated simplicity order, with deterministic passes (Hypothesis-style).

Simplicity order: fewer call statements first, then fewer statements, then simpler values (numbers
closer to 0 and of smaller magnitude, fewer decimals; floats toward 0.0, 1.0 and 0.5; shorter
strings, plain lowercase ones before ones with capitals, punctuation or other characters, and a
short word of the module's own, its constants and names, before fuzz; shorter collections). Every step
is kept only if the test still covers the targets it is in the suite for, and still runs as far as
it did (a test that started raising earlier would test something else). Executions go through the
CoverageCache, so no candidate runs twice; the whole phase stops at a deadline.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from miogen.minimize.cost import CostOf, weight
from miogen.minimize.readable import NumberKind, numbers_for_bools
from miogen.minimize.reduce import CoverageCache, ReducedTest, remove_statements_pass
from miogen.testcase.model import CALLS, Statement, TestCase, drop_unused_values

MAX_PAIRED = 6  # numbers of a test the pair pass looks at (it tries every pair)
PLAIN_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789 ")
MAX_WORDS = 6  # words of the module a string is tried as (each try is a run)


def value_cost(value: object) -> float:
    if isinstance(value, bool) or value is None:
        return 0.0
    if isinstance(value, int):
        return math.log2(abs(value) + 1)
    if isinstance(value, float):
        if not math.isfinite(value):
            return 64.0
        digits = len(repr(value).rstrip("0").split(".")[-1]) if "." in repr(value) else 0
        return math.log2(abs(value) + 1) + digits + (0 if value.is_integer() else 1)
    if isinstance(value, str):
        return float(len(value) + sum(1 for c in value if c not in PLAIN_CHARACTERS))
    if isinstance(value, bytes):
        return float(len(value))
    return 8.0


def simplicity(test: TestCase) -> tuple[int, int, float]:
    """The order shrinking moves down: (calls, statements, value cost)."""
    calls = sum(1 for s in test if s.kind in CALLS)
    collection_items = sum(len(s.args) for s in test if s.kind in ("list", "tuple", "set", "dict"))
    values = sum(value_cost(s.value) for s in test if s.kind == "value") + collection_items
    return calls, len(test), values


@dataclass
class ShrinkStats:
    attempts: dict[str, int] = field(default_factory=dict)
    successes: dict[str, int] = field(default_factory=dict)

    def record(self, name: str, success: bool) -> None:
        self.attempts[name] = self.attempts.get(name, 0) + 1
        if success:
            self.successes[name] = self.successes.get(name, 0) + 1


class Shrinker:
    """Runs the passes in order until none makes progress or the deadline passes."""

    def __init__(
        self,
        coverage: CoverageCache,
        deadline: float,
        numbers: NumberKind | None = None,
        cost: CostOf | None = None,
        words: tuple[str, ...] = (),
    ) -> None:
        """``numbers`` tells which values go to number parameters (see ``readable``); with
        ``cost`` (the test's performance proxies) a step that makes the test costlier, by
        ``minimize.cost.weight``, is refused: a simpler loop bound is welcome, a simpler value
        that makes a series converge slower is not. ``words`` (readable.module_words) are what
        a string may become besides shorter: the module's own short words."""
        self.coverage = coverage
        self.deadline = deadline
        self.numbers = numbers
        self.cost = cost
        self.words = tuple(sorted(set(words), key=lambda w: (value_cost(w), w)))
        self.stats = ShrinkStats()

    def plain(self, reduced: ReducedTest) -> ReducedTest:
        """Only the first pass, all values plain at once (``_plain``): a few runs a test, so
        that every test of a unit gets it before any test gets the rest."""
        test = self._first_accepted(
            "plain", reduced.test, reduced.targets, self._plain(reduced.test)
        )
        return reduced if test is None else ReducedTest(test, reduced.targets, reduced.parts)

    def shrink(self, reduced: ReducedTest) -> ReducedTest:
        reduced = remove_statements_pass(reduced, self.coverage, self.deadline)
        test = reduced.test
        if self.numbers is not None:  # not simpler, but read as the code takes them
            for candidate in list(numbers_for_bools(test, self.numbers)):
                improved = self._first_accepted("readable", test, reduced.targets, [candidate])
                test = improved or test
        plain = self._first_accepted("plain", test, reduced.targets, self._plain(test))
        test = plain or test
        progress = True
        while progress and time.monotonic() < self.deadline:
            progress = False
            for name, candidates in (
                ("arguments", self._arguments),
                ("numbers", self._numbers),
                ("pairs", self._pairs),
                ("together", self._together),
                ("strings", self._strings),
                ("collections", self._collections),
            ):
                # Each pass to its own fixpoint: a success does not restart the earlier
                # passes, whose candidates mostly failed for the same reason again.
                while (
                    improved := self._first_accepted(name, test, reduced.targets, candidates(test))
                ) is not None:
                    test, progress = improved, True
        return ReducedTest(test, reduced.targets)

    def _first_accepted(
        self,
        name: str,
        test: TestCase,
        targets: frozenset[Hashable],
        candidates: Iterable[TestCase],
    ) -> TestCase | None:
        for candidate in candidates:
            if time.monotonic() >= self.deadline:
                return None
            if simplicity(candidate) >= simplicity(test) and name != "readable":
                continue
            executed, covered = self.coverage(candidate)
            accepted = targets <= covered and len(executed) == len(candidate)
            if accepted and self.cost is not None:
                accepted = weight(self.cost(executed)) <= weight(self.cost(test))
            self.stats.record(name, accepted)
            if accepted:
                return candidate
        return None

    def _plain(self, test: TestCase) -> Iterator[TestCase]:
        """Every value at once as a plain one, from the plainest: a test found by search often
        carries many values that its targets do not depend on (``Calendar(firstweekday=
        1416707424)``), and one run that makes them all plain saves a run per value and step.
        The values become 0 and empties, else small ones of the same sign (1, -1, 0.5, a
        short word), else the same rounded (2 significant digits, fewer decimals)."""
        for level in range(len(_PLAIN_LEVELS)):
            candidate = test
            for index, statement in enumerate(test):
                if statement.kind != "value":
                    continue
                plain = _plain_value(statement.value, level, self.words)
                if plain is not _NONE and value_cost(plain) < value_cost(statement.value):
                    candidate = _replace(candidate, index, Statement("value", value=plain))
            if candidate != test:
                yield candidate

    def _arguments(self, test: TestCase) -> Iterator[TestCase]:
        """Leave out an argument (one with a default: without it the call raises TypeError)."""
        for index, statement in enumerate(test):
            if statement.kind not in ("construct", "call", "method"):
                continue
            for position in range(len(statement.args)):
                args = statement.args[:position] + statement.args[position + 1 :]
                fewer = Statement(
                    statement.kind, statement.name, args, statement.value, statement.receiver
                )
                yield drop_unused_values(_replace(test, index, fewer))

    def _numbers(self, test: TestCase) -> Iterator[TestCase]:
        for index, statement in enumerate(test):
            value = statement.value
            if statement.kind != "value" or isinstance(value, bool):
                continue
            if isinstance(value, int | float):
                for simpler in _simpler_numbers(value):
                    yield _replace(test, index, Statement("value", value=simpler))

    def _pairs(self, test: TestCase) -> Iterator[TestCase]:
        """Move two numbers of the same sign toward 0 by the same amount, keeping their difference.

        What a test checks often lies in a relation between inputs (``c == a + b - 1``) that no
        single number can shrink without breaking; shifting a pair together keeps it.
        """
        numbers = [
            (index, number)
            for index, statement in enumerate(test)
            if (number := _finite_number(statement)) is not None and number
        ][:MAX_PAIRED]
        for first, (i, a) in enumerate(numbers):
            for j, b in numbers[first + 1 :]:
                if (a > 0) != (b > 0):
                    continue
                room = min(abs(a), abs(b))
                for step in _steps(room):
                    shift = step if a > 0 else -step
                    moved = _replace(test, i, Statement("value", value=type(a)(a - shift)))
                    yield _replace(moved, j, Statement("value", value=type(b)(b - shift)))

    def _together(self, test: TestCase) -> Iterator[TestCase]:
        """Halve all numbers at once: keeps their order and ratios (``a > b > c``, ``a ≈ b + c``)."""
        numbers = [
            (index, number)
            for index, statement in enumerate(test)
            if (number := _finite_number(statement)) is not None and abs(number) > 1
        ]
        if len(numbers) < 2:
            return
        halved = test
        for index, value in numbers:
            half = int(value / 2) if isinstance(value, int) else value / 2
            halved = _replace(halved, index, Statement("value", value=half))
        yield halved

    def _strings(self, test: TestCase) -> Iterator[TestCase]:
        for index, statement in enumerate(test):
            value = statement.value
            if statement.kind != "value" or not isinstance(value, str | bytes) or not value:
                continue
            for simpler in self._simpler_strings(value):
                yield _replace(test, index, Statement("value", value=simpler))

    def _simpler_strings(self, value: str | bytes) -> list[str | bytes]:
        """The empty text, then the same text in plain characters (its length kept: code often
        depends on it), in lowercase (its punctuation kept: ``"@"`` in an email, ``"<"`` in
        markup), the module's simplest words and those of the same length, then cuts."""
        candidates = _shorter(value)
        if isinstance(value, str):
            cost = value_cost(value)
            simpler = [w for w in self.words if value_cost(w) < cost and w != value]
            same = [w for w in simpler if len(w) == len(value)]
            plain = [_plain(value), value.lower()]
            words = list(dict.fromkeys([*plain, *simpler[:MAX_WORDS], *same[:MAX_WORDS]]))
            candidates[1:1] = [w for w in words if value_cost(w) < cost]
        return candidates

    def _collections(self, test: TestCase) -> Iterator[TestCase]:
        for index, statement in enumerate(test):
            if statement.kind not in ("list", "tuple", "set", "dict") or not statement.args:
                continue
            step = 2 if statement.kind == "dict" else 1
            for start in range(0, len(statement.args), step):
                args = statement.args[:start] + statement.args[start + step :]
                shorter = Statement(
                    statement.kind, statement.name, args, statement.value, statement.receiver
                )
                yield drop_unused_values(_replace(test, index, shorter))


_NONE = object()  # no plain value at that level
_PLAIN_LEVELS = ("empty", "unit", "rounded")


def _plain_value(value: object, level: int, words: tuple[str, ...]) -> object:
    """``value`` made plain at ``_PLAIN_LEVELS[level]``, or ``_NONE``.

    >>> [_plain_value(-1549307622, n, ()) for n in range(3)]
    [0, -1, -1500000000]
    >>> [_plain_value(8.8564375, n, ()) for n in range(3)]
    [0.0, 1.0, 8.9]
    >>> [_plain_value("sxdIy#", n, ("month",)) for n in range(3)]
    ['', 'month', 'sxdiyx']
    """
    if isinstance(value, bool) or value is None:
        return _NONE
    if isinstance(value, int | float) and not (
        isinstance(value, float) and not math.isfinite(value)
    ):
        if level == 0:
            return type(value)(0)
        if level == 1:
            sign = 1 if value > 0 else -1
            if isinstance(value, float) and abs(value) < 1:
                return sign * 0.5
            return type(value)(sign)
        return _rounded(value)
    if isinstance(value, str):
        if level == 0:
            return ""
        if level == 1:
            return words[0] if words else "a"
        return _plain(value)
    return _NONE


def _rounded(value: int | float) -> int | float:
    """Two significant digits: ``1416707424`` as ``1400000000``, ``8.8564375`` as ``8.9``."""
    if not value:
        return value
    digits = 1 - int(math.floor(math.log10(abs(value))))
    rounded = round(value, digits)
    return type(value)(rounded)


def _finite_number(statement: Statement) -> int | float | None:
    """The statement's value when it is a finite int or float (not a bool), else None."""
    value = statement.value
    if statement.kind != "value" or type(value) not in (int, float):
        return None
    number: int | float = value  # type: ignore[assignment]  # checked just above
    return number if math.isfinite(number) else None


def _shorter(value: str | bytes) -> list[str | bytes]:
    """Empty, half, and each of the first 12 characters left out."""
    cuts = [value[:i] + value[i + 1 :] for i in range(min(len(value), 12))]  # type: ignore[operator]
    return [value[:0], value[: len(value) // 2], *cuts]


def _plain(value: str) -> str:
    """``"hV d8f#Y"`` as ``"hv d8fxy"``: lowercase, other characters as ``x``, same length."""
    return "".join(c.lower() if c.lower() in PLAIN_CHARACTERS else "x" for c in value)


def _replace(test: TestCase, index: int, statement: Statement) -> TestCase:
    return test[:index] + (statement,) + test[index + 1 :]


def _simpler_numbers(value: int | float) -> list[int | float]:
    """Candidates from simplest: 0, small magnitudes, halves, rounded, one step closer to 0."""
    kind = type(value)
    candidates: list[int | float] = [kind(0), kind(1), kind(-1)]
    if isinstance(value, float):
        candidates += [0.5, -0.5]
    if isinstance(value, float):
        if math.isfinite(value):
            candidates += [float(round(value)), round(value, 1), round(value, 2)]
        else:
            candidates += [1e300, -1e300]
    if isinstance(value, int) or math.isfinite(value):
        sign = 1 if value > 0 else -1
        candidates += [kind(value - sign * step) for step in _steps(abs(value))]
    return [c for c in dict.fromkeys(candidates) if c != value or type(c) is not type(value)]


MAX_STEPS = 12


def _steps(room: int | float) -> list[int | float]:
    """Distances to move toward 0, largest first, halving: a binary search, not a walk.

    A number held up by a threshold (``x >= 1000``) then shrinks in about log2(x) accepted
    steps instead of x - 1000 of them.

    >>> _steps(20), _steps(1), _steps(0.5)
    ([20, 10, 5, 2, 1], [1], [0.5, 0.25, 0.125, 0.0625])
    """
    steps: list[int | float] = []
    step = room
    while step and len(steps) < MAX_STEPS:
        steps.append(step)
        step = step // 2 if isinstance(step, int) else (step / 2 if step > 0.1 else 0)
    if isinstance(room, int) and room and steps[-1] != 1:
        steps.append(1)
    return steps
