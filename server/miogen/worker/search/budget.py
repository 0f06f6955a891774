"""A clock for one search run: wall seconds and/or fitness evaluations, whichever ends first."""

from __future__ import annotations

import time
from collections.abc import Callable


class Budget:
    """How much of a run is spent, as one fraction the parameter schedule can read.

    Either limit may be ``None``; a budget with neither never runs out (stop the run
    with ``should_stop`` instead) and its fraction stays 0, so MIO never focuses.

    >>> budget = Budget(evaluations=4)
    >>> budget.start(); budget.record_evaluation()
    >>> budget.fraction_used(), budget.exhausted()
    (0.25, False)
    """

    def __init__(
        self,
        seconds: float | None = None,
        evaluations: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if seconds is not None and seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {seconds}")
        if evaluations is not None and evaluations < 0:
            raise ValueError(f"evaluations must be >= 0, got {evaluations}")
        self.seconds = seconds
        self.evaluations = evaluations
        self._clock = clock
        self._started_at: float | None = None
        self._evaluations_used = 0

    def start(self) -> None:
        """Start (or restart) the wall clock; evaluations already recorded still count."""
        self._started_at = self._clock()

    @property
    def started(self) -> bool:
        return self._started_at is not None

    def record_evaluation(self) -> None:
        self._evaluations_used += 1

    @property
    def evaluations_used(self) -> int:
        return self._evaluations_used

    @property
    def elapsed(self) -> float:
        """Wall seconds since ``start()``; 0 before it."""
        if self._started_at is None:
            return 0.0
        return self._clock() - self._started_at

    def seconds_left(self) -> float | None:
        """Wall seconds until the time limit (all of it before ``start()``); None without one."""
        if self.seconds is None:
            return None
        return max(self.seconds - self.elapsed, 0.0)

    def fraction_used(self) -> float:
        """The larger of the two spent fractions, clipped to [0, 1]."""
        used = 0.0
        if self.evaluations is not None:
            used = self._evaluations_used / self.evaluations if self.evaluations else 1.0
        # The clock is only read when there is a time limit: evaluation budgets stay
        # deterministic and cheap.
        if self.seconds is not None and used < 1.0:
            used = max(used, self.elapsed / self.seconds if self.seconds else 1.0)
        return min(used, 1.0)

    def exhausted(self) -> bool:
        # Checked before every evaluation, so it avoids fraction_used()'s divisions.
        if self.evaluations is not None and self._evaluations_used >= self.evaluations:
            return True
        return self.seconds is not None and self.elapsed >= self.seconds

    def __repr__(self) -> str:
        return (
            f"Budget(seconds={self.seconds}, evaluations={self.evaluations}, "
            f"used={self._evaluations_used}, elapsed={self.elapsed:.3f})"
        )
