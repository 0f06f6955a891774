"""How a module's units share its budget: proportional slices of what is left, with floors."""

from __future__ import annotations

import pytest
from miogen.common.sharing import FLOOR_SHARE, floors, running_order, slice_of


def share_out(
    budget: float, weights: dict[str, float], taken: dict[str, float]
) -> dict[str, float]:
    """The slices the engine gives (sharing only), when each unit takes ``taken`` seconds
    (its slice when it is not named)."""
    floor = floors(budget, weights)
    order = running_order(weights)
    left, slices = budget, {}
    for position, name in enumerate(order):
        slices[name] = slice_of(left, weights[name], [weights[n] for n in order[position:]],
                                floor[name])  # fmt: skip
        left -= taken.get(name, slices[name])
    return slices


def test_floors_are_a_fixed_part_of_each_units_share_of_the_budget():
    assert FLOOR_SHARE == 0.1
    assert floors(10.0, {"a": 1.0, "b": 1.0, "c": 8.0}) == pytest.approx(
        {"a": 0.1, "b": 0.1, "c": 0.8}
    )


def test_without_overruns_the_floors_change_nothing():
    weights = {"a": 1.0, "b": 1.0, "c": 8.0}
    assert share_out(10.0, weights, {}) == pytest.approx({"a": 1.0, "b": 1.0, "c": 8.0})
    # A unit that finishes early hands its time on to the others, in proportion.
    assert share_out(10.0, weights, {"a": 0.1}) == pytest.approx({"a": 1.0, "b": 1.1, "c": 8.8})


def test_an_overrun_is_charged_in_proportion_to_the_units_after_it():
    weights = {"a": 1.0, "b": 1.0, "c": 8.0}
    slices = share_out(10.0, weights, {"a": 2.8})  # 1.8 s over: b and c lose 0.2 and 1.6
    assert slices == pytest.approx({"a": 1.0, "b": 0.8, "c": 6.4})


def test_the_last_and_largest_unit_keeps_its_floor_after_a_huge_overrun():
    weights = {"a": 1.0, "b": 1.0, "c": 8.0}
    slices = share_out(10.0, weights, {"a": 9.8})  # a leaves 0.2 s for b and c
    assert slices == pytest.approx({"a": 1.0, "b": 0.1, "c": 0.8})
    slices = share_out(10.0, weights, {"a": 12.0})  # nothing left at all
    assert slices == pytest.approx({"a": 1.0, "b": 0.1, "c": 0.8})
