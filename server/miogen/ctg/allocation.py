"""Budget allocation across units (Campos et al., CTG, ASE 2014, sec. 3.1 and 4.1).

The paper's problem: n units, b seconds of wall time, k cores. Choose budgets z_c with
``sum(z) <= k*b`` and ``z_c <= b`` (no job may run longer than the whole run).

- *Simple*: every unit gets ``k*b/n``.
- *Budget* (sec. 3.1): every unit gets a minimum, and the remaining ``k*b - n*minimum`` is
  shared in proportion to the units' branch counts; no unit gets more than b.
- *History* (sec. 4.1), on top of *Budget*: a changed or new unit's share is multiplied by
  h = 2; an unchanged unit at 100% coverage, or without improvement in its last 3 runs, is
  retired until it changes again; when the sum no longer fits, changed units go first, then
  the rest by complexity, and what does not fit waits for a later run.

Two points the paper leaves open, decided here:

- The *Budget* shares are computed over every unit of the project, retired ones included, so a
  retired unit's share is time saved rather than handed to the others (the paper's History
  spends less time as units retire, Fig. 2; giving unused time away is its future work).
- When the changed units alone exceed ``k*b`` (the first run, where every unit is new), they are
  scaled down together to fit, never below the minimum: h only ranks changed against unchanged
  units, so a first run allocates exactly as *Budget* does.

Ranking among unchanged units puts those with fewer runs at their current version first, then
the more complex ones: the units left out this time come first next time (the paper's rotation
"over later runs" when even the minimum does not fit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from miogen.common.history import RunRecord
from miogen.common.sharing import proportional

CHANGED_WEIGHT = 2.0  # the paper's h
PATIENCE = 3  # runs without improvement before an unchanged unit is retired


@dataclass(frozen=True)
class Candidate:
    """A unit as the allocation sees it."""

    key: str  # "path/to/module.py::Unit"
    branches: int  # coverage targets of the unit: the paper's complexity measure
    changed: bool = True  # new, or its AST hash differs from the one in the history
    covered: int = 0  # targets covered now (coverage.py on the existing tests)
    runs: tuple[RunRecord, ...] = ()  # earlier runs at the current AST hash, oldest first


@dataclass(frozen=True)
class AllocationConfig:
    total: float  # k*b: seconds of search to share out
    cap: float  # b: no unit gets more
    minimum: float = 1.0
    h: float = CHANGED_WEIGHT
    patience: int = PATIENCE


@dataclass(frozen=True)
class Allocation:
    """What one unit gets: seconds, or a reason it does not run this time."""

    key: str
    seconds: float = 0.0
    changed: bool = True
    reason: str = ""  # empty when the unit runs

    @property
    def runs(self) -> bool:
        return self.seconds > 0.0


@dataclass
class Plan:
    allocations: list[Allocation] = field(default_factory=list)

    def running(self) -> list[Allocation]:
        return [a for a in self.allocations if a.runs]

    def by_key(self) -> dict[str, Allocation]:
        return {a.key: a for a in self.allocations}

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in self.allocations)


def allocate_simple(candidates: Sequence[Candidate], total: float, cap: float) -> Plan:
    """The paper's *Simple*: an equal split, no history, nothing skipped."""
    units = [c for c in candidates if c.branches > 0]
    share = min(cap, total / len(units)) if units else 0.0
    return Plan(
        [
            Allocation(c.key, share if c.branches else 0.0, c.changed, _no_targets(c))
            for c in candidates
        ]
    )


def _no_targets(candidate: Candidate) -> str:
    return "" if candidate.branches else "nothing to cover"


def allocate(candidates: Sequence[Candidate], config: AllocationConfig) -> Plan:
    """The paper's *History* allocation over *Budget* shares (see the module docstring)."""
    base = budget_shares(candidates, config)
    allocations = []
    for candidate in candidates:
        reason = retirement(candidate, config.patience)
        if reason:
            allocations.append(Allocation(candidate.key, 0.0, False, reason))
        else:
            weight = config.h if candidate.changed else 1.0
            allocations.append(
                Allocation(candidate.key, weight * base[candidate.key], candidate.changed)
            )
    allocations = [
        replace(a, seconds=min(config.cap, a.seconds)) for a in _scale_changed(allocations, config)
    ]
    return Plan(_fit(allocations, {c.key: c for c in candidates}, config))


def budget_shares(candidates: Sequence[Candidate], config: AllocationConfig) -> dict[str, float]:
    """*Budget* (sec. 3.1): ``min(b, minimum + (k*b - n*minimum) * B_c / sum(B))``, where B_c
    counts the unit's targets that the existing tests (the project's own suite, and the test
    files miogen wrote) leave uncovered: the budget goes where the tests do not.

    >>> units = [Candidate("S", 10), Candidate("D", 20)]
    >>> budget_shares(units, AllocationConfig(total=30, cap=30, minimum=0))
    {'S': 10.0, 'D': 20.0}
    """
    weights = {c.key: float(max(0, c.branches - c.covered)) for c in candidates}
    return proportional(config.total, weights, config.minimum, config.cap)


def retirement(candidate: Candidate, patience: int = PATIENCE) -> str:
    """Why a unit is not worth another run (sec. 4.1); empty when it is. A unit the existing
    tests cover completely (the project's own, say) has nothing left to cover, changed or not."""
    if candidate.branches == 0:
        return "nothing to cover"
    if candidate.covered >= candidate.branches:
        return "100% covered"
    if candidate.changed:
        return ""
    recent = candidate.runs[-patience:]
    if len(recent) == patience and not any(run.improved for run in recent):
        return f"no improvement in its last {patience} runs"
    return ""


def _scale_changed(allocations: list[Allocation], config: AllocationConfig) -> list[Allocation]:
    """When changed units alone exceed k*b, shrink them together (not below the minimum)."""
    changed = sum(a.seconds for a in allocations if a.runs and a.changed)
    if changed <= config.total:
        return allocations
    factor = config.total / changed
    return [
        replace(a, seconds=max(config.minimum, a.seconds * factor)) if a.runs and a.changed else a
        for a in allocations
    ]


def _fit(
    allocations: list[Allocation], candidates: dict[str, Candidate], config: AllocationConfig
) -> list[Allocation]:
    """Take units in rank order while they fit into k*b; the others wait for a later run."""

    def rank(allocation: Allocation) -> tuple[bool, int, int, str]:
        candidate = candidates[allocation.key]
        return (not allocation.changed, len(candidate.runs), -candidate.branches, allocation.key)

    left = config.total + 1e-9
    fitted: dict[str, Allocation] = {}
    for allocation in sorted((a for a in allocations if a.runs), key=rank):
        if allocation.seconds <= left:
            left -= allocation.seconds
            fitted[allocation.key] = allocation
        else:
            fitted[allocation.key] = replace(
                allocation, seconds=0.0, reason="waits: budget used up"
            )
    return [fitted.get(a.key, a) for a in allocations]
