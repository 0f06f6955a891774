"""Coverage numbers add up from units to modules to a project, as coverage.py's ``Numbers``."""

from __future__ import annotations

from miogen.run.result import Numbers


def test_numbers_add_and_sum():
    assert Numbers(3, 4) + Numbers(1, 4) == Numbers(4, 8)
    assert sum([Numbers(3, 4), Numbers(1, 4), Numbers(0, 2)]) == Numbers(4, 10)
    assert sum([], Numbers()) == Numbers(0, 0)


def test_the_percent_is_of_the_total_and_nothing_to_cover_is_covered():
    assert Numbers(1, 4).percent == 25.0
    assert Numbers(0, 0).percent == 100.0


def test_numbers_of_ids_count_each_target_once():
    assert Numbers.of([3, 3, 5], 6) == Numbers(2, 6)
