"""Random search: only sampling, into the same archive MIO uses, as the baseline."""

from __future__ import annotations

import random

from miogen.worker.search.archive import Archive
from miogen.worker.search.budget import Budget
from miogen.worker.search.problem import Problem, T
from miogen.worker.search.session import OnEvaluation, Session, ShouldStop


def run_random(
    problem: Problem[T],
    budget: Budget,
    rng: random.Random,
    archive: Archive[T] | None = None,
    on_evaluation: OnEvaluation[T] | None = None,
    should_stop: ShouldStop | None = None,
) -> Archive[T]:
    """Sample and evaluate random tests until the run must stop; the archive keeps the best.

    A fresh archive keeps the paper's default n = 10 and no FDS: random search never
    samples from it, and FDS tie-break draws would only perturb the random stream.
    """
    if archive is None:
        archive = Archive(rng, feedback_directed=False)
    session = Session(problem, budget, archive, on_evaluation, should_stop)
    while session.should_continue():
        session.evaluate(problem.sample(rng))
    return archive
