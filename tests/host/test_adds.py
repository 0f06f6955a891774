"""Keep only what adds, with mutants: a kill the suite misses adds as a branch does."""

from __future__ import annotations

from miogen.host.adds import Gain, keep_what_adds, module_gain


def test_a_test_that_only_kills_a_mutant_the_suite_leaves_alive_is_kept():
    covers = {"a": [1], "b": [1], "c": [1]}
    kills = {"b": [("f", 0)], "c": [("f", 0), ("f", 1)]}
    # b kills mutant 0, which the suite kills too; c kills mutant 1, which it does not
    assert keep_what_adds(["a", "b", "c"], covers, [1], kills, [("f", 0)]) == ["c"]
    assert keep_what_adds(["a", "b", "c"], covers, [1]) == []  # without mutation: nothing
    assert keep_what_adds(["c", "b"], covers, [1], kills, []) == ["c"]  # b adds nothing to c


def test_the_summary_line_says_the_mutants_killed_beside_the_branches():
    complete = Gain("size", 2, frozenset({0, 1}), frozenset({0, 1}), mutants=2)
    assert complete.describe() == (
        "your suite already covers every branch of size; +2 mutants killed over your suite"
    )
    both = Gain("f", 4, frozenset({0}), frozenset({0, 1}), mutants=1)
    assert both.describe() == (
        "f: +1 branches over your suite (25.0% → 50.0%), +1 mutants killed over your suite"
    )
    killed_only = Gain("g", 4, frozenset({0}), frozenset({0}), mutants=3)
    assert killed_only.describe() == (
        "g: no branch added to your suite (25.0%), +3 mutants killed over your suite"
    )
    assert module_gain("m", [complete, both, killed_only]).mutants == 6
    assert Gain("h", 2, frozenset({0, 1}), frozenset({0, 1})).describe() == (
        "your suite already covers every branch of h; nothing added"
    )


def test_a_line_goal_covered_is_no_branch_added_and_no_part_of_the_branch_percent():
    # targets 0-2 are branch arcs, 3 the line goal of a function without a branch
    gain = Gain("f", 4, frozenset({0}), frozenset({0, 1, 3}), lines=frozenset({3}))
    assert (gain.branches, gain.added, gain.lines_added) == (3, 1, 1)
    assert gain.describe() == (
        "f: +1 branches over your suite (33.3% → 66.7%), "
        "its tests run the lines of 1 function your suite never runs"
    )
    only = Gain("g", 1, frozenset(), frozenset({3}), lines=frozenset({3}))
    assert only.describe() == (
        "g: no branch added to your suite (it has no branches), "
        "its tests run the lines of 1 function your suite never runs"
    )
    module = module_gain("m", [gain, only])
    assert (module.total, module.branches, module.added, module.lines_added) == (5, 3, 1, 2)
