"""The MIO paper's artificial problems (sec. 4.1): Gradient, Plateau, Deceptive, Infeasible."""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence

from miogen.worker.search.problem import Evaluated

# An individual: (id, x). Target k can only be reached by a test whose id is k.
Point = tuple[int, int]

DISRUPTIVE_PROBABILITY = 0.01  # chance that a mutation redraws both id and x
MAX_STEP_EXPONENT = 10  # x moves by +-2**i with i in [0, 10]


def rho(distance: float) -> float:
    """The paper's normalising function: a distance in [0, inf) -> a score in (0, 1]."""
    return 1.0 / (1.0 + distance)


def _below(n: int, rng: random.Random) -> int:
    """A uniform integer in [0, n); ten times cheaper than randrange, exact enough for small n."""
    return int(rng.random() * n)


class Landscape:
    """z independent targets over x in [0, r], each with a goal g drawn from ``seed``.

    A test (id, x) scores only on target ``id``, with h = 1 exactly when x == g.
    Sampling draws id and x uniformly; mutation adds or subtracts 2**i (i in [0, 10]),
    clipped to [0, r], or with probability 0.01 redraws both id and x ("disruptive":
    x means nothing to another id). Every test has size 1. Subclasses give the shape
    of h below and above the goal.
    """

    def __init__(self, z: int, r: int = 1000, seed: int = 0) -> None:
        if z < 1 or r < 0:
            raise ValueError(f"need z >= 1 and r >= 0, got z={z}, r={r}")
        self.r = r
        goals = random.Random(seed)
        self.goals: tuple[int, ...] = tuple(goals.randint(0, r) for _ in range(z))
        self._targets = tuple(range(z))

    def sample(self, rng: random.Random) -> Point:
        return (_below(len(self._targets), rng), _below(self.r + 1, rng))

    def mutate(self, individual: Point, rng: random.Random) -> Point:
        if rng.random() < DISRUPTIVE_PROBABILITY:
            return self.sample(rng)
        target, x = individual
        step = 1 << _below(MAX_STEP_EXPONENT + 1, rng)
        x = x + step if rng.random() < 0.5 else x - step
        return (target, min(max(x, 0), self.r))

    def evaluate(self, individual: Point) -> Evaluated[Point]:
        target, x = individual
        return Evaluated(individual, {target: self.heuristic(target, x)}, 1)

    def targets(self) -> Sequence[int]:
        return self._targets

    def feasible(self) -> Sequence[int]:
        """The targets that can be covered at all."""
        return self._targets

    def heuristic(self, target: int, x: int) -> float:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(z={len(self._targets)}, r={self.r})"


class Gradient(Landscape):
    """h = rho(|x - g|): a clear gradient towards the goal from both sides."""

    def heuristic(self, target: int, x: int) -> float:
        return rho(abs(x - self.goals[target]))


class Plateau(Landscape):
    """h = rho(g - x) up to the goal; above it a flat plateau at rho(0.1 r)."""

    def heuristic(self, target: int, x: int) -> float:
        goal = self.goals[target]
        return rho(goal - x) if goal >= x else rho(0.1 * self.r)


class Deceptive(Landscape):
    """h = rho(g - x) up to the goal; above it a gradient leading away, towards r."""

    def heuristic(self, target: int, x: int) -> float:
        goal = self.goals[target]
        return rho(goal - x) if goal >= x else rho(1 + self.r - x)


class Infeasible(Gradient):
    """``feasible`` Gradient targets (ids first) plus ``infeasible`` ones stuck at rho(1)."""

    def __init__(self, feasible: int, infeasible: int, r: int = 1000, seed: int = 0) -> None:
        super().__init__(feasible + infeasible, r, seed)
        self._feasible = tuple(range(feasible))

    def heuristic(self, target: int, x: int) -> float:
        if target >= len(self._feasible):
            return rho(1)  # constant: there is no goal, and no gradient towards one
        return super().heuristic(target, x)

    def feasible(self) -> Sequence[int]:
        return self._feasible


class Staircase:
    """Nested targets, like nested conditions: step j of a chain counts only once step j-1 holds.

    ``width`` independent chains of ``depth`` steps; an individual is a tuple of
    ``width * depth`` integers in [0, r], chain c reading positions ``c*depth .. c*depth+depth-1``.
    Target ``(c, j)`` is reached only when the chain's first j values equal their goals (h = 0
    otherwise), and then scores ``rho(|x - g|)``: 1 exactly at the goal. So target ``(c, j)`` is
    control dependent on ``(c, j - 1)``, which ``control_dependencies`` says, as DynaMOSA's
    CDG would for ``if x0 == g0: if x1 == g1: ...``. Mutation moves one value by +-2**i;
    crossover cuts both parents at one position (single point). Every test has size 1.
    """

    def __init__(self, depth: int = 4, width: int = 2, r: int = 100, seed: int = 0) -> None:
        if depth < 1 or width < 1 or r < 1:
            raise ValueError(f"need depth, width, r >= 1, got {depth}, {width}, {r}")
        self.depth, self.width, self.r = depth, width, r
        goals = random.Random(seed)
        self.goals = tuple(goals.randint(0, r) for _ in range(depth * width))
        self._targets = tuple((c, j) for c in range(width) for j in range(depth))
        self._steps = max(1, r.bit_length())

    def sample(self, rng: random.Random) -> tuple[int, ...]:
        return tuple(_below(self.r + 1, rng) for _ in self.goals)

    def mutate(self, individual: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
        position = _below(len(individual), rng)
        step = 1 << _below(self._steps, rng)
        value = individual[position] + (step if rng.random() < 0.5 else -step)
        values = list(individual)
        values[position] = min(max(value, 0), self.r)
        return tuple(values)

    def crossover(
        self, first: tuple[int, ...], second: tuple[int, ...], rng: random.Random
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        cut = 1 + _below(len(first) - 1, rng) if len(first) > 1 else 0
        return first[:cut] + second[cut:], second[:cut] + first[cut:]

    def evaluate(self, individual: tuple[int, ...]) -> Evaluated[tuple[int, ...]]:
        h: dict[Hashable, float] = {}
        for chain in range(self.width):
            for step in range(self.depth):
                position = chain * self.depth + step
                h[(chain, step)] = rho(abs(individual[position] - self.goals[position]))
                if h[(chain, step)] < 1.0:
                    break  # the steps below are not reached
        return Evaluated(individual, h, 1)

    def targets(self) -> Sequence[tuple[int, int]]:
        return self._targets

    def control_dependencies(self) -> dict[tuple[int, int], tuple[tuple[int, int], ...]]:
        return {(c, j): ((c, j - 1),) for c, j in self._targets if j > 0}

    def __repr__(self) -> str:
        return f"Staircase(depth={self.depth}, width={self.width}, r={self.r})"
