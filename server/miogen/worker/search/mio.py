"""The MIO loop (Arcuri 2017, sec. 3): sample at random with probability Pr, else evolve a test."""

from __future__ import annotations

import random

from miogen.worker.search.archive import Archive
from miogen.worker.search.budget import Budget
from miogen.worker.search.config import MioConfig
from miogen.worker.search.problem import Evaluated, Problem, T
from miogen.worker.search.session import OnEvaluation, Session, ShouldStop


def run_mio(
    problem: Problem[T],
    budget: Budget,
    rng: random.Random,
    config: MioConfig = MioConfig(),  # noqa: B008 - frozen, so a shared default is safe
    archive: Archive[T] | None = None,
    on_evaluation: OnEvaluation[T] | None = None,
    should_stop: ShouldStop | None = None,
) -> Archive[T]:
    """Run MIO until the budget is spent, ``should_stop()`` is true or all targets are covered.

    The first test is random (the archive is empty). Then, with probability Pr a new
    random test is evaluated; otherwise the archive hands out a test, which is copied
    and mutated up to m times (``_evolve``). Pr, n and m follow ``config``'s linear
    schedule on ``budget.fraction_used()``. A given ``archive`` (seeded from an earlier
    run) is continued; its own ``feedback_directed`` setting then applies.
    ``on_evaluation(test, improved)`` is called after every evaluation. "All targets"
    are those ``problem.targets()`` knows at that moment, and at least one.
    """
    if archive is None:
        start = config.at(0.0)
        archive = Archive(rng, start.population_size, config.feedback_directed)
    session = Session(problem, budget, archive, on_evaluation, should_stop)
    while session.should_continue():
        parameters = config.at(budget.fraction_used())
        if parameters.population_size != archive.population_size:
            archive.set_population_size(parameters.population_size)  # sec. 3.2
        parent = None
        if not archive.is_empty() and rng.random() >= parameters.probability_random:
            parent = archive.sample()
        if parent is None:
            session.evaluate(problem.sample(rng))
        else:
            _evolve(session, parent, parameters.mutations, rng)
    return archive


def _evolve(session: Session[T], parent: Evaluated[T], mutations: int, rng: random.Random) -> None:
    """Mutate a copy of ``parent`` up to ``mutations`` times, evaluating each mutant (sec. 3.2).

    Each mutant is offered to the archive. The next mutation starts from the mutant
    unless it is dominated by the test it came from (EvoMaster's rule): an improvement
    or a sideways step is kept, so the chain can also drift along plateaus, while a
    step back is undone.
    """
    current = parent
    for step in range(mutations):
        if step and not session.should_continue():
            return
        mutant, improved = session.evaluate(session.problem.mutate(current.individual, rng))
        if improved or not _dominates(current, mutant, session.archive):
            current = mutant


def _dominates(a: Evaluated[T], b: Evaluated[T], archive: Archive[T]) -> bool:
    """True if ``a`` is at least as good as ``b`` on every uncovered target, and better somewhere.

    "Better somewhere" is a higher h on some target or, with equal h everywhere, a
    smaller size. Covered targets are ignored: the archive already holds their test.
    """
    strictly_better = False
    a_h, b_h = a.h, b.h
    for target, h_a in a_h.items():
        h_b = b_h.get(target, 0.0)
        # Coverage is only looked up where the scores differ: that is rare, and a
        # covered target scores 1 in most tests that reach it.
        if h_a != h_b and not archive.is_covered(target):
            if h_a < h_b:
                return False
            strictly_better = True
    for target, h_b in b_h.items():
        if h_b > 0.0 and target not in a_h and not archive.is_covered(target):
            return False  # b reaches something a does not
    return strictly_better or a.size < b.size
