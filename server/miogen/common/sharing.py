"""How a module's units share its budget: first by size, then by what each can still gain.

The units of a module run one after another in one worker. Each unit's slice is its weight's
part of the time left, so the time a unit does not use (it covered everything, or its mutation
phase stagnated) goes to the units after it. Units are taken smallest first: they are the ones
most likely to finish early. A unit that the budget stopped may be given more at the end, in
proportion to the targets it still misses (issue 13's "by how much each can still gain"); its
post-processing waits until then, with its time set aside.

A unit that runs past its slice (a last evaluation, a hung test) is charged to the units after
it, in proportion, since each slice is a part of what is really left. So that the units last
in line (the largest) are never left with nothing, each has a floor set aside from the start:
``FLOOR_SHARE`` of its part of the whole budget by weight. A slice is never smaller than its
unit's floor, even when the earlier units overran so far that the module then ends late: by at
most the floors, ``FLOOR_SHARE`` of the budget (plus the overruns of the units on their floor).
As long as no unit overran that far, the floors change nothing (a proportional slice of what
is left is then at least the floor).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

POST_SHARE = 0.2  # of each unit's slice: reduction, assertions and rendering
MIN_EXTRA_SECONDS = 0.2  # less left over than this is not worth continuing a search
FLOOR_SHARE = 0.1  # of each unit's part of the module's budget: its slice's floor


def proportional(
    total: float, weights: Mapping[str, float], minimum: float = 0.0, cap: float | None = None
) -> dict[str, float]:
    """``minimum`` each, and the rest of ``total`` in proportion to the weights (at most ``cap``).

    Units of weight 0 get nothing. CTG's *Budget* allocation is this with the paper's minimum.

    >>> proportional(30, {"S": 10, "D": 20})
    {'S': 10.0, 'D': 20.0}
    >>> proportional(10, {"S": 1, "D": 3, "E": 0}, minimum=1)
    {'S': 3.0, 'D': 7.0, 'E': 0.0}
    """
    positive = {key: weight for key, weight in weights.items() if weight > 0}
    spare = max(0.0, total - minimum * len(positive))
    weight_sum = sum(positive.values())
    shares = {}
    for key, weight in weights.items():
        share = minimum + spare * weight / weight_sum if weight > 0 else 0.0
        shares[key] = min(cap, share) if cap is not None else share
    return shares


def slice_of(
    left: float, weight: float, weights_left: Sequence[float], floor: float = 0.0
) -> float:
    """The next unit's slice of the ``left`` seconds: its part among the units still to run,
    and at least ``floor``.

    >>> slice_of(9.0, 1.0, [1.0, 2.0])
    3.0
    >>> slice_of(-0.5, 1.0, [1.0, 2.0], floor=0.25)
    0.25
    """
    total = sum(weights_left)
    if left <= 0 or total <= 0:
        return max(max(left, 0.0) / max(len(weights_left), 1), floor)
    return max(left * weight / total, floor)


def floors(budget: float, weights: Mapping[str, float]) -> dict[str, float]:
    """Each unit's floor: ``FLOOR_SHARE`` of its part of the module's ``budget`` by weight.

    >>> floors(5.0, {"small": 1.0, "big": 4.0})
    {'small': 0.1, 'big': 0.4}
    """
    return proportional(budget * FLOOR_SHARE, weights)


def running_order(weights: Mapping[str, float]) -> list[str]:
    """Smallest units first (they finish early most often and hand on their time).

    >>> running_order({"big": 9, "small": 1, "mid": 4})
    ['small', 'mid', 'big']
    """
    return sorted(weights, key=lambda key: (weights[key], key))
