"""DynaMOSA and aDynaMOSA: a many-objective GA over tests, with dynamic target selection.

DynaMOSA: Panichella, Kifetew and Tonella, TSE 2018 (MOSA, ICST 2015, plus the control-dependence
graph). aDynaMOSA: Grano, Laaber, Panichella and Panichella, "Testing with Fewer Resources" (TSE),
Alg. 1 and 2. The digest (sec. 3) summarises both.

Where the aDynaMOSA paper is silent, this module chooses: the initial population is ranked with
crowding distance for every variant (Alg. 1 generates offspring from P_0 without saying how its
tournament ranks it; EvoSuite ranks it as MOSA does); Eq. 2 scores a test of a front alone 0, and a
proxy with I_max = I_min adds 0 (``performance_heuristic``); the secondary heuristic decides
survival (which tests of a front enter the next population, Alg. 1 lines 16-25, as the paper's
text says), while the tournament that picks parents stays DynaMOSA's (GENERATE-OFFSPRING is not in
bold): the lower front, then the higher crowding distance. Eq. 2 in the tournament made every
parent the cheapest test of front 0 (one best test per uncovered target), which starved the deep
targets of diverse parents: 7.8 branch points lost on fractions at 500 evaluations, none once the
tournament kept crowding (docs/criteria-and-dynamosa.md). The archive replaces a
covered target's test by a cheaper one (Eq. 1), never by a dearer one, and on an equal score (the
paper keeps the old test) falls back to DynaMOSA's size rule, which can only pick an equally cheap
test. The tests the search keeps are minimised afterwards (set cover, then shrinking); the paper
minimises too (EvoSuite's), without saying how, so bench.criteria measures the cost of the suite
as emitted. For the performance-aware variants (and MIO ``--performance``) the minimisation is
cost-aware (``minimize.cost``): the cheaper cover of the same goals, a test weighing pytest's
measured fixed cost plus its production statements, and narrow tests joined into fewer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic

from miogen.worker.search.archive import Archive
from miogen.worker.search.budget import Budget
from miogen.worker.search.cdg import ControlDependencies
from miogen.worker.search.performance import (
    Heuristic,
    HeuristicSwitch,
    performance_heuristic,
    stagnated,
)
from miogen.worker.search.problem import Evaluated, Problem, T
from miogen.worker.search.session import OnEvaluation, Session, ShouldStop, StopSearch


class Variant(StrEnum):
    """Which secondary criteria the GA uses (the paper's algorithm and its ablation)."""

    DYNAMOSA = "dynamosa"  # size breaks ties, subvector dominance orders a front
    ADAPTIVE = "adynamosa"  # Alg. 1: the archive keeps cheaper tests, fronts switch by Alg. 2
    # The paper's ablation (sec. 5, "Need for an adaptive approach"): aDynaMOSA with
    # GET-SECONDARY-HEURISTIC disabled, so every front is ordered by Eq. 2 in every generation.
    NON_ADAPTIVE = "adynamosa-nonadaptive"


@dataclass(frozen=True)
class DynaMosaConfig:
    """EvoSuite's defaults (``POPULATION=50``, ``TOURNAMENT_SIZE=10``, ``CROSSOVER_RATE=0.75``).

    ``dynamic_targets`` off gives MOSA: every uncovered target is an objective from the start.
    """

    population_size: int = 50
    tournament_size: int = 10
    crossover_probability: float = 0.75
    variant: Variant = Variant.DYNAMOSA
    dynamic_targets: bool = True

    def __post_init__(self) -> None:
        if self.population_size < 2 or self.tournament_size < 1:
            raise ValueError("need a population of at least 2 and a tournament of at least 1")

    @property
    def archive_by_performance(self) -> bool:
        """aDynaMOSA (both variants) keeps the cheaper test per covered target (Eq. 1)."""
        return self.variant is not Variant.DYNAMOSA


@dataclass(frozen=True)
class Generation:
    """What one generation did, for ``on_generation`` (tests, statistics)."""

    number: int
    active: tuple[Hashable, ...]  # the targets aimed at when the population was ranked
    heuristic: Heuristic  # how tests inside a front were ordered
    evaluations: int


OnGeneration = Callable[[Generation], None]


def run_dynamosa(
    problem: Problem[T],
    budget: Budget,
    rng: random.Random,
    config: DynaMosaConfig = DynaMosaConfig(),  # noqa: B008 - frozen, so a shared default is safe
    archive: Archive[T] | None = None,
    on_evaluation: OnEvaluation[T] | None = None,
    should_stop: ShouldStop | None = None,
    on_generation: OnGeneration | None = None,
) -> Archive[T]:
    """Evolve a population of tests until the budget is spent, ``should_stop()`` or all is covered.

    The same entry as ``run_mio``: every evaluation goes through one ``Session`` into
    ``archive``, which is what the run returns (the covered targets' tests, MOSA's final suite).
    A given ``archive`` (seeded from an earlier run) is continued and its tests start the first
    population. Crossover needs a problem with ``crossover`` (``Recombinable``); without it the
    offspring are mutated copies. The control dependencies come from the problem's
    ``control_dependencies()`` (``Structured``) when it has one; without them every target is
    free, which is MOSA.
    """
    if archive is None:
        archive = Archive(
            rng, 1, feedback_directed=False, performance=config.archive_by_performance
        )
    session = Session(problem, budget, archive, on_evaluation, should_stop)
    parents: Mapping[Hashable, tuple[Hashable, ...]] = {}
    if config.dynamic_targets and hasattr(problem, "control_dependencies"):
        parents = problem.control_dependencies()
    ga = _ManyObjectiveGa(session, rng, config, ControlDependencies(parents), on_generation)
    try:
        ga.run()
    except StopSearch:
        pass
    return archive


@dataclass
class _Member(Generic[T]):
    """A test in the population: its rank (front), its score inside the front by the generation's
    secondary heuristic (survival), and its crowding distance in the front (the tournament)."""

    test: Evaluated[T]
    rank: int = 0
    score: float = 0.0
    crowding: float = 0.0


class _ManyObjectiveGa(Generic[T]):
    """Alg. 1 of the aDynaMOSA paper, which is DynaMOSA plus the lines on secondary heuristics."""

    def __init__(
        self,
        session: Session[T],
        rng: random.Random,
        config: DynaMosaConfig,
        graph: ControlDependencies,
        on_generation: OnGeneration | None,
    ) -> None:
        self.session, self.problem, self.archive = session, session.problem, session.archive
        self.rng, self.config, self.graph = rng, config, graph
        self.on_generation = on_generation
        self.switch = HeuristicSwitch()
        self.generation = 0
        self.size = config.population_size
        self.recombine = getattr(self.problem, "crossover", None)

    def run(self) -> None:
        population = self._rank(self._initial_population(), Heuristic.CROWDING)
        previous_best: dict[Hashable, float] = {}
        while self.session.should_continue():
            offspring = self._offspring(population)  # Alg. 1, 9-10: the archive is updated too
            # Alg. 2, line 7 runs after that update: a target the offspring just covered is no
            # longer "not covered", so covering alone is not an improvement of Alg. 2's loop.
            uncovered = [t for t in self.problem.targets() if not self.archive.is_covered(t)]
            best = _best_h(offspring)
            heuristic = self._heuristic(stagnated(previous_best, best, uncovered))
            previous_best = best
            population = self._rank([m.test for m in population] + offspring, heuristic)

    def _heuristic(self, stagnation: bool) -> Heuristic:
        """Alg. 2 for aDynaMOSA; always Eq. 2 for its ablation; always crowding for DynaMOSA."""
        if self.config.variant is Variant.ADAPTIVE:
            return self.switch.next(stagnation)
        if self.config.variant is Variant.NON_ADAPTIVE:
            return Heuristic.PERFORMANCE
        return Heuristic.CROWDING

    # ------------------------------------------------------------------ population

    def _initial_population(self) -> list[Evaluated[T]]:
        """Seeded tests first (the archive's covering tests, CTG's seeding), then random ones."""
        population: list[Evaluated[T]] = []
        seen: set[int] = set()
        for test in self.archive.solution().values():
            if id(test) not in seen and len(population) < self.size:
                seen.add(id(test))
                population.append(test)
        while len(population) < self.size:
            population.append(self._evaluate(self.problem.sample(self.rng)))
        return population

    def _offspring(self, population: list[_Member[T]]) -> list[Evaluated[T]]:
        """Tournament selection, single-point crossover (p = 0.75), then mutation of each child."""
        children: list[Evaluated[T]] = []
        while len(children) < self.size:
            first, second = self._select(population), self._select(population)
            pair = (first.test.individual, second.test.individual)
            if self.recombine is not None and self.rng.random() < self.config.crossover_probability:
                pair = self.recombine(*pair, self.rng)
            for individual in pair:
                if len(children) < self.size:
                    children.append(self._evaluate(self.problem.mutate(individual, self.rng)))
        return children

    def _select(self, population: list[_Member[T]]) -> _Member[T]:
        """Tournament: the lowest rank wins, then the highest crowding distance (EvoSuite's
        comparator), whichever heuristic ordered the fronts for survival."""
        best = population[int(self.rng.random() * len(population))]
        for _ in range(self.config.tournament_size - 1):
            other = population[int(self.rng.random() * len(population))]
            if (other.rank, -other.crowding) < (best.rank, -best.crowding):
                best = other
        return best

    def _evaluate(self, individual: T) -> Evaluated[T]:
        # The budget may run out in the middle of a generation: unwind the whole GA.
        if not self.session.should_continue():
            raise StopSearch
        return self.session.evaluate(individual)[0]

    # ------------------------------------------------------------------ ranking (Alg. 1, 12-25)

    def _rank(self, tests: list[Evaluated[T]], heuristic: Heuristic) -> list[_Member[T]]:
        """Preference-sort on the active targets, then fill the next population front by front."""
        from miogen.worker.search import ranking  # numpy: loaded only by the GA, not at every start

        covered = self.archive.is_covered
        active = self.graph.active(list(self.problem.targets()), covered)
        # Alg. 1, line 13 is DynaMOSA's preference sorting for both aDynaMOSA variants (it is
        # not in bold): ties for an uncovered target go to the shorter test, never the cheaper.
        fronts = ranking.preference_sort(tests, active, self.size, _size)
        chosen: list[_Member[T]] = []
        for rank, front in enumerate(fronts):
            members = [_Member(tests[index], rank) for index in front]
            front_tests = [m.test for m in members]
            crowding = self._scores(front_tests, active, Heuristic.CROWDING)
            scores = crowding
            if heuristic is Heuristic.PERFORMANCE:
                scores = self._scores(front_tests, active, heuristic)
            for member, score, distance in zip(members, scores, crowding, strict=True):
                member.score, member.crowding = score, distance
            if len(chosen) + len(members) > self.size:
                members.sort(key=lambda m: -m.score)  # stable: earlier tests first among equals
                chosen += members[: self.size - len(chosen)]
                break
            chosen += members
        self._report(active, heuristic)
        return chosen

    def _scores(
        self, front: list[Evaluated[T]], active: Sequence[Hashable], heuristic: Heuristic
    ) -> list[float]:
        if heuristic is Heuristic.PERFORMANCE:
            return performance_heuristic([test.proxies for test in front])
        from miogen.worker.search import ranking

        return ranking.subvector_dominance(ranking.objectives(front, active))

    def _report(self, active: list[Hashable], heuristic: Heuristic) -> None:
        if self.on_generation is not None:
            evaluations = self.session.budget.evaluations_used
            self.on_generation(Generation(self.generation, tuple(active), heuristic, evaluations))
        self.generation += 1


def _best_h(tests: Sequence[Evaluated[T]]) -> dict[Hashable, float]:
    """Target -> the best h any of ``tests`` reached (for Alg. 2's stagnation check)."""
    best: dict[Hashable, float] = {}
    for test in tests:
        for target, h in test.h.items():
            if h > best.get(target, 0.0):
                best[target] = h
    return best


def _size(test: Evaluated[Any]) -> float:
    return test.size
