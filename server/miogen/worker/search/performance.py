"""aDynaMOSA's performance proxies: Eq. 1's score, Eq. 2's heuristic and Alg. 2's adaptive switch.

Grano et al., "Testing with Fewer Resources" (TSE), sec. 3. A test carries seven proxy counts
(``Evaluated.proxies``, in the order of ``PROXIES``); none of them is measured here, the problem
counts them in the same run that scores its targets. Lower counts mean a cheaper test.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from enum import StrEnum

# Table I of the paper, in its order: I1 .. I7.
PROXIES = (
    "loop iterations",  # I1: production loop cycles, loops run more than once only
    "production calls",  # I2: calls of production functions
    "test calls",  # I3: calls in the test
    "objects created",  # I4: instantiations in production code, sites run more than once only
    "production statements",  # I5: production statements executed
    "test statements",  # I6: statements of the test that are not calls
    "test length",  # I7: lines of the test
)


def performance_score(proxies: Iterable[float]) -> float:
    """Eq. 1: ``sum I/(I+1)`` over the proxies, each normalised into [0, 1); lower is cheaper.

    >>> performance_score((0, 1, 3))
    1.25
    """
    return sum(value / (value + 1.0) for value in proxies)


def performance_heuristic(front: Sequence[Sequence[float]]) -> list[float]:
    """Eq. 2 for every test of a front: ``sum (I_max - I) / (I_max - I_min)``; higher is cheaper.

    Max and min are taken over the front. The paper leaves ``I_max = I_min`` undefined (a
    division by zero): such a proxy cannot tell the front's tests apart, so its term is 0 for
    all of them (digest sec. 3.1). A test with no proxies (not measured) scores 0.

    >>> performance_heuristic([(4, 1), (2, 1), (0, 1)])
    [0.0, 0.5, 1.0]
    """
    if not front:
        return []
    width = max(len(proxies) for proxies in front)
    columns = [[p[k] if k < len(p) else 0.0 for p in front] for k in range(width)]
    scores = [0.0] * len(front)
    for column in columns:
        high, low = max(column), min(column)
        if high == low:
            continue
        for index, value in enumerate(column):
            scores[index] += (high - value) / (high - low)
    return scores


class Heuristic(StrEnum):
    """The secondary heuristic that orders tests inside a front (Alg. 1, lines 17-21)."""

    PERFORMANCE = "performance"  # Eq. 2
    CROWDING = "crowding"  # subvector dominance (Koppen and Yoshida), as in DynaMOSA


class HeuristicSwitch:
    """GET-SECONDARY-HEURISTIC (Alg. 2): keep a heuristic while the search improves, else swap.

    Generation 0 starts with the performance heuristic and both stagnation counters at 0. In a
    later generation, *stagnation* means that no uncovered target got a better best value in the
    new offspring than in the previous generation's offspring. On stagnation the counter of the
    heuristic just used goes up and the heuristic with the lower counter is chosen (a tie goes to
    performance); otherwise the counter of the heuristic in use is reset and it stays.

    Alg. 1 updates the archive (line 10) before it calls this (line 11), and Alg. 2's loop
    (line 7) looks only at targets that are *not covered*: a target the new offspring covered
    is no longer among them. So a generation whose only progress was covering targets counts as
    stagnation, as the paper writes it; the caller passes the targets uncovered after the update.
    (An earlier version counted covering as improvement; that kept the performance heuristic on
    longer than the paper does.)

    >>> switch = HeuristicSwitch()
    >>> switch.next(stagnated=False), switch.next(stagnated=True), switch.next(stagnated=True)
    (<Heuristic.PERFORMANCE: 'performance'>, <Heuristic.CROWDING: 'crowding'>, <Heuristic.PERFORMANCE: 'performance'>)
    """

    def __init__(self) -> None:
        self.generation = 0
        self.current = Heuristic.PERFORMANCE
        self.counters = {Heuristic.PERFORMANCE: 0, Heuristic.CROWDING: 0}

    def next(self, stagnated: bool) -> Heuristic:
        """The heuristic for the next generation, given whether the last one stagnated."""
        generation, self.generation = self.generation, self.generation + 1
        if generation == 0:
            self.counters = {Heuristic.PERFORMANCE: 0, Heuristic.CROWDING: 0}
            self.current = Heuristic.PERFORMANCE
        elif stagnated:
            self.counters[self.current] += 1
            performance, crowding = self.counters.values()
            self.current = Heuristic.PERFORMANCE if performance <= crowding else Heuristic.CROWDING
        else:
            self.counters[self.current] = 0
        return self.current


def stagnated(
    previous: Mapping[Hashable, float],
    current: Mapping[Hashable, float],
    uncovered: Iterable[Hashable],
) -> bool:
    """Alg. 2, lines 6-9: True if no ``uncovered`` target's best h rose from ``previous`` to ``current``.

    ``previous`` and ``current`` map targets to the best h of one generation's offspring.

    >>> stagnated({"a": 0.5}, {"a": 0.5, "b": 0.2}, ["a"]), stagnated({"a": 0.5}, {"a": 0.6}, ["a"])
    (True, False)
    """
    return not any(current.get(t, 0.0) > previous.get(t, 0.0) for t in uncovered)
