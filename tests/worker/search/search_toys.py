"""Toy problems for the search tests: small, deterministic, nothing mocked."""

from __future__ import annotations

import random
from collections import Counter

from miogen.worker.search import Evaluated


class Counters:
    """OneMax with a staircase: ``length`` counters in [0, top]; counter i done at ``top``.

    Target ``"c{i}"`` scores ``x_i / top`` (0 = not reached). Random tests start low
    (each counter in [0, 3]), so random search practically never covers anything while
    hill climbing covers everything; a mutation moves one counter by 1..4 either way.
    """

    def __init__(self, length: int = 8, top: int = 40) -> None:
        self.length = length
        self.top = top
        self._targets = tuple(f"c{i}" for i in range(length))
        self.calls: Counter[str] = Counter()

    def sample(self, rng: random.Random) -> tuple[int, ...]:
        self.calls["sample"] += 1
        return tuple(rng.randint(0, 3) for _ in range(self.length))

    def mutate(self, individual: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
        self.calls["mutate"] += 1
        index = rng.randrange(self.length)
        step = rng.choice((-1, 1)) * rng.randint(1, 4)
        values = list(individual)
        values[index] = min(max(values[index] + step, 0), self.top)
        return tuple(values)

    def evaluate(self, individual: tuple[int, ...]) -> Evaluated[tuple[int, ...]]:
        self.calls["evaluate"] += 1
        h = {name: x / self.top for name, x in zip(self._targets, individual, strict=True) if x}
        return Evaluated(individual, h, self.length)

    def targets(self) -> tuple[str, ...]:
        return self._targets


class Growing(Counters):
    """Counters whose targets are discovered as they are first reached, like new branches."""

    def __init__(self, length: int = 8, top: int = 40) -> None:
        super().__init__(length, top)
        self.seen: dict[str, None] = {}

    def evaluate(self, individual: tuple[int, ...]) -> Evaluated[tuple[int, ...]]:
        evaluated = super().evaluate(individual)
        self.seen.update(dict.fromkeys(evaluated.h))
        return evaluated

    def targets(self) -> tuple[str, ...]:
        return tuple(self.seen)


def snapshot(archive) -> dict:
    """Everything observable in an archive, for equality checks."""
    return {
        "populations": {
            target: [(e.individual, dict(e.h), e.size) for e in tests]
            for target, tests in archive.populations().items()
        },
        "covered": sorted(archive.covered(), key=str),
        "counters": {target: archive.counter(target) for target in archive.populations()},
        "n": archive.population_size,
    }


class Priced:
    """Targets that many tests cover at different costs, plus one that nobody covers.

    A test is ``(x, cost)``: target ``"t{i}"`` scores ``1/(1+|x - goal_i|)`` (covered at the
    goal), and ``cost`` in [0, 20] changes nothing but the test's seven performance proxies,
    which all equal ``cost``. ``"never"`` scores a constant 0.5 so the search keeps running
    after the feasible targets are covered. Mutation moves x by +-1..3 or redraws the cost.
    """

    def __init__(self, goals: tuple[int, ...] = (3, 8, 13)) -> None:
        self.goals = goals
        self._targets = (*(f"t{i}" for i in range(len(goals))), "never")

    def sample(self, rng: random.Random) -> tuple[int, int]:
        return (rng.randint(0, 16), rng.randint(0, 20))

    def mutate(self, individual: tuple[int, int], rng: random.Random) -> tuple[int, int]:
        x, cost = individual
        if rng.random() < 0.5:
            return (x + rng.choice((-3, -2, -1, 1, 2, 3)), cost)
        return (x, rng.randint(0, 20))

    def evaluate(self, individual: tuple[int, int]) -> Evaluated[tuple[int, int]]:
        x, cost = individual
        h = {f"t{i}": 1.0 / (1 + abs(x - goal)) for i, goal in enumerate(self.goals)}
        h["never"] = 0.5
        return Evaluated(individual, h, 1, proxies=(cost,) * 7)

    def targets(self) -> tuple[str, ...]:
        return self._targets


class Lottery:
    """Targets that are hit or missed, never approached: ``"t{i}"`` scores 1 for the test ``i``.

    A test is an integer in [0, ``draws``); the ones below ``count`` cover one target each and
    the others cover nothing, so no uncovered target's h ever rises above 0. Each generation
    still covers a few new targets, and that is its only progress. Mutation draws anew.
    """

    def __init__(self, count: int = 300, draws: int = 3000) -> None:
        self.count, self.draws = count, draws
        self._targets = tuple(f"t{i}" for i in range(count))

    def sample(self, rng: random.Random) -> int:
        return rng.randrange(self.draws)

    def mutate(self, individual: int, rng: random.Random) -> int:  # noqa: ARG002 - the protocol's
        return rng.randrange(self.draws)

    def evaluate(self, individual: int) -> Evaluated[int]:
        h = {f"t{individual}": 1.0} if individual < self.count else {}
        return Evaluated(individual, h, 1, proxies=(float(individual % 7),) * 7)

    def targets(self) -> tuple[str, ...]:
        return self._targets


class Costly(Counters):
    """Counters in which progress costs: every proxy of a test is the sum of its counters.

    Real code is like this: the tests that reach deep branches run more code. The cheapest
    test best at some target is the one that got least far, so a parent chosen for its low
    cost is a poor start for the targets still uncovered.
    """

    def evaluate(self, individual: tuple[int, ...]) -> Evaluated[tuple[int, ...]]:
        evaluated = super().evaluate(individual)
        return Evaluated(
            individual, evaluated.h, self.length, proxies=(float(sum(individual)),) * 7
        )
