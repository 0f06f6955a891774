"""MIO's archive: one small population of tests per target, and the paper's rules for filling it."""

from __future__ import annotations

import heapq
import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Generic

from miogen.worker.search.problem import Evaluated, T

# One test in one target's population: (h for that target, -size, arrival number, the test).
# Ordered worst first, so each population is a min-heap with its worst test at [0]: a
# lower h is worse, then a larger size, then an older arrival. Tuples keep offer()'s hot
# path free of attribute look-ups, and the unique arrival number means tests are never
# compared themselves.
_Entry = tuple[float, int, int, Evaluated[Any]]
# One FDS queue entry: (counter, random tie-break, push number, target).
_Ticket = tuple[int, float, int, Hashable]


class Archive(Generic[T]):
    """The best tests seen so far, kept per target, and the choice of which one to evolve next.

    This is where MIO lives (Arcuri 2017, sec. 3); the loop in ``mio.py`` only decides
    between sampling at random and mutating what this class hands out.

    *Populations.* Every target k has its own population T_k of at most n tests. A test
    that scores ``h_k > 0`` is offered to T_k; one test can sit in many populations, so
    dropping it from one loses nothing another target still needs. A target whose
    population holds a test with ``h_k = 1`` is *covered*: its population collapses to
    that single test for good, and the test is then only traded for a shorter one, or an
    equally short one with more total h (it helps more on the other targets). The
    solution of a run is exactly these covered populations.

    *Sampling.* To evolve something, pick an uncovered target that has at least one test
    (a test with guidance towards something not yet done), then a random test of it;
    only when no such target exists fall back to the covered ones. With feedback-directed
    sampling (FDS, sec. 3.3) the uncovered target is the one with the lowest counter:
    sampling from T_k increments ``c_k`` and an improvement of T_k (a test with a higher
    h_k than it ever held) resets it to 0, so targets that keep improving keep being
    chosen while plateaus and infeasible targets starve. A test merely as good as the
    others does not reset it: on a plateau every newcomer is, and the counter must grow.
    (EvoMaster resets on a test better than the population's *worst*; EvoSuite's MIO on
    any addition.) Ties are broken at random, with the run's seeded generator.

    *Cost.* ``offer`` touches only the targets present in the test's ``h``, each in
    O(log n) (populations are heaps, worst first); sampling is O(log #targets) through a
    heap of counters with lazy deletion. The per-test overhead does not grow with the
    number of targets.

    *Performance.* With ``performance=True`` (aDynaMOSA's archive, MIO's ``--performance``) a
    covered target's test is traded for one with a lower performance score (Eq. 1 of Grano
    et al.) first; the size rule only breaks ties.

    *Determinism.* All containers are insertion-ordered dicts or lists, never iterated
    sets, so a fixed seed gives the same archive whatever ``PYTHONHASHSEED`` is.

    >>> archive = Archive(random.Random(1), population_size=2)
    >>> archive.offer(Evaluated("x=3", {"branch": 0.5}, size=1))
    True
    >>> archive.offer(Evaluated("x=7", {"branch": 1.0}, size=1)), archive.covered()
    (True, {'branch'})
    """

    def __init__(
        self,
        rng: random.Random,
        population_size: int = 10,
        feedback_directed: bool = True,
        performance: bool = False,
    ) -> None:
        if population_size < 1:
            raise ValueError(f"population_size must be >= 1, got {population_size}")
        self._rng = rng
        self._n = population_size
        self._feedback_directed = feedback_directed
        # aDynaMOSA's archive rule (and MIO's --performance): a covered target's test is traded
        # for one with a lower performance score (Eq. 1) first, the size rule only breaks ties.
        self._performance = performance
        # Population per target, a heap of _Entry; a covered target's has exactly one entry.
        self._populations: dict[Hashable, list[_Entry]] = {}
        self._arrivals = 0
        # Highest h ever stored per target; only grows. Improvements are measured against it.
        self._best_h: dict[Hashable, float] = {}
        # Covered target -> total h of its single test (the tie-break of the size rule).
        self._covered: dict[Hashable, float] = {}
        # FDS counter per target: +1 per sampling, 0 again when the population improves.
        self._counters: dict[Hashable, int] = {}
        # Targets eligible for sampling: uncovered with a test, and covered ones (fallback).
        self._open = _IndexedSet()
        self._closed = _IndexedSet()
        # FDS: min-heap of tickets for open targets; a ticket is live only while it is
        # the target's latest one (``_latest``), stale ones are skipped when popped.
        self._queue: list[_Ticket] = []
        self._latest: dict[Hashable, _Ticket] = {}
        self._pushes = 0

    # ----------------------------------------------------------------- insertion (sec. 3.1)

    def offer(self, evaluated: Evaluated[T]) -> bool:
        """Offer a test to the population of every target it scores on (sec. 3.1).

        Returns True if any population improved: a target newly covered, a higher h
        than its population ever had, or a covered target's test traded for a better one.
        """
        improved = False
        total_h = -1.0  # computed at most once, and only if a size tie needs it
        self._arrivals += 1
        for target, h in evaluated.h.items():
            if h <= 0.0:
                continue  # rule 1: h = 0 means no guidance, never stored
            if target in self._covered:
                if h >= 1.0:
                    if total_h < 0.0:
                        total_h = evaluated.total_h
                    improved |= self._offer_to_covered(target, evaluated, total_h)
            elif h >= 1.0:
                self._cover(target, evaluated)
                improved = True
            else:
                improved |= self._offer_to_population(target, h, evaluated)
        return improved

    def _cover(self, target: Hashable, evaluated: Evaluated[T]) -> None:
        """Rule 2 (sec. 3.1): h = 1 shrinks the population to this one test, for good."""
        self._populations[target] = [(1.0, -evaluated.size, self._arrivals, evaluated)]
        self._best_h[target] = 1.0
        self._covered[target] = evaluated.total_h
        self._counters[target] = 0
        self._open.discard(target)
        self._closed.add(target)
        self._latest.pop(target, None)  # its queued tickets become stale

    def _offer_to_covered(self, target: Hashable, evaluated: Evaluated[T], total_h: float) -> bool:
        """Rule 2 (sec. 3.1): replace only by a shorter test, or same size and more total h.

        With ``performance`` the performance score (aDynaMOSA's Eq. 1) decides first: a covered
        target keeps the cheaper test, as aDynaMOSA's archive does (sec. 3.2.2). Coverage is
        never traded: only tests that also cover the target are offered here.
        """
        population = self._populations[target]
        if self._performance:
            score, current = evaluated.performance_score, population[0][3].performance_score
            if score != current:
                if score > current:
                    return False
                population[0] = (1.0, -evaluated.size, self._arrivals, evaluated)
                self._covered[target] = total_h
                return True
        size = evaluated.size
        current_size = -population[0][1]
        if size < current_size or (size == current_size and total_h > self._covered[target]):
            population[0] = (1.0, -size, self._arrivals, evaluated)
            self._covered[target] = total_h
            return True
        return False

    def _offer_to_population(self, target: Hashable, h: float, evaluated: Evaluated[T]) -> bool:
        """Rules 3 and 4 (sec. 3.1): add while not full, else replace the worst if not worse.

        "Not worse" means ``h >= worst h`` and, at equal h, ``size <= worst size``: the
        newcomer need not be better, which lets a population drift along plateaus. Among
        equally bad tests the oldest goes first.
        """
        population = self._populations.get(target)
        entry = (h, -evaluated.size, self._arrivals, evaluated)
        if population is None:
            self._populations[target] = [entry]
            self._open.add(target)
        elif len(population) < self._n:
            heapq.heappush(population, entry)
        else:
            worst = population[0]
            if h < worst[0] or (h == worst[0] and entry[1] < worst[1]):
                return False
            heapq.heapreplace(population, entry)
        if h > self._best_h.get(target, 0.0):
            self._best_h[target] = h
            self._reset_counter(target)  # sec. 3.3: a better test resets c_k
            return True
        return False

    # ----------------------------------------------------------------- population size (sec. 3.2)

    @property
    def population_size(self) -> int:
        return self._n

    @property
    def performance(self) -> bool:
        """Whether covered targets keep the test with the lower performance score (Eq. 1)."""
        return self._performance

    @property
    def feedback_directed(self) -> bool:
        """Whether sampling uses FDS; fixed at construction, the counter queue depends on it."""
        return self._feedback_directed

    def set_population_size(self, n: int) -> None:
        """Change n; shrinking drops each population's worst tests at once (sec. 3.2)."""
        if n < 1:
            raise ValueError(f"population size must be >= 1, got {n}")
        if n < self._n:
            for population in self._populations.values():
                if len(population) > n:
                    # Sorted worst first, the tail is the best n, and a sorted list is
                    # still a valid heap.
                    population.sort()
                    del population[: len(population) - n]
        self._n = n

    # ----------------------------------------------------------------- sampling (sec. 3.1, 3.3)

    def sample_individual(self) -> T | None:
        """A test to copy and mutate, or None while the archive is empty (secs. 3.1, 3.3)."""
        evaluated = self.sample()
        return None if evaluated is None else evaluated.individual

    def sample(self) -> Evaluated[T] | None:
        """Like ``sample_individual`` but with the test's scores, which MIO's loop compares."""
        target = self._choose_target()
        if target is None:
            return None
        self._increment_counter(target)
        population = self._populations[target]
        return population[int(self._rng.random() * len(population))][3]

    def _choose_target(self) -> Hashable | None:
        """An uncovered non-empty target (lowest counter with FDS), else a covered one."""
        if self._open:
            if self._feedback_directed:
                return self._lowest_counter_target()
            return self._open.choice(self._rng)
        if self._closed:
            # The paper picks among covered targets at random, FDS or not.
            return self._closed.choice(self._rng)
        return None

    def _lowest_counter_target(self) -> Hashable:
        queue = self._queue
        while True:
            ticket = queue[0]
            if self._latest.get(ticket[3]) is ticket:
                return ticket[3]
            heapq.heappop(queue)  # stale: the counter moved on or the target got covered

    def _increment_counter(self, target: Hashable) -> None:
        self._counters[target] = self._counters.get(target, 0) + 1
        self._enqueue(target)

    def _reset_counter(self, target: Hashable) -> None:
        self._counters[target] = 0
        self._enqueue(target)

    def _enqueue(self, target: Hashable) -> None:
        """Queue a fresh ticket for an open target; ties on the counter go to the lower draw."""
        if not self._feedback_directed or target not in self._open:
            return
        self._pushes += 1
        ticket = (self._counters[target], self._rng.random(), self._pushes, target)
        previous = self._latest.get(target)
        self._latest[target] = ticket
        queue = self._queue
        if previous is not None and queue[0] is previous:
            # The common case, a target just sampled: its old ticket is on top, swap it.
            heapq.heapreplace(queue, ticket)
            return
        heapq.heappush(queue, ticket)
        if len(queue) > 4 * len(self._latest) + 64:
            self._compact_queue()

    def _compact_queue(self) -> None:
        # Stale tickets only cost memory and pops; rebuilding keeps the heap O(#targets).
        self._queue = list(self._latest.values())
        heapq.heapify(self._queue)

    # ----------------------------------------------------------------- reading the archive

    def counter(self, target: Hashable) -> int:
        """The FDS counter c_k (sec. 3.3); 0 for a target never sampled."""
        return self._counters.get(target, 0)

    def is_covered(self, target: Hashable) -> bool:
        return target in self._covered

    @property
    def covered_count(self) -> int:
        return len(self._covered)

    def covered(self) -> set[Hashable]:
        return set(self._covered)

    def best_h(self, target: Hashable) -> float:
        """The highest h any test reached on the target; 0 if never reached."""
        return self._best_h.get(target, 0.0)

    def solution(self) -> dict[Hashable, Evaluated[T]]:
        """Covered target -> the single test that covers it."""
        return {target: self._populations[target][0][3] for target in self._covered}

    def best(self, target: Hashable) -> Evaluated[T] | None:
        """The best test for any target: highest h, then smallest size, then newest."""
        population = self._populations.get(target)
        if not population:
            return None
        return max(population)[3]

    def populations(self) -> Mapping[Hashable, Sequence[Evaluated[T]]]:
        """A snapshot of every population, best test first, in the order targets were reached."""
        return {
            target: tuple(entry[3] for entry in sorted(population, reverse=True))
            for target, population in self._populations.items()
        }

    def is_empty(self) -> bool:
        return not self._populations

    def __repr__(self) -> str:
        return (
            f"Archive(targets={len(self._populations)}, covered={len(self._covered)}, "
            f"n={self._n}, feedback_directed={self.feedback_directed})"
        )


class _IndexedSet:
    """An insertion-ordered set with O(1) add, discard and uniform random choice."""

    def __init__(self, items: Iterable[Hashable] = ()) -> None:
        self._items: list[Hashable] = []
        self._positions: dict[Hashable, int] = {}
        for item in items:
            self.add(item)

    def add(self, item: Hashable) -> None:
        if item not in self._positions:
            self._positions[item] = len(self._items)
            self._items.append(item)

    def discard(self, item: Hashable) -> None:
        position = self._positions.pop(item, None)
        if position is None:
            return
        last = self._items.pop()
        if position < len(self._items):  # move the last item into the hole
            self._items[position] = last
            self._positions[last] = position

    def choice(self, rng: random.Random) -> Hashable:
        # int(random() * k) is uniform enough for any realistic k and much cheaper than randrange.
        return self._items[int(rng.random() * len(self._items))]

    def __contains__(self, item: object) -> bool:
        return item in self._positions

    def __len__(self) -> int:
        return len(self._items)
