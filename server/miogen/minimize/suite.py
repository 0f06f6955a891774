"""The suite a unit keeps: set cover over the archive's tests, then each test shrunk.

Killed mutants are targets too, but optional ones: a test kept for mutants alone must kill
at least ``MIN_MUTANT_GAIN`` that the rest of the suite does not, and such tests add at most
``MUTANT_TEST_SHARE`` to the suite (each test costs the user reading and maintenance; one more
fault found is not always worth it). The set cover weighs every kill of every candidate;
shrinking a test only checks the optional targets it is kept for.

Beside a project's suite (``lone_kills``) a test that kills one mutant no other test kills
stays too, with no share: the host keeps it only if the suite leaves that mutant alive
(``host.adds``), and the mutants a mature suite leaves alive are the ones a test kills alone
(a particular year, a value past a 32-bit mask), never two at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Protocol

from miogen.analysis.model import Signature
from miogen.minimize.cost import CostOf
from miogen.minimize.readable import NumberKind
from miogen.minimize.reduce import (
    CoverageCache,
    ReducedTest,
    set_cover,
    single_calls,
    split_independent,
)
from miogen.minimize.shrink import SHRINK_EVALUATIONS, Shrinker, simplicity
from miogen.testcase.model import CALLS, Statement, TestCase

# The cost-aware minimisation joins kept tests into one while the joined test makes at most
# this many calls: each join saves a test's fixed cost (minimize.cost); past a handful of calls
# a test stops reading as one test (our choice: the paper's suite is its archive, unjoined).
MAX_JOINED_CALLS = 6
MIN_MUTANT_GAIN = 2  # mutants a test must kill, that no other test kills, to be kept for them
MUTANT_TEST_SHARE = 1 / 3  # tests kept for mutants alone, at most, per test kept for coverage


class SuiteRunner(Protocol):
    """Runs a test and names the targets it covers; ``focus`` narrows the optional ones checked."""

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]: ...

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        """Check only these optional targets from now on (None: every one); with ``until``,
        check them until then (the runner's own deadline otherwise: past it, it checks none)."""
        ...


class _Focus:
    """The runner, knowing which optional targets it checks now (``CoverageCache``)."""

    def __init__(self, run: SuiteRunner, deadline: float) -> None:
        self.run = run
        self.optional: frozenset[Hashable] | None = None
        self.until = deadline

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        return self.run(test)

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        self.optional = None if optional is None else frozenset(optional)
        if until is not None:
            self.until = until
        self.run.focus(self.optional, until)

    def checking(self) -> frozenset[Hashable] | None:
        """The optional targets checked now: None for all, none past ``until``."""
        return frozenset() if time.monotonic() >= self.until else self.optional


@dataclass(frozen=True)
class Reduction:
    """The kept tests, and what the reduction cost."""

    tests: list[ReducedTest]
    cache_hits: int
    executions: int
    shrink_attempts: dict[str, int]
    shrink_successes: dict[str, int]
    extra_seconds: float = 0.0  # taken beyond the deadline by shrinking (its allowance)


def reduce_suite(
    originals: list[TestCase],
    run: SuiteRunner,
    optional: Callable[[Hashable], bool],
    deadline: float,
    careful: bool = False,
    has_optional: bool = False,
    numbers: NumberKind | None = None,
    cost: CostOf | None = None,
    words: tuple[str, ...] = (),
    join: bool = False,
    allowance: float = 0.0,
    texts: tuple[str, ...] = (),
    signature_of: Callable[[Statement], Signature | None] | None = None,
    shrinking: bool = True,
    landmarks: tuple[int, ...] = (),
    years: tuple[int, ...] = (),
    judged_until: float | None = None,
    lone_kills: bool = False,
) -> Reduction:
    """Set cover, then shrinking in half the time left (none without ``shrinking``), then a
    recount. ``careful`` (the unit's worker died): no joining, which runs tests of no search's.

    Single calls come first, each with only what it is built from (``single_calls``), then
    single-purpose pieces (they read best); whole tests only for what needs them, such as a
    call that sees what an earlier call left in its object or in module-level state. With optional
    targets (``has_optional``), simpler values often kill more (1 sits on more boundaries than
    3): the cover runs once more over the shrunk tests with every kill counted. ``numbers``
    says which values go to number parameters, ``words`` and ``texts`` what strings may become
    (see ``readable``), ``signature_of`` which arguments may be left out, ``landmarks`` the
    unit's own numbers an int may become, ``years`` those a date may move to (``Shrinker``).
    ``lone_kills``: a test kept for mutants alone needs to kill only one (see above).

    With ``cost`` (a test's performance proxies; aDynaMOSA and MIO ``--performance``) the cover
    picks the cheaper tests and shrinking never makes a kept test costlier. Only with ``join``
    (the ``joinTests`` option; off by default: one behaviour per test) do pieces and whole
    tests compete in one weighted cover, since a whole test covering what two pieces cover
    saves a test's fixed cost, and are kept tests joined into fewer (``join_tests``).

    Shrinking is measured in evaluations: every kept test gets the plain pass, then rounds
    of ``SHRINK_EVALUATIONS`` runs each, so the tests do not depend on the machine's load.
    ``allowance``: seconds shrinking may take beyond half the time left, a hard bound for a
    machine too slow for the evaluations; the Reduction says how many it took, by which the
    caller's later phases move their deadline. ``judged_until``: until when the candidates'
    kills are checked (None: ``deadline``; under an evaluation budget the caller's safety net,
    far past it: the cover runs each candidate once, its count, and the same seed keeps the
    same tests on a machine slowed past ``deadline``).
    """

    def cover(
        candidates: list[TestCase], cache: CoverageCache, already: frozenset[Hashable]
    ) -> list[ReducedTest]:
        return set_cover(
            candidates, cache, already, optional, 1 if lone_kills else MIN_MUTANT_GAIN,
            optional_share=None if lone_kills else MUTANT_TEST_SHARE, cost=cost,
        )  # fmt: skip

    focused = _Focus(run, deadline if judged_until is None else judged_until)
    run = focused
    run.focus(None)
    cache = CoverageCache(run, focused.checking)
    pieces = [piece for test in originals for piece in split_independent(test)]
    if cost is None or not join:
        # One behaviour per test: single calls first, then the independent pieces, whole
        # tests only for what needs them (a call that sees what earlier calls left).
        tiers = [pieces, originals]
        if not join:
            singles = [single for test in originals for single in single_calls(test)]
            tiers.insert(0, singles + [piece for piece in pieces if _behaviours(piece) <= 1])
        suite: list[ReducedTest] = []
        for tier in tiers:
            covered = frozenset().union(*(r.targets for r in suite)) if suite else frozenset()
            suite += cover(tier, cache, covered)
        if not join:
            suite = hand_to_fewest_calls(suite, cache)
    else:
        suite = cover(pieces + [t for t in originals if t not in pieces], cache, frozenset())
    now = time.monotonic()
    half = now + max(deadline - now, 0.0) / 2
    # Shrinking is bounded by evaluations (``SHRINK_EVALUATIONS``), the allowance in seconds
    # only for a machine too slow for them: the values do not depend on the load.
    hard = half + allowance if shrinking else now
    shrinker = Shrinker(
        cache, hard, numbers, cost, words, texts, signature_of, landmarks=landmarks, years=years
    )
    # Kills a test is kept for are checked as long as shrinking runs: past the runner's own
    # deadline (the unit's, which shrinking's allowance goes beyond) a kill is never seen
    # again, every candidate of a test kept for one fails, and its values stay as the search
    # left them (``Fraction.from_decimal(-552)``, kept for a mutant of the message's ``%``).
    judged = max(deadline, hard, judged_until or deadline)
    # The cheap pass over every test first, then rounds of evaluations, the fuzziest values
    # first in each: when the hard bound comes (a very slow machine), the tests that read
    # worst have had the most.
    shrunk = list(suite)
    for index in sorted(range(len(suite)), key=lambda i: -simplicity(suite[i].test)[2]):
        run.focus((t for t in suite[index].targets if optional(t)), judged)
        shrunk[index] = shrinker.plain(suite[index])
    exhausted: set[int] = set()  # tests with no candidate left
    for evaluations in SHRINK_EVALUATIONS:
        # A test whose values are plain already has little to try; its evaluations are not
        # passed on to others: each test's values depend on its own runs only.
        order = sorted(range(len(shrunk)), key=lambda i: -simplicity(shrunk[i].test)[2])
        for index in (i for i in order if i not in exhausted):
            run.focus((t for t in shrunk[index].targets if optional(t)), judged)
            shrunk[index] = shrinker.shrink(shrunk[index], evaluations)
            if shrinker.exhausted:
                exhausted.add(index)
    extra = min(allowance if shrinking else 0.0, max(time.monotonic() - half, 0.0))
    deadline += extra
    if has_optional and time.monotonic() < judged:
        run.focus((t for r in suite for t in r.targets if optional(t)), judged)
        recovered = cover([r.test for r in shrunk], CoverageCache(run), frozenset())
        if time.monotonic() < judged:  # else some kills went unchecked: tests kept for them
            shrunk = recovered  # would be dropped as killing nothing
    if join and not careful:  # a unit whose worker died runs nothing new
        run.focus(t for r in shrunk for t in r.targets if optional(t))
        shrunk = join_tests(shrunk, cache, deadline)
    stats = shrinker.stats
    return Reduction(
        shrunk, cache.hits, cache.misses, dict(stats.attempts), dict(stats.successes), extra
    )


def hand_to_fewest_calls(suite: list[ReducedTest], cache: CoverageCache) -> list[ReducedTest]:
    """Each target the suite is kept for, handed to the kept test with the fewest calls that
    covers it (in the suite's order on ties); a test left with none goes.

    The greedy cover gives a shared target to the test picked first, often one that calls
    several methods: ``c.getfirstweekday()`` stays in a test of ``c.yeardays2calendar(0.0)``
    although ``test_getfirstweekday_returns_1`` covers it too. Handed to the one-call test, the
    target no longer holds the extra call, and shrinking drops it: one behaviour per test.
    No test runs again (the cache has them all)."""
    if len(suite) < 2:
        return suite
    wanted = frozenset().union(*(r.targets for r in suite))
    covers = [cache(r.test)[1] & wanted for r in suite]
    order = sorted(range(len(suite)), key=lambda i: (_call_count(suite[i].test), i))
    handed: dict[int, frozenset[Hashable]] = {}
    for index in order:
        handed[index] = covers[index] & wanted
        wanted -= handed[index]
    return [
        ReducedTest(reduced.test, handed[index], reduced.parts)
        for index, reduced in enumerate(suite)
        if handed[index]
    ]


def _behaviours(test: TestCase) -> int:
    """Calls other than constructions (those are the setup of the calls on what they make)."""
    return sum(1 for statement in test if statement.kind in CALLS - {"construct"})


def _call_count(test: TestCase) -> int:
    return sum(1 for statement in test if statement.kind in CALLS)


def join_tests(
    suite: list[ReducedTest], cache: CoverageCache, deadline: float
) -> list[ReducedTest]:
    """Kept tests joined into fewer, each join checked by running the joined test.

    A pytest test's fixed cost outweighs the production code these tests run (``minimize.cost``),
    so two tests cost more than one doing both. In the suite's order, each test is appended to
    the first joined test it fits: at most ``MAX_JOINED_CALLS`` calls, the joined test runs to
    its end and still covers what both were kept for. A joined test whose run stops before the
    appended part (it ends in a call that raises) takes nothing more; a test that fits nowhere
    starts a joined test of its own.
    """
    joined: list[ReducedTest] = []
    closed: set[int] = set()  # joined tests that end in a raise: nothing can follow them
    for reduced in suite:
        if not _join_into(joined, closed, reduced, cache, deadline):
            joined.append(reduced)
    return joined


def _join_into(
    joined: list[ReducedTest],
    closed: set[int],
    reduced: ReducedTest,
    cache: CoverageCache,
    deadline: float,
) -> bool:
    """Append ``reduced`` to the first joined test it fits (True), else leave all as they are."""
    for index, group in enumerate(joined):
        if time.monotonic() >= deadline:
            return False
        if index in closed or not _calls(group.test, reduced.test):
            continue
        candidate = concatenate(group.test, reduced.test)
        executed, covered = cache(candidate)
        if len(executed) <= len(group.test):
            closed.add(index)
            continue
        targets = group.targets | reduced.targets
        if len(executed) == len(candidate) and targets <= covered:
            length = len(group.test)
            parts = (*group.parts, length, *(start + length for start in reduced.parts))
            joined[index] = ReducedTest(candidate, targets, parts)
            return True
    return False


def concatenate(first: TestCase, second: TestCase) -> TestCase:
    """``second``'s statements after ``first``'s, its references moved past them."""
    offset = len(first)
    mapping = {index: index + offset for index in range(len(second))}
    return first + tuple(statement.renumbered(mapping) for statement in second)


def _calls(first: TestCase, second: TestCase) -> bool:
    calls = sum(1 for statement in (*first, *second) if statement.kind in CALLS)
    return calls <= MAX_JOINED_CALLS
