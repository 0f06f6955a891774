"""A job's objectives besides branches: the criteria's goals, their counters and probes, the
performance proxies, and when to stop searching for goals that may be infeasible.

The module under test is imported once for all the units of a job (``engine``), so its
statement counters and weak-mutation probes are decided per job: ``Objectives.of`` reads the
spec and the model, ``transforms`` go to the loader, and each unit's ``UnitCriteria`` finds its
mutants in the shared tally from its ``probe_bases`` entry.
"""

from __future__ import annotations

import types
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from miogen.analysis.model import ModuleModel, Unit
from miogen.common.records import CriterionCoverage, JobSpec, TestData
from miogen.criteria import (
    Coverage,
    Criterion,
    Selection,
    UnitCriteria,
    parse_criteria,
    probe_finder,
)
from miogen.criteria.measurement import CountedCode, counted_code
from miogen.criteria.unit import probe_bases
from miogen.instrument.counting import CounterMap, Counting
from miogen.instrument.loader import Transform
from miogen.instrument.reach import Scope
from miogen.testcase.model import TestCase, from_json
from miogen.testcase.sampling import TestFactory
from miogen.worker.executor import Executor
from miogen.worker.problem import UnitProblem
from miogen.worker.search import Archive, Budget

MUTATION_PATIENCE = 500  # evaluations without a new kill (or goal) before a phase may stop


@dataclass
class Objectives:
    """What the job searches for besides branches, and how its module is instrumented for it."""

    selection: Selection
    performance: bool  # tests carry aDynaMOSA's proxies (its archive, MIO's ``--performance``)
    counting: Counting | None = None  # statement counters and probes; None: none needed
    bases: dict[str, int] = field(default_factory=dict)  # unit -> its first mutant's number
    scope: Scope | None = None  # the code the job's tests can run: all that is instrumented
    units: tuple[Unit, ...] = ()  # the job's, in the order of ``bases``
    # The report's counted code of all the job's units, compiled at the first report, and the
    # copy it ran in; None: its top-level statements refused to run twice (then each unit
    # tries a copy of its own).
    shared_code: CountedCode | None = field(default=None, repr=False)
    shared_copy: types.ModuleType | None = field(default=None, repr=False)
    shared_tried: bool = field(default=False, repr=False)
    shared_fresh: bool = field(default=False, repr=False)  # the copy is one no unit ran in

    @classmethod
    def of(cls, spec: JobSpec, model: ModuleModel) -> Objectives:
        """Counters and probes only as far as the search reads them, and only in code the job's
        tests can run (``instrument.reach``).

        Line and weak-mutation goals need counters, and the performance proxies do; probes go
        only on the mutants the search aims at. Branch-only runs stay as fast as before. The
        goals of every criterion lie in the units' ranges (their own code and the private
        helpers they call), which the scope starts from; the performance proxies count the
        production code a test runs, which the scope follows from there.
        """
        selection = parse_criteria(spec.criteria)
        performance = spec.performance or spec.algorithm.performance_aware
        units = tuple(model.unit(job.name) for job in spec.units)
        scope = job_scope(model, units)
        # The report's copy numbers every unit's mutants as the search's tally would.
        bases = probe_bases(model.source, units)
        if not (selection.counts_statements or performance):
            return cls(selection, performance, None, bases, scope, units)
        counting = Counting(probe_finder(units, selection.probes))
        return cls(selection, performance, counting, bases, scope, units)

    @property
    def transforms(self) -> list[Transform]:
        return [self.counting] if self.counting is not None else []

    def measured_copy(
        self, model: ModuleModel, unit: Unit, module: types.ModuleType, spec: JobSpec
    ) -> tuple[types.ModuleType, CounterMap]:
        """A fully counted and probed copy with ``unit`` in it, from one compiled code for all
        the job's units, made at the first report (instrumenting and compiling a copy per unit
        cost more than the search of a small unit); a copy of the unit alone where that one
        could not be made.

        In a module with module-level state the copy is the whole module, and a unit's tests
        may leave state in it that the executor does not restore (a Counter, a cache, a class
        attribute, an object's fields): each later unit gets a copy of its own, the same code
        run afresh (as a run of its tests alone would find the module), not compiled again.
        """
        base = None if model.has_module_state else module
        path, name = module.__file__ or spec.path, spec.module_name
        shared = unit.name in {u.name for u in self.units}
        if shared:
            self.compile_report(model, module, spec)
        if shared and self.shared_code is not None and self.shared_copy is not None:
            if model.has_module_state and not self.shared_fresh:
                self.shared_copy = self.shared_code.copy()
            self.shared_fresh = False
            return self.shared_copy, self.shared_code.counters
        own = counted_code(model.source, path, [unit], name, base, self.bases.get(unit.name, 0))
        return own.copy(), own.counters

    def compile_report(self, model: ModuleModel, module: types.ModuleType, spec: JobSpec) -> None:
        """Compile the report's counted code of the job's units and make its first copy, once
        (``measured_copy``): the engine does it with the module's import, so that the
        compiling takes no unit's post-processing time."""
        if self.shared_tried:
            return
        self.shared_tried = True
        base = None if model.has_module_state else module
        path, name = module.__file__ or spec.path, spec.module_name
        try:
            self.shared_code = counted_code(model.source, path, self.units, name, base)
            self.shared_copy = self.shared_code.copy()
            self.shared_fresh = True
        except Exception:  # noqa: BLE001 - user code run again at the top level may refuse
            self.shared_code = None

    def unit_criteria(self, model: ModuleModel, unit: Unit) -> UnitCriteria:
        counters = self.counting.map if self.counting is not None else None
        return UnitCriteria(model, unit, self.selection, counters, self.bases.get(unit.name, 0))


