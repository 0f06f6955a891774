"""Shrinking a test under a stated simplicity order, with deterministic passes (Hypothesis-style).

Simplicity order: fewer call statements first, then fewer statements, then simpler values (numbers
closer to 0 and of smaller magnitude, fewer decimals; floats toward 0.0, 1.0 and 0.5; shorter
strings, plain lowercase ones before ones with capitals, punctuation or other characters, and a
short word of the module's own, its constants and names, before fuzz, and a text of the module (a
literal or a doctest example's) as half a string of its length; a compiled pattern as its
pattern's string; dates on the first of a month, of January, of a year the module names, at
midnight; shorter collections). Every step
is kept only if the test still covers the targets it is in the suite for, and still runs as far as
it did (a test that started raising earlier would test something else). Executions go through the
CoverageCache, so no candidate runs twice; the whole phase stops at a deadline.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import math
import re
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from miogen.analysis.model import Signature
from miogen.minimize.cost import CostOf, weight
from miogen.minimize.readable import NumberKind, numbers_for_bools
from miogen.minimize.reduce import CoverageCache, ReducedTest, remove_statements_pass
from miogen.testcase.model import CALLS, Statement, TestCase, drop_unused_values

MAX_PAIRED = 6  # numbers of a test the pair pass looks at (it tries every pair)
PLAIN_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789 ")
NONZERO_DIGITS = frozenset("123456789")
# Strings a linter flags wherever they are (ruff's S104, "binding to all interfaces"): an
# address made of zeros is simpler, but the emitted file would not pass a strict ruff.
LINTED = frozenset({"0.0.0.0", "::"})
MAX_WORDS = 6  # words of the module a string is tried as (each try is a run)
MAX_TEXTS = 4  # texts of the module a string is tried as, the closest ones to it
TEXT_DISCOUNT = 0.5  # a text of the module costs this share of what the same made-up one costs
MAX_CUTS = 40  # shorter forms of a string tried in one round (halves, blocks, characters)
# Candidates one call of ``shrink`` looks at, those already run included (they cost no run):
# a bound on the passes' own work.
MAX_SHRINK_RUNS = 400
# Shrinking is measured in evaluations (runs of candidates not run before), not in seconds: on
# a loaded machine a run takes many times longer, and a share of the time left values fuzz
# (stdlib_fractions beside a CPU hog: tests stopped after 0-14 candidates, issue 24). Each
# round gives every kept test this many more evaluations (``suite.reduce_suite``), so that
# a hard bound in seconds, when a machine is slow enough to reach it, takes the later rounds.
SHRINK_EVALUATIONS = (10, 40, 350)


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
        odd = sum(1 for c in value if c not in PLAIN_CHARACTERS)
        # Less than a character: among strings alike, digits toward 0 ("0000000004" before
        # "1506715204": an ISBN whose checksum fails, as a reader would make one up).
        nonzero = sum(1 for c in value if c in NONZERO_DIGITS) / (2 * len(value) + 2)
        return len(value) + odd + nonzero
    if isinstance(value, bytes):
        return float(len(value))
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return 64.0
        exponent = value.normalize().as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return math.log2(abs(value) + 1) + places + (1 if places else 0)
    if isinstance(value, fractions.Fraction):
        simple = math.log2(abs(value.numerator) + 1) + math.log2(value.denominator)
        return simple + (0 if value.denominator == 1 else 1)
    if isinstance(value, datetime.date):
        return date_cost(value)
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        return 1.0 + value_cost(value.pattern)  # its pattern's, as a string's
    return 8.0


PLAIN_YEAR = 2000  # a date's year when the module names none


def date_cost(value: datetime.date, years: frozenset[int] = frozenset()) -> float:
    """A date's: one for each of its year (not one the module names, ``years``, or 2000
    without any), month (not January) and day (not the first), and each part of its time that
    is not 0 (a datetime), and one for a datetime without a time zone (naive: it means the
    local time of whichever machine runs the test; ruff's DTZ001): ``date(2008, 1, 1)`` in a
    module whose examples are of 2008 is plainer than ``date(1982, 10, 16)``.

    >>> date_cost(datetime.date(1982, 10, 16)), date_cost(datetime.date(2000, 1, 1))
    (6.0, 3.0)
    """
    plain = years or {PLAIN_YEAR}
    cost = 3.0 + (value.year not in plain) + (value.month != 1) + (value.day != 1)
    if isinstance(value, datetime.datetime):
        cost += sum(
            1 for part in (value.hour, value.minute, value.second, value.microsecond) if part
        )
        cost += value.tzinfo is None  # naive: local time, whatever the machine's (DTZ001)
    return cost


def text_cost(
    value: object, texts: frozenset[str] = frozenset(), years: frozenset[int] = frozenset()
) -> float:
    """``value_cost``, a text of the module's (``texts``) at ``TEXT_DISCOUNT`` of it, a date
    in a year of the module's (``years``) as plain as one in 2000."""
    if isinstance(value, datetime.date):
        return date_cost(value, years)
    cost = value_cost(value)
    return cost * TEXT_DISCOUNT if isinstance(value, str) and value in texts else cost


def simplicity(
    test: TestCase, texts: frozenset[str] = frozenset(), years: frozenset[int] = frozenset()
) -> tuple[int, int, float]:
    """The order shrinking moves down: (calls, statements, value cost)."""
    calls = sum(1 for s in test if s.kind in CALLS)
    collection_items = sum(len(s.args) for s in test if s.kind in ("list", "tuple", "set", "dict"))
    values = sum(text_cost(s.value, texts, years) for s in test if s.kind == "value")
    return calls, len(test), values + collection_items


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
        texts: tuple[str, ...] = (),
        signature_of: Callable[[Statement], Signature | None] | None = None,
        evaluations: int | None = None,
        landmarks: tuple[int, ...] = (),
        years: tuple[int, ...] = (),
    ) -> None:
        """``numbers`` tells which values go to number parameters (see ``readable``); with
        ``cost`` (the test's performance proxies) a step that makes the test costlier, by
        ``minimize.cost.weight``, is refused: a simpler loop bound is welcome, a simpler value
        that makes a series converge slower is not. ``words`` (readable.module_words) are what
        a string may become besides shorter: the module's own short words; ``texts``
        (readable.module_texts) what it may become at about its length: the module's strings,
        which read as the module's own, not as fuzz. ``signature_of`` gives a call's signature:
        only arguments its parameters have defaults for are left out (``_arguments``).
        ``landmarks`` (readable.unit_numbers) are numbers of the unit's own code an int may
        become, or one more or less, with its sign (``_landmarks``); ``years``
        (readable.module_years) the years a date may move to (``_simpler_dates``).

        Each ``shrink`` runs at most ``evaluations`` candidates not run before (the cache's
        misses): what a test becomes does not depend on how fast the machine runs. ``deadline``
        is a hard bound in seconds over all of them, for a machine too slow for that."""
        self.coverage = coverage
        self.signature_of = signature_of
        self.deadline = deadline
        self.evaluations = sum(SHRINK_EVALUATIONS) if evaluations is None else evaluations
        self.evaluations_left = self.evaluations
        self.exhausted = False  # whether the last ``shrink`` ended with no candidate left
        self.numbers = numbers
        self.cost = cost
        self.words = tuple(sorted(set(words), key=lambda w: (value_cost(w), w)))
        self.texts = frozenset(texts)
        self.landmarks = landmarks
        self.years = frozenset(years)
        self.number_at = 0  # the statement whose number the numbers pass changed last
        self.stats = ShrinkStats()
        self.runs_left = MAX_SHRINK_RUNS

    def plain(self, reduced: ReducedTest) -> ReducedTest:
        """Only the first passes, each argument a parameter has a default for left out
        (``_arguments``) and all values plain at once (``_plain``): a few runs a test, so that
        every test of a unit gets them before any test gets the rest. A keyword the test does
        not need (``shlex(instream="a b", infile=-743)``, whose ``infile`` the tokens never
        read) goes here, not only in the later rounds, which a loaded machine may not reach."""
        self.runs_left = MAX_SHRINK_RUNS
        self.evaluations_left = self.evaluations
        test = reduced.test
        while (
            fewer := self._first_accepted("arguments", test, reduced.targets, self._arguments(test))
        ) is not None:
            test = fewer
        plain = self._first_accepted("plain", test, reduced.targets, self._plain(test))
        test = plain or test
        if test == reduced.test:
            return reduced
        return ReducedTest(test, reduced.targets, reduced.parts)

    def shrink(self, reduced: ReducedTest, evaluations: int | None = None) -> ReducedTest:
        """``reduced`` down the simplicity order in at most ``evaluations`` (default: the
        shrinker's) runs of candidates not run before, and ``MAX_SHRINK_RUNS`` candidates
        (besides removing statements, which is bounded by the test's length). Shrinking the
        result again goes on where this stopped: what was tried is known and costs no run."""
        self.runs_left = MAX_SHRINK_RUNS
        self.evaluations_left = self.evaluations if evaluations is None else evaluations
        self.number_at = 0
        reduced = remove_statements_pass(reduced, self.coverage, self.deadline)
        test = reduced.test
        if self.numbers is not None:  # not simpler, but read as the code takes them
            for candidate in list(numbers_for_bools(test, self.numbers)):
                improved = self._first_accepted("readable", test, reduced.targets, [candidate])
                test = improved or test
        plain = self._first_accepted("plain", test, reduced.targets, self._plain(test))
        test = plain or test
        progress = True
        while progress and self._may_run():
            progress = False
            for name, candidates in (
                ("arguments", self._arguments),
                ("numbers", self._numbers),
                ("pairs", self._pairs),
                ("together", self._together),
                ("strings", self._strings),
                ("dates", self._dates),
                ("collections", self._collections),
            ):
                # Each pass to its own fixpoint: a success does not restart the earlier
                # passes, whose candidates mostly failed for the same reason again.
                while (
                    improved := self._first_accepted(name, test, reduced.targets, candidates(test))
                ) is not None:
                    test, progress = improved, True
        # No candidate left, rather than no evaluation or time: shrinking it again tries nothing.
        self.exhausted = not progress and self._may_run()
        return ReducedTest(test, reduced.targets)

    def _first_accepted(
        self,
        name: str,
        test: TestCase,
        targets: frozenset[Hashable],
        candidates: Iterable[TestCase],
    ) -> TestCase | None:
        for candidate in candidates:
            if not self._may_run():
                return None
            if name != "readable" and (
                simplicity(candidate, self.texts, self.years)
                >= simplicity(test, self.texts, self.years)
            ):
                continue
            self.runs_left -= 1
            if candidate not in self.coverage:
                self.evaluations_left -= 1
            executed, covered = self.coverage(candidate)
            accepted = targets <= covered and len(executed) == len(candidate)
            if accepted and self.cost is not None:
                accepted = weight(self.cost(executed)) <= weight(self.cost(test))
            self.stats.record(name, accepted)
            if accepted:
                return candidate
        return None

    def _may_run(self) -> bool:
        """Whether another candidate may run: candidates and evaluations are left, and the
        deadline has not passed."""
        if self.runs_left <= 0 or self.evaluations_left <= 0:
            return False
        return time.monotonic() < self.deadline

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
                if plain is not _NONE and text_cost(plain, self.texts) < text_cost(
                    statement.value, self.texts
                ):
                    candidate = _replace(candidate, index, Statement("value", value=plain))
            if candidate != test:
                yield candidate

    def _arguments(self, test: TestCase) -> Iterator[TestCase]:
        """Leave out an argument whose parameter has a default (``_droppable``): without a
        required one the call raises Python's TypeError before the code runs, which a test
        "raising TypeError at the same call" would take for the same behaviour."""
        for index, statement in enumerate(test):
            if statement.kind not in ("construct", "call", "method"):
                continue
            signature = self.signature_of(statement) if self.signature_of is not None else None
            for position in range(len(statement.args)):
                if not _droppable(statement.args, position, signature):
                    continue
                args = statement.args[:position] + statement.args[position + 1 :]
                fewer = Statement(
                    statement.kind, statement.name, args, statement.value, statement.receiver
                )
                yield drop_unused_values(_replace(test, index, fewer))

    def _numbers(self, test: TestCase) -> Iterator[TestCase]:
        """Each number's simpler ones, from the number whose candidate was taken last: a
        number at its simplest (``401`` in ``leapdays(401, -29617)``) would otherwise have
        all its candidates run again after every step of the next one (each new test a run),
        and the evaluations end before the next one is plain."""
        start = self.number_at if self.number_at < len(test) else 0
        for index in [*range(start, len(test)), *range(start)]:
            statement = test[index]
            value = statement.value
            if statement.kind != "value" or isinstance(value, bool):
                continue
            simpler_ones: list[object] = []
            if isinstance(value, int | float):
                simpler_ones = list(_simpler_numbers(value, self.landmarks))
            elif isinstance(value, decimal.Decimal | fractions.Fraction):
                simpler_ones = list(_simpler_exact(value))
            for simpler in simpler_ones:
                self.number_at = index  # the taken one's, when the pass stops here
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

    def _dates(self, test: TestCase) -> Iterator[TestCase]:
        for index, statement in enumerate(test):
            if statement.kind == "value" and isinstance(statement.value, datetime.date):
                for simpler in _simpler_dates(statement.value, self.years):
                    yield _replace(test, index, Statement("value", value=simpler))

    def _strings(self, test: TestCase) -> Iterator[TestCase]:
        """Each string's simpler ones (``_simpler_strings``); a compiled pattern's as its
        pattern's (``re.compile("[a-z]+")`` as ``re.compile("a")``), its flags kept."""
        for index, statement in enumerate(test):
            value = statement.value
            if statement.kind != "value":
                continue
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str) and value.pattern:
                for simpler in self._simpler_strings(value.pattern):
                    if (compiled := _compiled(simpler, value.flags)) is not None:
                        yield _replace(test, index, Statement("value", value=compiled))
                continue
            if not isinstance(value, str | bytes) or not value:
                continue
            for simpler in self._simpler_strings(value):
                if simpler not in LINTED:
                    yield _replace(test, index, Statement("value", value=simpler))

    def _simpler_strings(self, value: str | bytes) -> list[str | bytes]:
        """The empty text, then the same text in plain characters (its length kept: code often
        depends on it), in lowercase (its punctuation kept: ``"@"`` in an email, ``"<"`` in
        markup), the module's simplest words and those of the same length, its texts closest
        to the value, then cuts and single characters made plain (``_cuts``)."""
        candidates: list[str | bytes] = [value[:0]]
        if isinstance(value, str):
            cost = text_cost(value, self.texts)
            simpler = [w for w in self.words if value_cost(w) < cost and w != value]
            same = [w for w in simpler if len(w) == len(value)]
            plain = [_plain(value), value.lower(), _zeroed(value)]
            words = list(dict.fromkeys([*plain, *simpler[:MAX_WORDS], *same[:MAX_WORDS]]))
            candidates += [w for w in words if text_cost(w, self.texts) < cost]
            candidates += self._closest_texts(value, cost)
        candidates += _cuts(value)
        return list(dict.fromkeys(candidates))

    def _closest_texts(self, value: str, cost: float) -> list[str]:
        """At most ``MAX_TEXTS`` of the module's texts simpler than ``value``, those that share
        the longest start with it first, then the closest in length: a made-up ISBN becomes
        the docstring's, a JSON document the example's."""
        simpler = [t for t in self.texts if t != value and text_cost(t, self.texts) < cost]
        simpler.sort(key=lambda t: (-_common_start(t, value), abs(len(t) - len(value)), t))
        return simpler[:MAX_TEXTS]

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


