"""The MIO loop on toy problems: coverage, stopping, determinism, the schedule and seeding."""

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

from miogen.worker.search import (
    Archive,
    Budget,
    Evaluated,
    Gradient,
    MioConfig,
    run_mio,
    run_random,
)
from miogen.worker.search.mio import _dominates
from search_toys import Counters, Growing, snapshot


def mio(problem, evaluations=3000, seed=1, **kwargs):
    budget = Budget(evaluations=evaluations)
    return run_mio(problem, budget, random.Random(seed), **kwargs), budget


def test_mio_climbs_every_counter_to_the_top_and_stops_early():
    for seed in range(3):
        archive, budget = mio(Counters(), evaluations=5000, seed=seed)
        assert archive.covered() == set(Counters().targets())
        assert budget.evaluations_used < 5000  # stopped once all known targets were covered


def test_random_search_cannot_climb():
    archive = run_random(Counters(), Budget(evaluations=3000), random.Random(1))
    assert archive.covered() == set()


def test_the_solution_holds_one_covering_test_per_target():
    archive, _ = mio(Counters(length=4, top=20), evaluations=3000)
    solution = archive.solution()
    assert set(solution) == {"c0", "c1", "c2", "c3"}
    for target, evaluated in solution.items():
        assert evaluated.h[target] == 1.0


def test_same_seed_and_evaluation_budget_give_the_same_archive():
    first, _ = mio(Counters(), evaluations=1500, seed=7)
    second, _ = mio(Counters(), evaluations=1500, seed=7)
    other, _ = mio(Counters(), evaluations=1500, seed=8)
    assert snapshot(first) == snapshot(second)
    assert snapshot(first) != snapshot(other)


def test_same_seed_gives_the_same_archive_on_a_landscape():
    runs = [mio(Gradient(20, seed=3), evaluations=1000, seed=5)[0] for _ in range(2)]
    assert snapshot(runs[0]) == snapshot(runs[1])


def test_results_do_not_depend_on_string_hashing():
    # Targets are strings: a set iterated anywhere would make runs differ between processes.
    script = textwrap.dedent(
        """
        import random, sys
        sys.path.insert(0, sys.argv[1])
        from search_toys import Counters, snapshot
        from miogen.worker.search import Budget, run_mio
        archive = run_mio(Counters(), Budget(evaluations=800), random.Random(3))
        print(snapshot(archive))
        """
    )
    outputs = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        command = [sys.executable, "-c", script, str(Path(__file__).parent)]
        outputs.add(subprocess.run(command, env=env, capture_output=True, check=True).stdout)
    assert len(outputs) == 1


def test_every_evaluation_is_reported_and_charged():
    reports = []
    archive, budget = mio(
        Gradient(10, seed=1), evaluations=500, on_evaluation=lambda *r: reports.append(r)
    )
    assert len(reports) == budget.evaluations_used == 500
    assert all(isinstance(evaluated, Evaluated) for evaluated, _ in reports)
    assert sum(improved for _, improved in reports) >= archive.covered_count


def test_should_stop_ends_the_run_at_once():
    problem = Counters()
    archive, budget = mio(problem, should_stop=lambda: problem.calls["evaluate"] >= 10)
    assert budget.evaluations_used == 10


def test_a_time_budget_ends_the_run():
    clock = [0.0]
    budget = Budget(seconds=1.0, clock=lambda: clock[0])

    def tick(*_):
        clock[0] += 0.01

    run_mio(Gradient(50, seed=1), budget, random.Random(1), on_evaluation=tick)
    assert 99 <= budget.evaluations_used <= 101


def test_the_population_size_follows_the_schedule():
    archive, _ = mio(Gradient(50, seed=1), evaluations=1000)
    assert archive.population_size == 1
    assert all(len(tests) == 1 for tests in archive.populations().values())


def test_with_pr_one_mio_only_samples():
    problem = Counters()
    mio(problem, evaluations=200, config=MioConfig(probability_random=(1.0, 1.0)))
    assert problem.calls["mutate"] == 0 and problem.calls["sample"] == 200


def test_with_pr_zero_only_the_first_test_is_random_and_each_parent_gets_m_mutations():
    problem = Counters(top=10_000)  # nothing gets covered: the run uses the whole budget
    config = MioConfig(probability_random=(0.0, 0.0), mutations=(5, 5))
    parents = []
    archive = Archive(random.Random(1))
    sample = archive.sample
    archive.sample = lambda: parents.append(1) or sample()
    mio(problem, evaluations=51, config=config, archive=archive)
    assert problem.calls["sample"] == 1 and problem.calls["mutate"] == 50
    assert len(parents) == 10


def test_a_seeded_archive_is_continued():
    problem = Counters(length=8, top=40)
    archive, _ = mio(problem, evaluations=300, seed=2)
    covered_before = archive.covered()
    best_before = {target: archive.best_h(target) for target in problem.targets()}
    again, budget = mio(problem, evaluations=5000, seed=3, archive=archive)
    assert again is archive
    assert covered_before <= archive.covered() == set(problem.targets())
    assert all(archive.best_h(t) >= h for t, h in best_before.items())
    assert budget.evaluations_used < 5000


def test_targets_discovered_at_runtime_are_pursued():
    problem = Growing()
    archive, budget = mio(problem, evaluations=5000)
    assert archive.covered() == set(Counters().targets())
    assert budget.evaluations_used < 5000


def test_nothing_known_yet_is_not_all_covered():
    problem = Growing()
    problem.sample = lambda rng: (0,) * problem.length  # reaches nothing at all
    _, budget = mio(problem, evaluations=50)
    assert budget.evaluations_used == 50


# ---------------------------------------------------------------- when a mutation chain moves on


def scored(size=1, **h):
    return Evaluated("t", h, size)


def test_domination_needs_no_worse_everywhere_and_better_somewhere():
    archive = Archive(random.Random(0))
    assert _dominates(scored(a=0.5, b=0.2), scored(a=0.4, b=0.2), archive)
    assert not _dominates(scored(a=0.5), scored(a=0.5), archive)  # a sideways step
    assert not _dominates(scored(a=0.5), scored(a=0.4, b=0.1), archive)  # b reaches more
    assert not _dominates(scored(a=0.5, b=0.1), scored(a=0.4, b=0.2), archive)
    assert _dominates(scored(size=1, a=0.5), scored(size=2, a=0.5), archive)


def test_domination_ignores_covered_targets():
    archive = Archive(random.Random(0))
    archive.offer(scored(a=1.0))
    assert not _dominates(scored(a=1.0, b=0.3), scored(a=0.2, b=0.3), archive)
    assert not _dominates(scored(b=0.3), scored(a=1.0, b=0.3), archive)
