"""Hand-minimised reference suite for triangle.py (issue #3): full branch coverage, fewest tests.

Every `return` of `classify` is its own path, so seven tests are the minimum; `classify_name`
rides on the scalene case. Boundary values (a side of 0, a longest side exactly equal to the
sum of the others) are what a careful person would pick. The benchmark copies this file next
to triangle.py as test_triangle_reference.py and measures it like every generated suite.
"""

from triangle import classify, classify_name


def test_side_of_zero_is_not_a_triangle():
    assert classify(0, 1, 1) == 0


def test_equal_sides_are_equilateral():
    assert classify(2, 2, 2) == 3


def test_first_side_as_long_as_the_others_together_is_not_a_triangle():
    assert classify(3, 1, 2) == 0


def test_second_side_as_long_as_the_others_together_is_not_a_triangle():
    assert classify(1, 3, 2) == 0


def test_third_side_as_long_as_the_others_together_is_not_a_triangle():
    assert classify(1, 2, 3) == 0


def test_two_equal_sides_are_isosceles():
    assert classify(2, 2, 3) == 2


def test_name_of_a_scalene_triangle():
    assert classify_name(3, 4, 5) == "SCALENE"