def job_scope(model: ModuleModel, units: Sequence[Unit]) -> Scope:
    """Where the code the tests of ``units`` can run starts: their ranges, and what a test of
    each may call by name (``TestFactory.callable_names``)."""
    names: set[str] = set()
    for unit in units:
        names |= TestFactory(model, unit).callable_names()
    return Scope(tuple(lines for unit in units for lines in unit.ranges), frozenset(names))


def criteria_report(
    problem: UnitProblem,
    tests: Sequence[TestData],
    spec: JobSpec,
    model: ModuleModel,
    module: types.ModuleType,
    objectives: Objectives | None = None,
) -> dict[str, CriterionCoverage]:
    """Per criterion, the goals the emitted tests cover out of all of the criterion's goals.

    Measured on the tests as emitted, over every criterion whatever the search aimed at (so
    that runs with different ``--criteria`` compare), by one more run of each in a fully
    counted and probed copy of the unit (criteria/measurement.py; ``objectives``: the job's,
    whose one copy serves all its units).
    """
    criteria = problem.criteria
    if criteria is None:
        return {}
    if not tests:  # nothing covered, of goals the unit still has (its share of the totals)
        return _coverage(criteria.report([], None))
    own = Objectives(criteria.selection, False, None, {problem.unit.name: criteria.probe_base})
    try:
        copy, counters = (objectives or own).measured_copy(model, problem.unit, module, spec)
    except Exception:  # noqa: BLE001 - user code run again at the top level may refuse
        # The copy re-runs the unit's top-level statements: a decorator that registers the
        # function (and refuses a second registration) fails there. The report is only a
        # measurement; the unit's tests stand without it.
        return {}
    executor = Executor(
        copy, problem.executor.tracer, spec.test_timeout, fresh_containers=model.has_module_state
    )
    runs = []
    for data in tests:
        execution = executor.run(from_json(data))
        runs.append((execution, problem.branch_heuristics(execution)))
    return _coverage(criteria.report(runs, counters))


def _coverage(report: Mapping[Criterion, Coverage]) -> dict[str, CriterionCoverage]:
    return {c.value: CriterionCoverage(v.covered, v.total) for c, v in report.items()}


class Stagnation:
    """True once a phase has covered nothing new for as long as it has been running.

    ``of`` restricts "new" to some targets (the mutation phase counts kills only, not the other
    criteria's goals it may cover on the way); they are counted only when the archive changed.
    """

    def __init__(
        self,
        archive: Archive[TestCase],
        budget: Budget,
        of: Sequence[Hashable] | None = None,
    ) -> None:
        self.archive, self.budget, self.of = archive, budget, of
        self.start = self.last = budget.evaluations_used
        self.seen = archive.covered_count
        self.covered = self._count()
        self.fired = False

    def _count(self) -> int:
        if self.of is None:
            return self.archive.covered_count
        return sum(1 for target in self.of if self.archive.is_covered(target))

    def __call__(self) -> bool:
        used = self.budget.evaluations_used
        if self.archive.covered_count != self.seen:
            self.seen = self.archive.covered_count
            covered = self._count()
            if covered > self.covered:
                self.covered, self.last = covered, used
        self.fired = used - self.last > max(MUTATION_PATIENCE, self.last - self.start)
        return self.fired


class GoalsStalled:
    """True once every branch is covered (by the search, or the project's suite: ``settled``) and
    the other goals stopped coming, as in ``Stagnation``.

    The other criteria's goals often include infeasible ones (a ``negative`` output of a
    function that never returns one, exceptions nobody can raise): without this rule every
    unit with criteria would use its whole budget. With every branch target covered, the search
    goes on for the other goals as long as it keeps covering new ones (at least
    ``MUTATION_PATIENCE`` evaluations, and as long again as it has been running since).
    """

    def __init__(self, problem: UnitProblem, archive: Archive[TestCase], budget: Budget) -> None:
        self.problem, self.archive, self.budget = problem, archive, budget
        self.seen = -1
        self.stagnation: Stagnation | None = None

    @property
    def fired(self) -> bool:
        return self.stagnation is not None and self.stagnation.fired

    def __call__(self) -> bool:
        if self.problem.criteria is None or not self.problem.criteria.goal_count():
            return False
        if self.stagnation is None:
            if self.archive.covered_count == self.seen:
                return False
            self.seen = self.archive.covered_count
            if not all(self.archive.is_covered(target) for target in self.problem.open_ids):
                return False
            self.stagnation = Stagnation(self.archive, self.budget)
        return self.stagnation()
