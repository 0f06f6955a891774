"""One unit's criteria: the goals the search aims at, scored per run, and the per-criterion report."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Hashable, Mapping, Sequence, Set
from dataclasses import dataclass

from miogen.analysis.model import ModuleModel, Unit
from miogen.analysis.targets import CodeMap, parse_code
from miogen.assertions.mutants import MutationPoint, mutation_points, parsed
from miogen.criteria.goals import Criterion, Goal
from miogen.criteria.providers import (
    DirectBranches,
    Exceptions,
    GoalProvider,
    Lines,
    Methods,
    Outputs,
    Run,
    Trace,
    WeakMutants,
)
from miogen.criteria.selection import Selection, smart_lines, smart_mutants
from miogen.criteria.structure import Structure, read_structure
from miogen.instrument.counting import CounterMap, Probe, ProbeFinder
from miogen.instrument.tally import Mutation

PROBE_KINDS = {"ROR": "compare", "AOR": "binary", "BOR": "binary", "LCR": "boolean"}


def probe_finder(
    units: Sequence[Unit],
    wanted: Callable[[MutationPoint], bool] = lambda point: True,
    first: int = 0,
) -> ProbeFinder:
    """The weak-mutation probes for the probed mutants (ROR, AOR, BOR, LCR) ``wanted`` of
    ``units``, all in one module; mutant m of a unit is numbered ``first + probe_bases[unit] + m``.

    The module is imported once for all the units of a job, so their mutants share one tally.
    The search probes the mutants it aims at (``Selection.probes``); the report's copy of a
    unit probes them all (criteria/measurement.py).
    """

    def find(tree: ast.Module) -> list[Probe]:
        probes: list[Probe] = []
        for unit, base in zip(units, _bases(tree, units).values(), strict=True):
            probes += [
                Probe(point.node, _mutation(point, first + base))
                for point in mutation_points(tree, unit)
                if point.mutant.operator in PROBE_KINDS and wanted(point)
            ]
        return probes

    return find


def probe_bases(source: str, units: Sequence[Unit]) -> dict[str, int]:
    """Unit name -> the number of its first mutant in the tally (see ``probe_finder``)."""
    return _bases(_parsed(source), units)


def _bases(tree: ast.Module, units: Sequence[Unit]) -> dict[str, int]:
    bases: dict[str, int] = {}
    base = 0
    for unit in units:
        bases[unit.name] = base
        base += len(mutation_points(tree, unit))
    return bases


def _parsed(source: str) -> ast.Module:
    """One tree per module for all its units' criteria (read, never changed), the mutants' own."""
    return parsed(source)


@functools.lru_cache(maxsize=4)
def _code(source: str) -> CodeMap:
    return parse_code(source)


def _mutation(point: MutationPoint, base: int) -> Mutation:
    kind = PROBE_KINDS[point.mutant.operator]
    mutant = base + point.mutant.index
    return Mutation(mutant, kind, point.position, point.original, point.replacement)


@dataclass(frozen=True)
class Coverage:
    """Goals covered out of the goals known, for one criterion."""

    covered: int
    total: int

    @property
    def percent(self) -> float:
        return 100.0 * self.covered / self.total if self.total else 100.0


class UnitCriteria:
    """The goal providers of one unit, split into what the search aims at and what is reported.

    The search aims at the ``selection``'s goals (smart subsets when it is smart); the report
    counts every criterion's full goal set on the tests it is given, whatever the selection.
    Providers whose goals are the same in both (DBC, TMC, NTMC, EC, OC) are shared, so the
    exceptions and outputs the search found are known to the report too.
    """

    def __init__(
        self,
        model: ModuleModel,
        unit: Unit,
        selection: Selection,
        counters: CounterMap | None,
        probe_base: int = 0,
    ) -> None:
        """``probe_base``: the number of the unit's first mutant in the tally (``probe_bases``)."""
        tree, code = _parsed(model.source), _code(model.source)
        self.unit, self.selection, self.counters = unit, selection, counters
        self.probe_base = probe_base
        self.structure: Structure = read_structure(model, unit, tree, code)
        points = mutation_points(tree, unit)
        direct = DirectBranches(self.structure, unit.targets)
        shared: dict[Criterion, GoalProvider] = {
            Criterion.DIRECT_BRANCH: direct,
            Criterion.METHOD: Methods(self.structure, returning=False),
            Criterion.METHOD_NO_EXCEPTION: Methods(self.structure, returning=True),
            Criterion.EXCEPTION: Exceptions(self.structure),
            Criterion.OUTPUT: Outputs(self.structure),
        }
        lines = sorted(self.structure.lines)
        self.reported: dict[Criterion, GoalProvider] = {
            **shared,
            Criterion.LINE: Lines(self.structure, lines),
            Criterion.WEAK_MUTATION: WeakMutants(self.structure, points, code, probe_base),
        }
        self.searched: list[GoalProvider] = []
        for criterion in selection.criteria:
            if criterion is Criterion.BRANCH:
                continue
            if selection.smart and criterion is Criterion.LINE:
                chosen = set(smart_lines(self.structure.blocks)) & set(lines)
                self.searched.append(Lines(self.structure, sorted(chosen)))
            elif selection.smart and criterion is Criterion.WEAK_MUTATION:
                chosen_mutants = smart_mutants(points)
                self.searched.append(WeakMutants(self.structure, chosen_mutants, code, probe_base))
            elif selection.smart and criterion is Criterion.DIRECT_BRANCH:
                structure = self.structure
                self.searched.append(
                    _SubsetOfDirect(direct, structure.called_inside, structure.deferred)
                )
            else:
                self.searched.append(self.reported[criterion])

    # ------------------------------------------------------------------ the search

    def goals(self) -> list[Goal]:
        """The goals the search aims at now (besides the branch targets); dynamic ones grow."""
        return [goal for provider in self.searched for goal in provider.goals()]

    def goal_count(self) -> int:
        """``len(goals())`` without building the list (asked before every search step)."""
        return sum(provider.goal_count() for provider in self.searched)

    def heuristics(self, trace: Trace, branch_h: Mapping[Hashable, float]) -> dict[Goal, float]:
        """h of the searched goals for one execution, from the same trace as the branches'."""
        if not self.searched:
            return {}
        run = Run(trace, branch_h, self.structure, self.counters)
        h: dict[Goal, float] = {}
        for provider in self.searched:
            h.update(provider.fitness(run))
        return h

    def control_dependencies(self) -> dict[Hashable, tuple[Hashable, ...]]:
        """The goals' CDG for DynaMOSA: branch targets and searched goals -> controlling targets."""
        control = self.structure.control
        parents: dict[Hashable, tuple[Hashable, ...]] = {}
        for target in self.unit.targets:
            parents[target.id] = control.get(target.line, ())
        for provider in self.searched:
            for goal in provider.goals():
                parents[goal] = provider.parents(goal)
        return parents

    # ------------------------------------------------------------------ the report

    def report(
        self,
        runs: Sequence[tuple[Trace, Mapping[Hashable, float]]],
        counters: CounterMap | None,
    ) -> dict[Criterion, Coverage]:
        """Per criterion, the goals ``runs`` (the emitted tests) cover, out of its full goal set.

        ``counters`` are those of the module the runs ran in (the fully probed copy).
        """
        covered: dict[Criterion, set[Goal]] = {criterion: set() for criterion in self.reported}
        for trace, branch_h in runs:
            run = Run(trace, branch_h, self.structure, counters)
            for criterion, provider in self.reported.items():
                covered[criterion] |= {g for g, h in provider.fitness(run).items() if h >= 1.0}
        return {
            criterion: Coverage(len(covered[criterion]), len(provider.goals()))
            for criterion, provider in self.reported.items()
        }


class _SubsetOfDirect:
    """Smart selection's DBC: only branches of callables the unit's own code calls too, and
    that run when a test calls them (not generators or coroutines: ``Structure.deferred``).

    Elsewhere a covered branch already means its callable was called by the test itself, so
    the DBC goal would duplicate its BC goal (which the search always has). A generator's
    branches run only where something iterates it, never in the statement that calls it: as
    goals they would take the search's budget for nothing.
    """

    criterion = Criterion.DIRECT_BRANCH

    def __init__(
        self, direct: DirectBranches, called_inside: set[str], deferred: Set[str] = frozenset()
    ) -> None:
        self.direct = direct
        self._goals = [
            g for g in direct.goals() if g.callable in called_inside and g.callable not in deferred
        ]

    def goals(self) -> Sequence[Goal]:
        return self._goals

    def goal_count(self) -> int:
        return len(self._goals)

    def fitness(self, run: Run) -> dict[Goal, float]:
        keep = set(self._goals)
        return {goal: h for goal, h in self.direct.fitness(run).items() if goal in keep}

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        return self.direct.parents(goal)
