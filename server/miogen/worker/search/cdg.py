"""DynaMOSA's dynamic target selection over a control-dependence graph (Panichella et al. 2018)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping


class ControlDependencies:
    """Which targets the search may aim at now: those whose controlling targets are covered.

    ``parents`` maps a target to the targets that control it (in a program: the branch outcomes
    under which its code runs). A target is *active* when it is uncovered and either has no
    parent (free of control dependencies: DynaMOSA's initial targets) or has a covered parent
    (covering a target activates the targets it controls). Several parents mean several ways in;
    any one of them covered is enough.

    Targets the graph does not know (found while the search runs, such as exceptions) are free.
    If no uncovered target is active although some are uncovered (a graph whose roots are all
    infeasible cannot make progress otherwise), every uncovered target is active: the search
    never stops aiming at something while something is left.

    >>> graph = ControlDependencies({"inner": ("outer",)})
    >>> graph.active(["outer", "inner"], covered=set().__contains__)
    ['outer']
    >>> graph.active(["outer", "inner"], covered={"outer"}.__contains__)
    ['inner']
    """

    def __init__(self, parents: Mapping[Hashable, Collection[Hashable]] | None = None) -> None:
        self.parents: dict[Hashable, tuple[Hashable, ...]] = {
            target: tuple(controlling) for target, controlling in (parents or {}).items()
        }

    def active(
        self, targets: Collection[Hashable], covered: Callable[[Hashable], bool]
    ) -> list[Hashable]:
        """The uncovered targets the search aims at now, in the order of ``targets``."""
        uncovered = [target for target in targets if not covered(target)]
        active = [t for t in uncovered if self._reachable(t, covered)]
        return active if active or not uncovered else uncovered

    def _reachable(self, target: Hashable, covered: Callable[[Hashable], bool]) -> bool:
        controlling = self.parents.get(target, ())
        return not controlling or any(covered(parent) for parent in controlling)

    def roots(self, targets: Collection[Hashable]) -> list[Hashable]:
        """The targets free of control dependencies: DynaMOSA's initial targets."""
        return [target for target in targets if not self.parents.get(target)]

    def __len__(self) -> int:
        return len(self.parents)
