"""The MIO paper's artificial problems, checked against its table (sec. 4.1)."""

import random

import pytest
from miogen.worker.search import Deceptive, Gradient, Infeasible, Plateau
from miogen.worker.search.landscapes import rho


def h(problem, x, target=0):
    evaluated = problem.evaluate((target, x))
    assert set(evaluated.h) == {target} and evaluated.size == 1
    return evaluated.h[target]


def with_goal(problem, goal):
    problem.goals = (goal,) * len(problem.goals)
    return problem


def test_rho_maps_distances_into_scores():
    assert (rho(0), rho(1), rho(3)) == (1.0, 0.5, 0.25)


def test_gradient():
    problem = with_goal(Gradient(1), 500)
    assert h(problem, 500) == 1.0
    assert h(problem, 490) == h(problem, 510) == rho(10)


def test_plateau():
    problem = with_goal(Plateau(1), 500)
    assert h(problem, 500) == 1.0
    assert h(problem, 490) == rho(10)
    assert h(problem, 501) == h(problem, 1000) == rho(100)  # rho(0.1 r), r = 1000


def test_deceptive():
    problem = with_goal(Deceptive(1), 500)
    assert h(problem, 500) == 1.0
    assert h(problem, 490) == rho(10)
    assert h(problem, 501) == rho(500)
    assert h(problem, 1000) == rho(1)  # the deceptive top, as good as x = g - 1


def test_infeasible_targets_come_after_the_gradient_ones_and_never_move():
    problem = Infeasible(feasible=2, infeasible=3, seed=1)
    assert list(problem.targets()) == [0, 1, 2, 3, 4]
    assert list(problem.feasible()) == [0, 1]
    assert {h(problem, x, target=3) for x in (0, 500, 1000)} == {rho(1)}
    assert h(problem, problem.goals[1], target=1) == 1.0


def test_goals_are_drawn_from_the_seed():
    assert Gradient(10, seed=4).goals == Gradient(10, seed=4).goals
    assert Gradient(10, seed=4).goals != Gradient(10, seed=5).goals
    assert all(0 <= g <= 1000 for g in Gradient(100, seed=0).goals)


def test_a_test_scores_only_on_its_own_target():
    problem = Gradient(5, seed=1)
    assert problem.evaluate((3, 0)).h.keys() == {3}


def test_sampling_covers_the_whole_range():
    problem = Gradient(3, r=10)
    rng = random.Random(0)
    samples = [problem.sample(rng) for _ in range(1000)]
    assert {target for target, _ in samples} == {0, 1, 2}
    assert {x for _, x in samples} == set(range(11))


def test_mutation_steps_are_powers_of_two_clipped_to_the_range():
    problem = Gradient(1, r=1000)
    rng = random.Random(0)
    steps = set()
    for _ in range(5000):
        target, x = problem.mutate((0, 500), rng)
        if target == 0:
            steps.add(abs(x - 500))
    assert {2**i for i in range(9)} <= steps  # 2^9 = 512 and 2^10 clip at 0 or 1000
    assert {problem.mutate((0, 1000), rng)[1] for _ in range(200)} <= set(range(1001))


def test_mutation_rarely_redraws_the_id():
    problem = Gradient(1000, seed=0)
    rng = random.Random(0)
    moved = sum(problem.mutate((7, 500), rng)[0] != 7 for _ in range(20_000))
    assert 120 < moved < 280  # about 1 %


def test_invalid_sizes_are_refused():
    with pytest.raises(ValueError):
        Gradient(0)