def _compiled(pattern: str | bytes, flags: int) -> re.Pattern[str] | None:
    """``pattern`` compiled with ``flags`` when it is a valid str pattern, else None."""
    if not isinstance(pattern, str):
        return None
    try:
        return re.compile(pattern, flags)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None


def _droppable(
    args: tuple[tuple[str, int], ...], position: int, signature: Signature | None
) -> bool:
    """Whether the call still passes what it must without ``args[position]``: an element of
    ``*args`` (``"*name"``), or a parameter of ``signature`` with a default; a positional-only
    one (``"/name"``) only when nothing after it goes by position (the next would move into
    its place). Without a signature, only elements of ``*args``.

    >>> _droppable((("*items", 0), ("*items", 1)), 0, None)
    True
    >>> _droppable((("year", 0),), 0, None)
    False
    """
    name = args[position][0]
    if name.startswith("*"):
        return True
    parameter = None
    if signature is not None:
        parameter = next((p for p in signature.params if p.name == name), None)
    if parameter is None or not parameter.has_default:
        return False
    later = args[position + 1 :]
    return not name.startswith("/") or not any(n[:1] in ("/", "*") for n, _ in later)


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
    >>> [str(_plain_value(decimal.Decimal("-2.4838"), n, ())) for n in range(3)]
    ['0', '-1', '-2']
    >>> [str(_plain_value(fractions.Fraction(9999, 1000744), n, ())) for n in range(3)]
    ['0', '1', '0']
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
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        plain = _plain_value(value.pattern, level, words)
        compiled = _compiled(plain, value.flags) if isinstance(plain, str) else None
        return _NONE if compiled is None else compiled
    if isinstance(value, decimal.Decimal) and not value.is_finite():
        return _NONE
    if isinstance(value, decimal.Decimal | fractions.Fraction):  # 0, 1 or -1, an integer
        if level == 0:
            return type(value)(0)
        if level == 1:
            return type(value)(1 if value > 0 else -1)
        if isinstance(value, decimal.Decimal) and value.adjusted() > MAX_ROUNDED_DIGITS:
            return _NONE  # ``Decimal("1E+999999999")`` as an int would not fit in memory
        return type(value)(round(value))
    return _NONE


