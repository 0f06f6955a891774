"""Set cover with optional targets (killed mutants): each test must earn its place."""

from __future__ import annotations

from miogen.minimize.reduce import CoverageCache, set_cover
from miogen.testcase.model import Statement


def calls_f(number: int, calls: int = 1):
    return (Statement("value", value=number),) + tuple(
        Statement("call", "f", (("x", 0),)) for _ in range(calls)
    )


def cover(covers: dict, **options):
    """set_cover over tests named by number; ``covers`` maps number -> targets ("m..." optional)."""
    tests = {number: calls_f(number, calls) for number, (calls, _) in covers.items()}
    cache = CoverageCache(lambda test: (test, frozenset(covers[test[0].value][1])))
    chosen = set_cover(tests.values(), cache, optional=lambda t: t.startswith("m"), **options)
    return {r.test[0].value: set(r.targets) for r in chosen}


def test_a_test_kept_for_mutants_alone_must_kill_enough_of_them():
    covers = {1: (1, {"b1", "m1"}), 2: (1, {"m2"}), 3: (1, {"m3", "m4"})}
    assert cover(covers, min_optional_gain=2) == {1: {"b1", "m1"}, 3: {"m3", "m4"}}
    assert cover(covers, min_optional_gain=1).keys() == {1, 2, 3}


def test_required_targets_are_covered_whatever_the_gain():
    covers = {1: (1, {"b1"}), 2: (1, {"b2"})}
    assert cover(covers, min_optional_gain=5) == {1: {"b1"}, 2: {"b2"}}


def test_the_gain_is_counted_per_call():
    covers = {1: (1, {"b1"}), 2: (2, {"m1", "m2"}), 3: (2, {"m3", "m4", "m5", "m6"})}
    assert cover(covers, min_optional_gain=2).keys() == {1, 3}


def test_tests_kept_for_mutants_alone_are_capped_by_share():
    covers = {
        1: (1, {"b1"}), 2: (1, {"b2"}), 3: (1, {"b3"}),
        4: (1, {"m1", "m2", "m3", "m4"}), 5: (1, {"m5", "m6", "m7"}), 6: (1, {"m8", "m9"}),
    }  # fmt: skip
    chosen = cover(covers, min_optional_gain=2, optional_share=1 / 3)
    assert chosen.keys() == {1, 2, 3, 4}  # one extra for three coverage tests: the strongest
    assert cover(covers, min_optional_gain=2, optional_share=2 / 3).keys() == {1, 2, 3, 4, 5}


def test_a_test_made_redundant_by_later_picks_is_dropped_and_its_targets_handed_on():
    # Greedy takes 1 first (three kills), but 2 and 3 are needed for their branches and
    # kill all of 1's mutants between them.
    covers = {1: (1, {"m1", "m2", "m3"}), 2: (1, {"b1", "m1", "m2"}), 3: (1, {"b2", "m3"})}
    chosen = cover(covers, min_optional_gain=2)
    assert chosen == {2: {"b1", "m1", "m2"}, 3: {"b2", "m3"}}


def test_a_cached_run_is_reused_only_where_it_checked_the_targets_checked_now():
    """A run made while other mutants were in focus shows none of the kills wanted now: it is
    run again (and counts as a run, not as a known candidate); one that checked more serves."""
    focus: list[frozenset[object] | None] = [frozenset({"m1"})]
    runs: list[frozenset[object] | None] = []

    def run(test):
        runs.append(focus[0])
        return test, frozenset(focus[0] or {"m1", "m2"})

    cache = CoverageCache(run, lambda: focus[0])
    test = (Statement("value", value=0),)
    assert cache(test)[1] == {"m1"} and test in cache
    focus[0] = frozenset({"m2"})
    assert test not in cache
    assert cache(test)[1] == {"m2"}
    focus[0] = None  # every optional target
    assert cache(test)[1] == {"m1", "m2"}
    focus[0] = frozenset({"m1"})  # fewer than the last run checked: served from the cache
    assert cache(test)[1] == {"m1", "m2"}
    assert runs == [frozenset({"m1"}), frozenset({"m2"}), None]
