"""Whole test suite generation (Fraser & Arcuri 2011), the GA baseline MIO is compared against."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic

from miogen.worker.search.archive import Archive
from miogen.worker.search.budget import Budget
from miogen.worker.search.problem import Evaluated, Problem, T
from miogen.worker.search.session import OnEvaluation, Session, ShouldStop, StopSearch


@dataclass(frozen=True)
class WtsConfig:
    """The GA's settings: the WTS paper's and EvoSuite's defaults, as the MIO paper ran them.

    ``initial_suite_size`` is drawn uniformly, as in the MIO paper's WTS baseline
    (1..50); the WTS paper itself started from 2 tests per suite.
    """

    population_size: int = 50
    max_suite_size: int = 50  # N
    initial_suite_size: tuple[int, int] = (1, 50)
    crossover_probability: float = 0.75
    rank_bias: float = 1.7  # EvoSuite's RANK_BIAS
    elite: int = 1  # EvoSuite's ELITE
    insertion_probability: float = (
        0.1  # sigma: chance to append a new random test, then sigma^2 ...
    )


@dataclass(frozen=True, slots=True)
class Suite(Generic[T]):
    """A test suite with its cached score; tests are evaluated once, when they are created.

    ``score`` is the sum over targets of the best h any test of the suite reaches. The
    WTS fitness ``sum_k nu(d_min(k))`` with ``nu(d) = d/(1+d)`` equals
    ``sum_k (1 - max h_k)`` for ``h = 1/(1+d)``, i.e. ``#targets - score``: minimising
    it is maximising ``score``, which does not depend on how many targets are known yet.
    (The paper's ``|M| - |M_T|`` method term is just more targets here.)
    """

    tests: tuple[Evaluated[T], ...]
    score: float
    length: int  # sum of the tests' sizes: the paper's length(T), used for bloat control

    def fitness(self, target_count: int) -> float:
        """The WTS fitness to minimise, over ``target_count`` known targets."""
        return target_count - self.score


def make_suite(tests: Sequence[Evaluated[T]]) -> Suite[T]:
    """Build a suite and compute its score from its tests' cached heuristics."""
    best: dict[object, float] = {}
    for test in tests:
        for target, h in test.h.items():
            if h > best.get(target, 0.0):
                best[target] = h
    return Suite(tuple(tests), sum(best.values()), sum(test.size for test in tests))


def run_wts(
    problem: Problem[T],
    budget: Budget,
    rng: random.Random,
    config: WtsConfig = WtsConfig(),  # noqa: B008 - frozen, so a shared default is safe
    on_evaluation: OnEvaluation[T] | None = None,
    should_stop: ShouldStop | None = None,
) -> Archive[T]:
    """Evolve whole suites until the run must stop; every evaluated test also goes to an archive.

    The archive (what is returned) is the same one MIO and random search fill, so the
    covered targets of all three are measured alike.
    """
    archive: Archive[T] = Archive(rng, feedback_directed=False)
    session = Session(problem, budget, archive, on_evaluation, should_stop)
    ga = _WholeSuiteGa(session, rng, config)
    try:
        population = ga.initial_population()
        while session.should_continue():
            population = ga.next_generation(population)
    except StopSearch:
        pass
    return archive


class _WholeSuiteGa(Generic[T]):
    """Algorithm 1 of the WTS paper, with its operators on suites of tests."""

    def __init__(self, session: Session[T], rng: random.Random, config: WtsConfig) -> None:
        self.session = session
        self.problem = session.problem
        self.rng = rng
        self.config = config

    def initial_population(self) -> list[Suite[T]]:
        low, high = self.config.initial_suite_size
        return [
            make_suite([self._new_test() for _ in range(self.rng.randint(low, high))])
            for _ in range(self.config.population_size)
        ]

    def next_generation(self, population: list[Suite[T]]) -> list[Suite[T]]:
        """Elitism, then rank selection, crossover, mutation and the acceptance rule."""
        ranked = sorted(population, key=_rank_key)
        best = ranked[0]
        offspring = ranked[: self.config.elite]
        while len(offspring) < self.config.population_size:
            parents = (self._select(ranked), self._select(ranked))
            offspring.extend(self._breed(*parents, best))
        return offspring[: self.config.population_size]

    def _breed(self, first: Suite[T], second: Suite[T], best: Suite[T]) -> list[Suite[T]]:
        """Two children replace their parents only if not worse, and not bloated (sec. III-D)."""
        children = (first.tests, second.tests)
        if self.rng.random() < self.config.crossover_probability:
            children = self._crossover(first.tests, second.tests)
        kids = [self._mutate(tests) for tests in children]
        kids_score, parents_score = max(k.score for k in kids), max(first.score, second.score)
        kids_length, parents_length = sum(k.length for k in kids), first.length + second.length
        if kids_score > parents_score or (
            kids_score == parents_score and kids_length <= parents_length
        ):
            # Silva & Costa's dynamic limit: a child that does not beat the best suite
            # may not be longer than twice it; a parent takes its place.
            return [
                kid
                if kid.score > best.score or kid.length <= 2 * best.length
                else self.rng.choice((first, second))
                for kid in kids
            ]
        return [first, second]

    def _select(self, ranked: list[Suite[T]]) -> Suite[T]:
        """Whitley's rank selection as in EvoSuite: index 0 (best) is the most likely."""
        bias = self.config.rank_bias
        r = self.rng.random()
        d = (bias - math.sqrt(bias * bias - 4.0 * (bias - 1.0) * r)) / 2.0 / (bias - 1.0)
        return ranked[min(int(len(ranked) * d), len(ranked) - 1)]

    def _crossover(
        self, first: tuple[Evaluated[T], ...], second: tuple[Evaluated[T], ...]
    ) -> tuple[tuple[Evaluated[T], ...], tuple[Evaluated[T], ...]]:
        """Single point at the same relative position alpha in both suites (sec. III-E1)."""
        alpha = self.rng.random()
        cut_first, cut_second = round(alpha * len(first)), round(alpha * len(second))
        limit = self.config.max_suite_size
        return (
            (first[:cut_first] + second[cut_second:])[:limit],
            (second[:cut_second] + first[cut_first:])[:limit],
        )

    def _mutate(self, tests: tuple[Evaluated[T], ...]) -> Suite[T]:
        """Mutate each test with probability 1/|T|, then append new ones with sigma, sigma^2 ..."""
        mutated = list(tests)
        for index, test in enumerate(mutated):
            if self.rng.random() * len(mutated) < 1.0:
                mutated[index] = self._evaluate(self.problem.mutate(test.individual, self.rng))
        sigma = self.config.insertion_probability
        chance = sigma
        while len(mutated) < self.config.max_suite_size and self.rng.random() < chance:
            mutated.append(self._new_test())
            chance *= sigma
        return make_suite(mutated)

    def _new_test(self) -> Evaluated[T]:
        return self._evaluate(self.problem.sample(self.rng))

    def _evaluate(self, individual: T) -> Evaluated[T]:
        # Stopping can be due in the middle of building a suite; unwind the whole GA.
        if not self.session.should_continue():
            raise StopSearch
        return self.session.evaluate(individual)[0]


def _rank_key(suite: Suite[T]) -> tuple[float, int]:
    """Best first: higher score (lower fitness), then shorter (the paper's tie-break)."""
    return (-suite.score, suite.length)