MAX_ROUNDED_DIGITS = 30


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


def _cuts(value: str | bytes) -> list[str | bytes]:
    """Shorter or plainer forms of ``value``, at most ``MAX_CUTS``: its halves, each character
    that is not plain made plain wherever it is (``"ω"`` in an email whose length matters: the
    ``"@"`` may be what the code looks for), blocks of a quarter, an eighth... of it left out,
    each character that is not plain made plain at one place, each digit made 0,
    then each character left out, those that are not plain first (a zero-width or combining
    character the search put in, a capital)."""
    size = len(value)
    found: list[str | bytes] = [value[: size // 2], value[size // 2 :]]
    if isinstance(value, str):  # each odd character made plain wherever it is, one at a time
        found += [
            value.replace(c, _plain(c)) for c in dict.fromkeys(value) if c not in PLAIN_CHARACTERS
        ]
    block = size // 4
    while block >= 2:
        found += [_without(value, i, i + block) for i in range(0, size - block + 1, block)][:8]
        block //= 2
    odd = [i for i in range(size) if not _plain_at(value, i)]
    if isinstance(value, str):
        found += [value[:i] + _plain(value[i]) + value[i + 1 :] for i in odd]
        found += [
            value[:i] + "0" + value[i + 1 :] for i, c in enumerate(value) if c in NONZERO_DIGITS
        ]
    others = [i for i in range(size) if i not in set(odd)]
    found += [_without(value, i, i + 1) for i in [*odd, *others]]
    return list(dict.fromkeys(c for c in found if c != value))[:MAX_CUTS]


def _without(value: str | bytes, start: int, stop: int) -> str | bytes:
    """``value`` without its characters from ``start`` to ``stop``."""
    return value[:start] + value[stop:]  # type: ignore[operator]  # both parts of one type


def _plain_at(value: str | bytes, index: int) -> bool:
    if isinstance(value, bytes):
        return chr(value[index]) in PLAIN_CHARACTERS
    return value[index] in PLAIN_CHARACTERS


def _common_start(first: str, second: str) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length


def _plain(value: str) -> str:
    """``"hV d8f#Y"`` as ``"hv d8fxy"``: lowercase, other characters as ``x``, same length."""
    return "".join(c.lower() if c.lower() in PLAIN_CHARACTERS else "x" for c in value)


def _zeroed(value: str) -> str:
    """``"isbn 1506715204"`` as ``"isbn 0000000000"``: every digit 0, the rest kept."""
    return "".join("0" if c in NONZERO_DIGITS else c for c in value)


def _replace(test: TestCase, index: int, statement: Statement) -> TestCase:
    return test[:index] + (statement,) + test[index + 1 :]


def _simpler_numbers(value: int | float, landmarks: tuple[int, ...] = ()) -> list[int | float]:
    """Candidates from simplest: 0, small magnitudes, halves, rounded, for an int or a whole
    float the unit's ``landmarks`` (``_landmarks``), one step closer to 0,
    then for an int of two digits and more, or a float that is a whole number (an untyped
    parameter's ``179375.0``, which a body's ``y // 4`` takes as the int it equals), its
    leading digits and the one-digit numbers of its sign (``_fewer_digits``).

    >>> _simpler_numbers(112)
    [0, 1, -1, 56, 84, 98, 105, 109, 111, 11, 2, 3, 4, 5, 6, 7, 8, 9]
    >>> _simpler_numbers(-25.0)[5:12]
    [-13.0, -19.0, -22.0, -24.0, -2.0, -3.0, -4.0]
    """
    kind = type(value)
    candidates: list[int | float] = [kind(0), kind(1), kind(-1)]
    if isinstance(value, float):
        candidates += [0.5, -0.5]
    if isinstance(value, float):
        if math.isfinite(value):
            candidates += [float(round(value)), round(value, 1), round(value, 2)]
        else:
            candidates += [1e300, -1e300]
    whole = isinstance(value, float) and abs(value) < 2**53 and value.is_integer()
    if isinstance(value, int) or whole:  # whole steps: a whole float stays a whole one
        sign = 1 if value > 0 else -1
        whole_value = int(value)
        candidates += _landmarks(value, landmarks)
        steps = _steps(abs(whole_value))
        candidates += [kind(whole_value - sign * step) for step in steps]
        candidates += [kind(n) for n in _fewer_digits(whole_value)]
    elif math.isfinite(value):
        sign = 1 if value > 0 else -1
        candidates += [value - sign * step for step in _steps(abs(value))]
        candidates += _fewer_significant(value)
        # The whole part toward 0, the fraction kept: a goal held by the fraction (a weak
        # mutant of a square root's rounding, ``pstdev([False, False, -524.03125])``) is
        # lost by rounding, and the halving steps above add digits.
        whole_part = int(abs(value)) if abs(value) < 2**53 else 0
        candidates += [value - sign * step for step in _steps(whole_part)]
    return [c for c in dict.fromkeys(candidates) if c != value or type(c) is not type(value)]


MAX_SIGNIFICANT = 3  # significant digits a float is cut to (more: rounding to decimals)


def _fewer_significant(value: float) -> list[float]:
    """For a float with a fraction: the same cut to fewer significant digits, at most
    ``MAX_SIGNIFICANT`` (``0.00055`` as ``0.0005``; ``-524.03125`` as ``-500.0``, ``-520.0``,
    ``-524.0``), each cut and rounded, then the powers of ten of its sign above it up to 1
    (``0.001``, ``0.01``, ``0.1``). Rounding to a number of decimals leaves a small number
    0.0 (``round(0.00055, 2)``), and its steps toward 0 keep all its digits:
    ``inv_cdf(0.00055)``, a test of the tail branch every ``p`` below 0.075 takes, had no
    candidate between 0.0 and itself.

    >>> _fewer_significant(0.00055)
    [0.0005, 0.0006, 0.001, 0.01, 0.1]
    >>> _fewer_significant(-2.75)
    [-2.0, -3.0, -2.7, -2.8]
    >>> _fewer_significant(0.0005)
    [0.001, 0.01, 0.1]
    """
    if "e" in repr(value) or not value:
        return []
    digits = len(repr(abs(value)).replace(".", "").strip("0"))
    exponent = math.floor(math.log10(abs(value)))
    found: list[float] = []
    for significant in range(1, min(digits, MAX_SIGNIFICANT + 1)):
        scale = 10.0 ** (exponent - significant + 1)
        cut = math.trunc(value / scale)
        for whole in (cut, cut + (1 if value > 0 else -1)):
            found.append(float(f"{whole * scale:.{significant}g}"))
    sign = 1.0 if value > 0 else -1.0
    found += [sign * 10.0**power for power in range(exponent + 1, 0)]
    return [f for f in dict.fromkeys(found) if f != value]


def _landmarks(value: int | float, landmarks: tuple[int, ...]) -> list[int | float]:
    """For an int or a whole float: the ``landmarks`` (the unit's own numbers), one less and
    one more, of the value's sign and smaller in magnitude, from the smallest. One value
    moved at a time toward 0 stops where every step loses a goal: the kills of
    ``(y2//4 - y1//4) - (y2//100 - y1//100) + (y2//400 - y1//400)`` need each quotient
    non-zero, which ``-14802`` has and its halves, leading digits and one-digit
    numbers do not all keep; ``-400`` (``y2 - 1`` is ``-401``) does. A reader takes a number
    the code names, or one past it, for a boundary, not for fuzz.

    >>> _landmarks(-14802, (4, 100, 400))
    [-3, -4, -5, -99, -100, -101, -399, -400, -401]
    >>> _landmarks(7.0, (4, 100))
    [3.0, 4.0, 5.0]
    """
    if isinstance(value, float) and not (abs(value) < 2**53 and value.is_integer()):
        return []
    sign = 1 if value > 0 else -1
    found: list[int | float] = []
    for landmark in landmarks:
        for near in (landmark - 1, landmark, landmark + 1):
            if 1 < near < abs(value):
                found.append(type(value)(sign * near))
    return list(dict.fromkeys(found))


MAX_YEARS = 3  # years of the module a date is tried in, the closest ones


def _simpler_dates(value: datetime.date, years: frozenset[int]) -> list[datetime.date]:
    """Plainer dates than ``value``, plainest first (``date_cost``): in its own year or one
    of the ``MAX_YEARS`` years of the module closest to it (2000 when it names none), on the
    first of January, of its month, or its own day; a datetime also at midnight, and a naive
    one also in UTC (``_aware``). A date the search drew (``date(1982, 10, 16)``) reads as
    noise where ``date(2008, 1, 1)`` would do.

    >>> _simpler_dates(datetime.date(1982, 10, 16), frozenset({2008, 2015}))[:3]
    [datetime.date(2008, 1, 1), datetime.date(2015, 1, 1), datetime.date(2008, 10, 1)]
    """
    plain = sorted(years or {PLAIN_YEAR}, key=lambda year: (abs(year - value.year), year))
    found: list[datetime.date] = []
    for year in [*plain[:MAX_YEARS], value.year]:
        for month, day in ((1, 1), (value.month, 1), (value.month, value.day)):
            try:
                moved = value.replace(year=year, month=month, day=day)
            except ValueError:  # February 29th of a common year
                continue
            found.append(moved)
            if isinstance(moved, datetime.datetime):
                found.append(moved.replace(hour=0, minute=0, second=0, microsecond=0))
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        found += [_aware(moved) for moved in found if isinstance(moved, datetime.datetime)]
    cost = date_cost(value, years)
    simpler = [d for d in dict.fromkeys(found) if date_cost(d, years) < cost]
    return sorted(simpler, key=lambda d: date_cost(d, years))


def _aware(value: datetime.datetime) -> datetime.datetime:
    """``value`` in UTC: a point in time whatever the machine's zone, where the code takes
    aware and naive alike. (``datetime.UTC`` is ``timezone.utc``: the test spells it as the
    project's Python has it, ``emit.versions``.)"""
    return value.replace(tzinfo=datetime.UTC)


def _fewer_digits(value: int) -> list[int]:
    """For ``|value| >= 10``: its leading digits (``1458`` as ``145``, ``14``), then the
    one-digit numbers of its sign, after the steps toward 0 (which find a threshold's bound).
    A goal held by what a number is rather than by how large it is (a weak mutant of a square
    root's rounding in ``statistics.pstdev``, kept by 5, 8, 10, 20 and 112, by none between
    them) stops the steps at the first value that holds it (112); a small one holds it too."""
    if abs(value) < 10:
        return []
    sign = 1 if value > 0 else -1
    leading = [sign * (abs(value) // 10**k) for k in range(1, len(str(abs(value))) - 1)]
    return [*leading, *(sign * k for k in range(2, 10))]


def _simpler_exact(value: decimal.Decimal | fractions.Fraction) -> list[object]:
    """A decimal's or a fraction's candidates: 0, 1, -1, a half, the nearest integer, the same
    with one or two decimals (``Decimal("2.5728")`` as ``Decimal("2.57")``), a fraction with a
    small denominator. Only those simpler than ``value`` are tried (``simplicity``)."""
    if isinstance(value, decimal.Decimal):
        found = [decimal.Decimal(n) for n in ("0", "1", "-1", "0.5")]
        for places in (0, 1, 2):
            try:
                found.append(value.quantize(decimal.Decimal(1).scaleb(-places)))
            except decimal.InvalidOperation:  # infinite, or too many digits for the context
                continue
        found += [d for d in _whole_part_steps(value) if isinstance(d, decimal.Decimal)]
        return [d for d in dict.fromkeys(found) if d.is_finite() and d != value]
    halves = [fractions.Fraction(n) for n in (0, 1, -1)] + [fractions.Fraction(1, 2)]
    return [
        *halves, fractions.Fraction(round(value)), value.limit_denominator(10),
        *_whole_part_steps(value),
    ]  # fmt: skip


def _whole_part_steps(value: decimal.Decimal | fractions.Fraction) -> list[object]:
    """``value`` with its whole part moved toward 0 by ``_steps`` and its fraction kept: what
    a goal holds up is often the fraction (``Decimal("-40.950")`` as ``Decimal("-0.950")``
    for a rounding's half-way branch, ``Fraction(45, 7)`` as ``Fraction(3, 7)``), which 0, 1,
    a half and the nearest integer all lose.

    >>> [str(v) for v in _whole_part_steps(decimal.Decimal("-40.950"))][:2]
    ['-0.950', '-20.950']
    >>> _whole_part_steps(fractions.Fraction(45, 7))
    [Fraction(3, 7), Fraction(24, 7), Fraction(38, 7)]
    """
    if isinstance(value, decimal.Decimal) and (
        not value.is_finite() or value.adjusted() > MAX_ROUNDED_DIGITS
    ):
        return []
    sign = 1 if value > 0 else -1
    whole = abs(int(value))  # int() cuts toward 0
    return [value - sign * int(step) for step in _steps(whole)]


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
