"""The archive's rules one by one (MIO paper secs. 3.1-3.3)."""

import random

import pytest
from miogen.worker.search import Archive, Evaluated


def t(name: str, size: int = 1, **h: float) -> Evaluated[str]:
    """A test named ``name`` scoring ``h`` per target: ``t("x", a=0.5)``."""
    return Evaluated(name, h, size)


def archive(n: int = 10, fds: bool = True, seed: int = 0) -> Archive[str]:
    return Archive(random.Random(seed), population_size=n, feedback_directed=fds)


def names(archive: Archive[str], target: str) -> list[str]:
    """The population of ``target``, best first."""
    return [e.individual for e in archive.populations().get(target, ())]


# ---------------------------------------------------------------- rule 1: h = 0


def test_a_zero_score_is_never_stored():
    a = archive()
    assert not a.offer(t("t", x=0.0))
    assert a.is_empty()
    assert a.best_h("x") == 0.0
    assert a.best("x") is None
    assert a.sample_individual() is None


def test_a_missing_target_means_zero():
    a = archive()
    a.offer(t("t", x=0.5))
    assert names(a, "y") == []
    assert a.best_h("y") == 0.0


# ---------------------------------------------------------------- rule 2: covered targets


def test_covering_collapses_the_population_to_that_test():
    a = archive(n=3)
    for name, h in [("p1", 0.2), ("p2", 0.4), ("p3", 0.6)]:
        a.offer(t(name, x=h))
    assert a.offer(t("cover", x=1.0))
    assert names(a, "x") == ["cover"]
    assert a.covered() == {"x"}
    assert a.solution() == {"x": t("cover", x=1.0)}


def test_a_covered_population_never_grows_again():
    a = archive(n=3)
    a.offer(t("cover", x=1.0))
    assert not a.offer(t("partial", x=0.9))
    a.set_population_size(5)
    a.offer(t("partial2", x=0.9))
    assert names(a, "x") == ["cover"]


@pytest.mark.parametrize(
    "newcomer, replaces",
    [
        (t("shorter", size=2, x=1.0), True),
        (t("same size, more total h", size=3, x=1.0, y=0.5), True),
        (t("same size, same total h", size=3, x=1.0, y=0.2), False),
        (t("same size, less total h", size=3, x=1.0), False),
        (t("longer, more total h", size=4, x=1.0, y=0.9, z=0.9), False),
    ],
    ids=lambda value: value.individual if isinstance(value, Evaluated) else str(value),
)
def test_a_covering_test_is_replaced_only_by_a_shorter_or_more_useful_one(newcomer, replaces):
    a = archive()
    a.offer(t("old", size=3, x=1.0, y=0.2))
    a.offer(newcomer)
    assert names(a, "x") == [newcomer.individual if replaces else "old"]


# ---------------------------------------------------------------- rules 3 and 4: populations


def test_a_population_takes_anything_while_not_full():
    a = archive(n=3)
    a.offer(t("good", x=0.5))
    a.offer(t("bad", x=0.1))
    assert names(a, "x") == ["good", "bad"]


def test_a_full_population_replaces_its_worst_only_with_a_test_not_worse():
    a = archive(n=2)
    a.offer(t("worst", size=1, x=0.3))
    a.offer(t("best", size=1, x=0.5))
    assert not a.offer(t("lower h", x=0.2))
    assert not a.offer(t("same h, larger", size=2, x=0.3))
    assert names(a, "x") == ["best", "worst"]
    a.offer(t("same h, same size", size=1, x=0.3))  # not worse: replaces, not better
    assert names(a, "x") == ["best", "same h, same size"]
    a.offer(t("higher h", x=0.4))
    assert names(a, "x") == ["best", "higher h"]


def test_offer_reports_improvement_only_for_new_coverage_or_a_better_h():
    a = archive(n=2)
    assert a.offer(t("first", x=0.3))  # a new target reached
    assert not a.offer(t("equal", x=0.3))
    assert not a.offer(t("worse", x=0.2))
    assert a.offer(t("better", x=0.4))
    assert a.offer(t("cover", x=1.0))
    assert a.best_h("x") == 1.0


def test_one_test_joins_the_population_of_every_target_it_reaches():
    a = archive()
    a.offer(t("t", x=0.5, y=1.0, z=0.0))
    assert names(a, "x") == names(a, "y") == ["t"]
    assert names(a, "z") == []
    assert a.covered() == {"y"}


def test_best_prefers_higher_h_then_smaller_size():
    a = archive()
    a.offer(t("long", size=5, x=0.5))
    a.offer(t("short", size=2, x=0.5))
    a.offer(t("weak", size=1, x=0.1))
    assert a.best("x").individual == "short"


# ---------------------------------------------------------------- population size (sec. 3.2)


def test_shrinking_n_drops_each_populations_worst_tests():
    a = archive(n=4)
    for name, h in [("a", 0.1), ("b", 0.4), ("c", 0.2), ("d", 0.3)]:
        a.offer(t(name, x=h, y=1.0 - h))
    a.set_population_size(2)
    assert names(a, "x") == ["b", "d"]
    assert names(a, "y") == ["a", "c"]
    a.offer(t("e", x=0.35))  # full again at the new n: replaces the worst
    assert names(a, "x") == ["b", "e"]


