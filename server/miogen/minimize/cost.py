"""What a kept test costs to run, for the cost-aware minimisation of aDynaMOSA and MIO --performance.

The paper (Grano et al., "Testing with Fewer Resources", sec. 3.2.2) keeps the cheaper test per
covered target in the archive (Eq. 1) and says nothing about the minimisation that follows; its
suite is the archive. Per target the cheaper test is usually the narrower one, so that archive
fragments: more tests, each covering less. A pytest test, however, has a fixed cost whatever it
does (collection, setup, the call wrapper, teardown, reporting), and on this project's subjects
that fixed cost outweighs the production code a test runs by two to three orders of magnitude
(``python -m bench.test_cost``: 3.5 ms of CPU per extra test against 36 ns per executed
production statement, median of seven corpus workloads; 2026-11-23, load 2.8; see
bench/results/test-cost/). Our choice where the paper is silent: among covers of the same goals
the minimisation chooses the cheaper *suite*, a test weighing

    FIXED_TEST_COST + I5          (production statements executed, aDynaMOSA's proxy I5)

in units of executed production statements, and Eq. 1 (the paper's per-test score over all seven
proxies) only orders tests of equal weight. I5 is the proxy that adds up across a suite in time
units (the loop iterations I1 and calls I2 are statements too; Eq. 1 normalises each proxy into
[0, 1), which orders tests but cannot be summed into a suite's cost).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from miogen.testcase.model import TestCase
from miogen.worker.search.performance import PROXIES, performance_score

# One pytest test's own work, in executed production statements: 3.48 ms / 36 ns = 97,000,
# rounded down to 10**5 / 2 so that a test running more than that many statements (a long loop)
# still weighs more than two tests that do not; any value in 10**4 .. 10**5 makes the same
# choices on the subjects measured (their tests execute tens to thousands of statements).
FIXED_TEST_COST = 50_000.0
_STATEMENTS = PROXIES.index("production statements")

Proxies = Sequence[float]
CostOf = Callable[[TestCase], Proxies | None]  # a test's proxies I1..I7 (None: never run)


def weight(proxies: Proxies | None) -> float:
    """A test's cost in executed production statements: the fixed cost plus its I5.

    >>> weight((0, 0, 1, 0, 120, 1, 2)), weight(None)
    (50120.0, 50000.0)
    """
    if not proxies or len(proxies) <= _STATEMENTS:
        return FIXED_TEST_COST
    return FIXED_TEST_COST + float(proxies[_STATEMENTS])


def order(proxies: Proxies | None) -> tuple[float, float]:
    """(weight, Eq. 1 score): how two tests compare, cheaper first.

    >>> order((1, 1, 1, 0, 5, 1, 2)) < order((2, 1, 1, 0, 5, 1, 2))
    True
    """
    return weight(proxies), performance_score(proxies or ())
