"""Random search and the whole-suite GA: budgets, determinism, and sanity of the GA's parts."""

import random

from miogen.worker.search import Budget, Evaluated, Gradient, WtsConfig, run_random, run_wts
from miogen.worker.search.wts import make_suite
from search_toys import Counters, snapshot


def covered(archive, problem):
    return sum(archive.is_covered(target) for target in problem.targets())


def test_random_search_spends_the_budget_sampling_only():
    problem = Counters()
    budget = Budget(evaluations=300)
    run_random(problem, budget, random.Random(1))
    assert budget.evaluations_used == 300
    assert problem.calls["mutate"] == 0


def test_random_search_covers_easy_targets_and_stops():
    problem = Gradient(1, r=10, seed=0)
    budget = Budget(evaluations=1000)
    archive = run_random(problem, budget, random.Random(1))
    assert archive.covered() == {0}
    assert budget.evaluations_used < 1000


def test_a_suites_score_sums_the_best_h_per_target():
    suite = make_suite(
        [Evaluated("a", {"x": 0.5, "y": 0.2}, 2), Evaluated("b", {"x": 0.3, "y": 1.0}, 3)]
    )
    assert suite.score == 1.5 and suite.length == 5
    assert suite.fitness(target_count=3) == 1.5  # (1 - 0.5) + (1 - 1) + (1 - 0)


def test_wts_spends_exactly_the_budget_and_is_deterministic():
    runs = []
    for _ in range(2):
        budget = Budget(evaluations=2000)
        runs.append(run_wts(Gradient(10, seed=2), budget, random.Random(4)))
        assert budget.evaluations_used == 2000
    assert snapshot(runs[0]) == snapshot(runs[1])


def test_wts_reports_every_evaluation():
    reports = []
    budget = Budget(evaluations=700)
    run_wts(
        Gradient(10, seed=2), budget, random.Random(4), on_evaluation=lambda *r: reports.append(r)
    )
    assert len(reports) == 700


def test_wts_evolves_beyond_random_when_the_budget_allows_generations():
    # Small suites leave budget for generations; the MIO paper's WTS at b = 1000 did not.
    config = WtsConfig(initial_suite_size=(1, 5))
    wts = rand = 0
    for seed in range(8):
        problem = Gradient(10, seed=seed)
        wts += covered(
            run_wts(problem, Budget(evaluations=4000), random.Random(seed), config), problem
        )
        rand += covered(run_random(problem, Budget(evaluations=4000), random.Random(seed)), problem)
    assert wts > rand


def test_wts_stops_when_everything_is_covered():
    problem = Gradient(2, r=20, seed=1)
    budget = Budget(evaluations=5000)
    archive = run_wts(problem, budget, random.Random(0), WtsConfig(initial_suite_size=(1, 3)))
    assert archive.covered() == {0, 1}
    assert budget.evaluations_used < 5000
