"""The generic problem a search works on: sample, mutate, evaluate, and the targets known so far."""

from __future__ import annotations

import random
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Evaluated(Generic[T]):
    """One individual with its heuristic scores, as the archive sees it.

    ``h`` maps each target the execution said something about to a score in [0, 1]:
    1 means covered, values in between mean "closer is higher" (``1/(1+d)`` for a
    branch distance ``d``), and a missing key means 0, i.e. not reached. ``size`` is
    the length used by the archive's size rules; smaller is better.

    >>> Evaluated("t", {"a": 1.0, "b": 0.5}, size=2).total_h
    1.5
    """

    individual: T
    h: Mapping[Hashable, float]
    size: int

    @property
    def total_h(self) -> float:
        """Sum of the scores over all targets: the archive's tie-break between equal-size tests."""
        return sum(self.h.values())


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
