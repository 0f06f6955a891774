"""MIO's parameters and their linear schedule from exploration to focus (paper sec. 3.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class MioParameters(NamedTuple):
    """The parameter values in force at one moment of a run (a tuple: built once per step)."""

    probability_random: float  # Pr: chance of sampling a new random test instead of mutating one
    population_size: int  # n: tests kept per uncovered target
    mutations: int  # m: mutations (and evaluations) spent on one sampled test


@dataclass(frozen=True)
class MioConfig:
    """Start and focused values of Pr, n and m, and the focus point F.

    Each pair is ``(start, focused)``; the defaults are the paper's (Pr 0.5 -> 0,
    n 10 -> 1, m 1 -> 10, F = 0.5). ``feedback_directed`` switches feedback-directed
    sampling (sec. 3.3) on or off, for ablations.

    >>> MioConfig().at(0.3).probability_random  # the paper's example: 0.5 -> 0.2 at 30 %
    0.2
    """

    probability_random: tuple[float, float] = (0.5, 0.0)
    population_size: tuple[int, int] = (10, 1)
    mutations: tuple[int, int] = (1, 10)
    focus_point: float = 0.5
    feedback_directed: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.focus_point <= 1.0:
            raise ValueError(f"focus_point must be in [0, 1], got {self.focus_point}")
        if min(self.population_size) < 1 or min(self.mutations) < 1:
            raise ValueError("population sizes and mutation counts must be >= 1")

    def at(self, fraction: float) -> MioParameters:
        """The parameters after ``fraction`` of the budget (paper sec. 3.2).

        Every value moves linearly from its start value, reaching the focused value
        exactly at F and keeping it afterwards. The integers n and m move by whole
        steps and only once a step is fully passed (truncation toward the start
        value, as EvoMaster's ``AdaptiveParameterControl`` does): n leaves 10 only
        after 1/9 of the way to F, and reaches 1 exactly at F, never before.
        """
        pr, n, m = self.probability_random, self.population_size, self.mutations
        if fraction >= self.focus_point:  # also covers F = 0: focused from the start
            return MioParameters(pr[1], n[1], m[1])
        progress = fraction / self.focus_point if fraction > 0.0 else 0.0
        # Positional and inline: MIO asks once per step. int() truncates toward zero,
        # i.e. toward the start value whichever way the value moves.
        return MioParameters(
            pr[0] + (pr[1] - pr[0]) * progress,
            n[0] + int((n[1] - n[0]) * progress),
            m[0] + int((m[1] - m[0]) * progress),
        )
