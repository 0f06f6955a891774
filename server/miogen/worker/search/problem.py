"""The generic problem a search works on: sample, mutate, evaluate, and the targets known so far."""

from __future__ import annotations

import random
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from miogen.worker.search.performance import performance_score

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Evaluated(Generic[T]):
    """One individual with its heuristic scores, as the archive sees it.

    ``h`` maps each target the execution said something about to a score in [0, 1]:
    1 means covered, values in between mean "closer is higher" (``1/(1+d)`` for a
    branch distance ``d``), and a missing key means 0, i.e. not reached. ``size`` is
    the length used by the archive's size rules; smaller is better. ``proxies`` are the
    test's performance proxies I1..I7 (``worker.search.performance.PROXIES``), counted in the same run,
    or empty when the problem does not count them.

    >>> Evaluated("t", {"a": 1.0, "b": 0.5}, size=2).total_h
    1.5
    """

    individual: T
    h: Mapping[Hashable, float]
    size: int
    proxies: tuple[float, ...] = ()

    @property
    def total_h(self) -> float:
        """Sum of the scores over all targets: the archive's tie-break between equal-size tests."""
        return sum(self.h.values())

    @property
    def performance_score(self) -> float:
        """aDynaMOSA's Eq. 1 over ``proxies``: lower means a cheaper test (0 when not counted)."""
        return performance_score(self.proxies)


class Problem(Protocol[T]):
    """What a search needs from a problem; it never looks inside an individual."""

    def sample(self, rng: random.Random) -> T:
        """Return a new random individual."""
        ...

    def mutate(self, individual: T, rng: random.Random) -> T:
        """Return a mutated copy; the argument must not change, the archive may hold it."""
        ...

    def evaluate(self, individual: T) -> Evaluated[T]:
        """Run the individual and score it; the result may carry a truncated individual."""
        ...

    def targets(self) -> Collection[Hashable]:
        """All targets known so far; the collection may grow while the search runs."""
        ...


class Recombinable(Protocol[T]):
    """A problem whose individuals can be recombined: DynaMOSA's crossover needs it."""

    def crossover(self, first: T, second: T, rng: random.Random) -> tuple[T, T]:
        """Two offspring of single-point crossover; the parents must not change."""
        ...


class Structured(Protocol):
    """A problem that knows its targets' control dependencies (DynaMOSA's CDG)."""

    def control_dependencies(self) -> Mapping[Hashable, tuple[Hashable, ...]]:
        """Target -> the targets controlling it: covering any one of them makes it reachable.

        A target missing from the mapping, or mapped to ``()``, is free of dependencies.
        """
        ...
