"""Plumbing every search algorithm shares: evaluate, count, archive, report, and when to stop."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable
from typing import Generic

from miogen.worker.search.archive import Archive
from miogen.worker.search.budget import Budget
from miogen.worker.search.problem import Evaluated, Problem, T

OnEvaluation = Callable[[Evaluated[T], bool], None]
ShouldStop = Callable[[], bool]


class Session(Generic[T]):
    """One run of one algorithm on one problem; algorithms differ only in what they evaluate.

    Every evaluation goes through ``evaluate``, so all algorithms count the budget, fill
    the archive and report progress the same way, which keeps their comparison fair.
    """

    def __init__(
        self,
        problem: Problem[T],
        budget: Budget,
        archive: Archive[T],
        on_evaluation: OnEvaluation[T] | None = None,
        should_stop: ShouldStop | None = None,
    ) -> None:
        self.problem = problem
        self.budget = budget
        self.archive = archive
        self._on_evaluation = on_evaluation
        self._should_stop = should_stop
        # Whether every known target is covered can only change when the archive
        # improves or the problem learns new targets; remember the last answer.
        self._coverage_changed = True
        self._known_targets = -1
        self._all_covered = False
        if not budget.started:
            budget.start()

    def evaluate(self, individual: T) -> tuple[Evaluated[T], bool]:
        """Evaluate, charge the budget, offer to the archive; returns (test, archive improved)."""
        evaluated = self.problem.evaluate(individual)
        self.budget.record_evaluation()
        improved = self.archive.offer(evaluated)
        if improved:
            self._coverage_changed = True
        if self._on_evaluation is not None:
            self._on_evaluation(evaluated, improved)
        return evaluated, improved

    def should_continue(self) -> bool:
        """False once the budget is spent, the caller asks to stop, or nothing is left to cover."""
        if self.budget.exhausted():
            return False
        if self._should_stop is not None and self._should_stop():
            return False
        return not self._all_targets_covered()

    def _all_targets_covered(self) -> bool:
        targets = self.problem.targets()
        if self._coverage_changed or len(targets) != self._known_targets:
            self._coverage_changed = False
            self._known_targets = len(targets)
            self._all_covered = _covers_all(self.archive, targets)
        return self._all_covered


def _covers_all(archive: Archive[T], targets: Collection[Hashable]) -> bool:
    # An empty target set means "nothing known yet" (targets appear as code runs),
    # not "all done". The count check keeps the common case O(1).
    if not targets or archive.covered_count < len(targets):
        return False
    return all(archive.is_covered(target) for target in targets)


class StopSearch(Exception):
    """Raised inside nested generation steps (WTS) to unwind the run once it must stop."""