def test_growing_n_lets_populations_grow_again():
    a = archive(n=1)
    a.offer(t("a", x=0.1))
    a.set_population_size(3)
    a.offer(t("b", x=0.05))
    assert names(a, "x") == ["a", "b"]


def test_population_size_must_be_positive():
    with pytest.raises(ValueError):
        archive(n=0)
    with pytest.raises(ValueError):
        archive().set_population_size(0)


# ---------------------------------------------------------------- sampling and FDS (sec. 3.3)


def test_sampling_increments_the_counter():
    a = archive()
    a.offer(t("t", x=0.5))
    for expected in (1, 2, 3):
        assert a.sample_individual() == "t"
        assert a.counter("x") == expected


def test_the_counter_resets_only_when_the_population_improves():
    a = archive()
    a.offer(t("t", x=0.5))
    a.sample_individual()
    a.sample_individual()
    a.offer(t("equal", x=0.5))
    a.offer(t("worse", x=0.2))  # stored (room left) but no improvement
    assert a.counter("x") == 2
    a.offer(t("better", x=0.6))
    assert a.counter("x") == 0


def test_fds_samples_the_target_with_the_lowest_counter():
    a = archive()
    a.offer(t("x-test", x=0.5))
    a.offer(t("y-test", y=0.5))
    picks = [a.sample_individual() for _ in range(6)]
    assert sorted(picks) == ["x-test"] * 3 + ["y-test"] * 3  # they alternate
    a.offer(t("x-better", x=0.7))  # x improves: counter 0 < y's 3
    assert a.sample_individual() in ("x-test", "x-better")
    assert a.counter("x") == 1 and a.counter("y") == 3


def test_fds_starves_a_target_that_stops_improving():
    a = archive()
    a.offer(t("plateau", p=0.5))
    a.offer(t("climb-0", g=0.01))
    picks = []
    for step in range(1, 50):
        picks.append(a.sample_individual())
        a.offer(t(f"climb-{step}", g=0.01 * (step + 1)))  # g keeps improving
    assert picks.count("plateau") == 1


def test_fds_breaks_ties_at_random_with_the_seeded_generator():
    firsts = set()
    for seed in range(20):
        a = archive(seed=seed)
        for target in "abcd":
            a.offer(t(f"{target}-test", **{target: 0.5}))
        firsts.add(a.sample_individual())
    assert len(firsts) > 1  # not always the first target reached


def test_without_fds_uncovered_targets_are_sampled_uniformly():
    a = archive(fds=False)
    a.offer(t("x-test", x=0.5))
    a.offer(t("y-test", y=0.5))
    for _ in range(5):  # counters would send FDS elsewhere; plain sampling ignores them
        a.offer(t("x-better", x=0.6))
    picks = [a.sample_individual() for _ in range(2000)]
    assert 850 < picks.count("y-test") < 1150


def test_covered_targets_are_sampled_only_when_no_uncovered_one_has_tests():
    a = archive()
    a.offer(t("cover", x=1.0))
    assert a.sample_individual() == "cover"
    a.offer(t("partial", y=0.5))
    assert {a.sample_individual() for _ in range(20)} == {"partial"}
    a.offer(t("cover-y", y=1.0))
    assert {a.sample_individual() for _ in range(20)} == {"cover", "cover-y"}


def test_a_sampled_test_is_drawn_from_the_whole_population():
    a = archive(n=3, fds=False)
    for name, h in [("a", 0.1), ("b", 0.2), ("c", 0.3)]:
        a.offer(t(name, x=h))
    assert {a.sample_individual() for _ in range(100)} == {"a", "b", "c"}


def test_many_targets_keep_the_fds_queue_small():
    a = archive(fds=True)
    for step in range(3000):
        a.offer(t(f"t{step}", **{f"x{step % 30}": 0.001 * (step + 1)}))
        a.sample_individual()
    assert len(a._queue) <= 4 * 30 + 64


# ---------------------------------------------------------------- performance (aDynaMOSA's archive)


def priced(name: str, cost: int, size: int = 1, **h: float) -> Evaluated[str]:
    return Evaluated(name, h, size, proxies=(cost,) * 7)


def test_with_performance_a_covered_target_keeps_the_cheaper_test_even_if_longer():
    a = Archive(random.Random(0), population_size=1, performance=True)
    a.offer(priced("costly", 9, size=1, x=1.0))
    assert a.offer(priced("cheap", 0, size=5, x=1.0))
    assert not a.offer(priced("costlier", 20, size=1, x=1.0))
    assert names(a, "x") == ["cheap"]


def test_with_performance_equal_scores_fall_back_to_the_size_rule():
    a = Archive(random.Random(0), population_size=1, performance=True)
    a.offer(priced("long", 3, size=4, x=1.0))
    assert a.offer(priced("short", 3, size=2, x=1.0))
    assert names(a, "x") == ["short"]


def test_without_performance_the_cost_of_a_test_is_ignored():
    a = archive()
    a.offer(priced("costly", 9, x=1.0))
    assert not a.offer(priced("cheap", 0, x=1.0))
    assert names(a, "x") == ["costly"]
