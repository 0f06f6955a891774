"""One unit's phases in the worker: prepare, mutants, seeds, search, reduce, render.

Each phase returns what it found; ``UnitRun`` keeps a unit's problem, archive and mutants while
the module's units share the budget (``engine``), so that a unit can be given more time later,
and turns them into the unit's ``UnitResult`` at the end.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import sys
import time
import types
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from miogen.analysis.model import ModuleModel, Target, Unit
from miogen.analysis.targets import CodeMap, parse_code
from miogen.assertions.kills import MutantSet, MutantTarget
from miogen.assertions.mutants import parsed
from miogen.assertions.observe import Observed, observe, unmeant_raise
from miogen.assertions.select import MutationAnalysis, MutationReport
from miogen.common.heartbeat import Heartbeat
from miogen.common.records import (
    Algorithm,
    JobSpec,
    MutationSummary,
    Progress,
    ShrinkSummary,
    StopReason,
    StreamedTest,
    TestRecord,
    Uncovered,
    UnitJob,
    UnitResult,
    WorkerDrops,
)
from miogen.emit.names import test_name
from miogen.emit.relevance import changed_state_only
from miogen.emit.render import render_test
from miogen.instrument.loader import load_instrumented
from miogen.instrument.rewrite import probed_lines
from miogen.minimize.readable import (
    module_texts,
    module_words,
    module_years,
    number_parameters,
    unit_numbers,
)
from miogen.minimize.reduce import ReducedTest
from miogen.minimize.suite import Reduction, reduce_suite
from miogen.testcase.calling import as_written, mistyped
from miogen.testcase.examples import example_tests, project_pool
from miogen.testcase.model import (
    CALLS,
    TestCase,
    canonical_key,
    drop_unused_values,
    from_json,
    to_json,
)
from miogen.testcase.sampling import TestFactory
from miogen.testcase.validity import still_valid
from miogen.worker import world
from miogen.worker.executor import Executor
from miogen.worker.objectives import GoalsStalled, Objectives, Stagnation, criteria_report
from miogen.worker.problem import BRANCHES_ONLY, EvaluationMode, UnitProblem
from miogen.worker.search import (
    Archive,
    Budget,
    DynaMosaConfig,
    Evaluated,
    MioConfig,
    Variant,
    run_dynamosa,
    run_mio,
    run_random,
    run_wts,
)
from miogen.worker.tracer import ArcTracer

Emit = Callable[[Any], None]  # sends a record (records.Event) to the supervisor
# Of the time a phase has left, at most this part goes to loading the mutants it needs: the rest
# is for running them (a search's mutation phase, a unit's reduction and assertions).
MUTANT_LOADING_SHARE = 0.5
# Under a time budget no test of a search runs longer than the search's whole budget (nor than
# this, for searches shorter still): a hanging test would otherwise overrun a short slice by the
# test timeout and take that time from the units after it.
MIN_TEST_SECONDS = 0.1
# Of a unit's post-processing time under a time budget, the reduction's part (the set cover and
# the shrinking, its allowance included): the rest is for observing, rendering and measuring the
# kept tests, which end by the unit's deadline rather than past it by shrinking's allowance.
REDUCE_SHARE = 0.75
R = TypeVar("R")


@dataclass
class Phases:
    """Seconds spent per phase, for the summary."""

    seconds: dict[str, float] = field(default_factory=dict)

    def timed(self, name: str, function: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        start = time.monotonic()
        try:
            return function(*args, **kwargs)
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - start


def load(spec: JobSpec, objectives: Objectives | None = None) -> types.ModuleType:
    """The module under test, instrumented, imported once for all its units.

    ``objectives``: the job's statement counters and weak-mutation probes go in too, and only
    the code the job's tests can run is instrumented.
    """
    if spec.import_root not in sys.path:
        sys.path.insert(0, spec.import_root)
    transforms = objectives.transforms if objectives is not None else []
    scope = objectives.scope if objectives is not None else None
    return load_instrumented(spec.path, spec.module_name, transforms=transforms, scope=scope)


def prepare(
    spec: JobSpec,
    job: UnitJob,
    model: ModuleModel,
    unit: Unit,
    module: types.ModuleType,
    heartbeat: Heartbeat | None,
    objectives: Objectives | None = None,
) -> UnitProblem:
    """The unit's search problem: its executor (probes, or the arc tracer where they fall short);
    with ``objectives``, the unit's goals of other criteria and the performance proxies; the
    targets the project's suite covers settled (``job.suite_covered``)."""
    probed = probed_lines_of(model.source)
    exact = all(t.line in probed for t in unit.targets if t.kind == "branch")
    tracer = None if exact and not spec.trace else ArcTracer(module.__file__ or spec.path)
    executor = Executor(
        module, tracer, timeout=spec.test_timeout, fresh_containers=model.has_module_state
    )
    if heartbeat is not None:
        executor.before_test, executor.after_test = heartbeat.begin, heartbeat.end
        executor.before_statement = heartbeat.statement
    blocked = frozenset(canonical_key(from_json(t)) for t in job.blocked)
    criteria = objectives.unit_criteria(model, unit) if objectives is not None else None
    performance = objectives.performance if objectives is not None else False
    factory = TestFactory(model, unit)
    # the values of the project's tests of the module join its constant pool (seeds, part 6)
    factory.pool = project_pool(factory.pool, spec.cwd, tuple(j.name for j in spec.units))
    return UnitProblem(
        factory, executor, unit, _code_map(model.source), blocked,
        criteria=criteria, performance=performance, settled=frozenset(job.suite_covered),
    )  # fmt: skip


@functools.lru_cache(maxsize=4)
def probed_lines_of(source: str) -> frozenset[int]:
    """Lines whose branches the probes see (found once per module, for all its units)."""
    return frozenset(probed_lines(parsed(source)))


@functools.lru_cache(maxsize=4)
def _code_map(source: str) -> CodeMap:
    """coverage.py's view of the module's code (parsed once per module, for all its units)."""
    return parse_code(source)


def load_mutants(
    spec: JobSpec,
    job: UnitJob,
    model: ModuleModel,
    unit: Unit,
    module: types.ModuleType,
    heartbeat: Heartbeat | None,
) -> MutantSet:
    """The unit's mutants, loaded once: targets of the mutation phase, judges of the assertions.

    After a worker crash (careful) there are none: their new inputs could crash it again.
    """
    mutants = MutantSet(
        model.source, spec.path, unit, spec.module_name,
        timeout=min(spec.test_timeout, 0.25), enabled=not job.careful,
        fresh_containers=model.has_module_state,
        # Modules with module-level state run whole per mutant: no container is shared.
        base=None if model.has_module_state else module,
    )  # fmt: skip
    if heartbeat is not None:
        mutants.hook(heartbeat.begin, heartbeat.statement, heartbeat.end)
    return mutants


def replay_seeds(
    problem: UnitProblem,
    job: UnitJob,
    seed: int,
    feedback_directed: bool,
    project_root: str = "",
    deadline: float | None = None,
) -> tuple[Archive[TestCase], int]:
    """Earlier tests go into the archive first (CTG's previous suite, MIO's counterpart).

    Returns the archive and how many seeds still applied. A problem whose tests carry the
    performance proxies gets the archive that prefers cheaper tests (aDynaMOSA's Eq. 1). The
    examples of the unit's use follow, in their order (doctests, the module's call sites, the
    project's tests'), until ``deadline`` (``time.monotonic()``; None: all of them): they are
    where the search starts, and a search left no time to start from them gains nothing.
    """
    archive: Archive[TestCase] = Archive(
        random.Random(seed), feedback_directed=feedback_directed, performance=problem.performance
    )
    replayed = 0
    for data in job.seeds:
        try:
            test = from_json(data)
        except (TypeError, ValueError):
            continue
        if still_valid(problem.factory, test):
            archive.offer(problem.evaluate(test))
            replayed += 1
    # Examples of the unit's use: doctests, call sites in the module and the project's tests
    for test in example_tests(problem.factory, project_root):
        if deadline is not None and time.monotonic() >= deadline:
            break
        if still_valid(problem.factory, test):
            archive.offer(problem.evaluate(test))
    return archive, replayed


@dataclass
class SearchRecord:
    """What a unit's search spent and why it stopped (summed over continuations)."""

    evaluations: int = 0
    coverage_evaluations: int = 0
    seconds: float = 0.0
    executions: int = 0  # test executions of the search, the mutants' included
    stop_reason: StopReason = StopReason.NO_SEARCH
    mutation_started: bool = False


class UnitRun:
    """One unit in the worker, from its problem to its result; its search may be continued."""

    def __init__(
        self,
        spec: JobSpec,
        job: UnitJob,
        model: ModuleModel,
        module: types.ModuleType,
        heartbeat: Heartbeat | None,
        emit: Emit,
        objectives: Objectives | None = None,
        seed_deadline: float | None = None,
    ) -> None:
        """``seed_deadline``: when the examples stop seeding the archive (``replay_seeds``)."""
        self.spec, self.job, self.emit = spec, job, emit
        self.model, self.module, self.objectives = model, module, objectives
        self.unit = model.unit(job.name)
        self.phases = Phases()
        args = (spec, job, model, self.unit, module, heartbeat)
        self.problem = self.phases.timed("prepare", prepare, *args, objectives)
        self.mutants = self.phases.timed("mutants", load_mutants, *args)
        fds = spec.algorithm != Algorithm.MIO_NOFDS
        self.archive, self.replayed = self.phases.timed(
            "seed", replay_seeds, self.problem, job, spec.seed, fds, spec.cwd, seed_deadline
        )
        self.rng = random.Random(spec.seed)
        self.record = SearchRecord()
        self.progress = _Progress(self.problem, self.archive, job.name, emit, spec)

    @property
    def mutation_on(self) -> bool:
        return (
            self.spec.mutation_share > 0
            and len(self.mutants) > 0
            and self.spec.algorithm in (Algorithm.MIO, Algorithm.MIO_NOFDS)
        )

    @property
    def can_continue(self) -> bool:
        """Whether more time could help: the budget stopped it, and it can resume."""
        return self.record.stop_reason == StopReason.BUDGET and self.spec.algorithm != Algorithm.WTS

    def remaining_gain(self) -> int:
        """Targets (and mutants, once their phase started) still uncovered."""
        mode = self._mutant_mode(Budget()) if self.record.mutation_started else BRANCHES_ONLY
        targets = self.problem.under(mode).targets()
        return sum(1 for target in targets if not self.archive.is_covered(target))

    def search(self, budget: Budget) -> StopReason:
        """Search (or go on searching) within ``budget``; returns why it stopped."""
        if self.job.replay_only or not self.problem.by_id:
            return self.record.stop_reason
        continuing = self.record.evaluations > 0
        if not budget.started:
            budget.start()  # everything the search does counts, its mutants' loading included
        executor = self.problem.executor
        if budget.seconds is not None:
            limit = max(budget.seconds, MIN_TEST_SECONDS)
            executor.timeout = min(self.spec.test_timeout, limit)
        try:
            reason = self.phases.timed("search", self._search, budget, continuing)
        finally:
            executor.timeout = self.spec.test_timeout
        self.progress.flush(budget)
        self.record.evaluations += budget.evaluations_used
        self.record.seconds += budget.elapsed
        self.record.executions = self.problem.executor.executions + self.mutants.executions
        self.record.stop_reason = reason
        return reason

    def _search(self, budget: Budget, continuing: bool) -> StopReason:
        """Coverage first; then, in the budget left, the mutation phase (mutants as targets).

        The coverage phase ends when every branch target is covered or ``1 - mutation_share``
        of the budget is spent. The mutation phase continues the same archive with one more
        target per mutant of the unit (covered = killed, EvoSuite's strong mutation), so that
        the tests a user keeps check boundaries and not just paths; it ends with the budget,
        or when it has killed nothing new for as long as it has been running (at least
        ``MUTATION_PATIENCE`` evaluations): equivalent mutants can never be killed, and
        waiting for them wastes the user's time. MIO only: the random and whole-suite
        baselines search for coverage alone. A continued search starts focused (F = 0): its
        archive has explored already. The phase's mutants are loaded in its own time (at most
        ``MUTANT_LOADING_SHARE`` of it, see ``_load_mutants``); with none loaded it is skipped.
        """
        self.progress.budget = budget
        archive, progress = self.archive, self.progress
        spec, problem = self.spec, self.problem
        if not problem.targets() and not self.mutation_on:
            return StopReason.ALL_COVERED  # the project's suite covers every target already
        stalled = GoalsStalled(problem, archive, budget)
        if spec.algorithm == Algorithm.RANDOM:
            run_random(problem, budget, self.rng, archive, progress, stalled)
            return self._covered_or(self._stalled_or_budget(stalled), problem)
        if spec.algorithm == Algorithm.WTS:  # the whole-suite GA baseline keeps its own archive
            self.archive = run_wts(problem, budget, self.rng, on_evaluation=self.progress)
            self.progress.archive = self.archive
            return self._covered_or(StopReason.BUDGET, problem)
        if spec.algorithm.genetic:
            genetic = DynaMosaConfig(variant=Variant(spec.algorithm.value))
            run_dynamosa(problem, budget, self.rng, genetic, archive, progress, stalled)
            return self._covered_or(self._stalled_or_budget(stalled), problem)
        config = MioConfig(
            focus_point=0.0 if continuing else spec.focus_point,
            feedback_directed=spec.algorithm != Algorithm.MIO_NOFDS,
        )
        share = spec.mutation_share if self.mutation_on else 0.0
        if not self.record.mutation_started and problem.targets():
            coverage_end = 1.0 - share
            run_mio(
                problem, budget, self.rng, config, archive, progress,
                should_stop=lambda: budget.fraction_used() >= coverage_end or stalled(),
            )  # fmt: skip
            self.record.coverage_evaluations += budget.evaluations_used
            if share == 0 or budget.exhausted():
                return self._covered_or(self._stalled_or_budget(stalled), problem)
        if not self._load_mutants(budget):
            return self._covered_or(self._stalled_or_budget(stalled), problem)
        self.record.mutation_started = True
        mutant_problem = problem.under(self._mutant_mode(budget))
        kills = [loaded.target for loaded in self.mutants.loaded]
        stagnation = Stagnation(self.archive, budget, of=kills)
        run_mio(mutant_problem, budget, self.rng, config, archive, progress, stagnation)
        if stagnation.fired:
            return StopReason.STAGNATION
        return self._covered_or(StopReason.BUDGET, mutant_problem)

    def _load_mutants(self, budget: Budget) -> bool:
        """Load (more of) the unit's mutants in at most ``MUTANT_LOADING_SHARE`` of the time
        left; whether any are loaded. Under an evaluation budget all of them are: loading costs
        no evaluation, and the run stays the same for the same seed."""
        left = budget.seconds_left()
        deadline = None if left is None else time.monotonic() + left * MUTANT_LOADING_SHARE
        self.mutants.load(deadline)
        return bool(self.mutants.loaded)

    def _mutant_mode(self, budget: Budget) -> EvaluationMode:
        # Killed mutants need no more runs; and no evaluation runs mutants past the budget.
        archive = self.archive
        return EvaluationMode(
            self.mutants,
            skip=lambda target: archive.is_covered(target) or budget.exhausted(),
            whole_kills=True,
        )

    @staticmethod
    def _stalled_or_budget(stalled: GoalsStalled) -> StopReason:
        return StopReason.STAGNATION if stalled.fired else StopReason.BUDGET

    def _covered_or(self, reason: StopReason, problem: UnitProblem) -> StopReason:
        covered = all(self.archive.is_covered(t) for t in problem.targets())
        return StopReason.ALL_COVERED if covered else reason

    def finish(self, deadline: float, taken: set[str]) -> UnitResult:
        """Reduce, observe and render the unit's tests by ``deadline``; the unit's result.

        ``taken``: test names already used in the module (updated), so names never clash.
        """
        judges = self._mutants_by(deadline)
        mutants = judges if self.mutation_on and len(judges) else None
        reduce_by = self._reduce_deadline(deadline)
        reduction = self.phases.timed("reduce", self._reduce, mutants, reduce_by)
        # Shrinking is measured in runs (``minimize``): on a quiet machine it ends by
        # ``reduce_by``; on a machine too slow for its runs it may take up to its allowance
        # beyond, and the rendering's own share then moves by as much as it overran.
        deadline = max(deadline + self._overrun(reduce_by), self._judging_net(deadline))
        rendering = self.phases.timed(
            "render", self._render, reduction.tests, deadline, taken, judges, self.mutation_on
        )
        tests = [test.test for test in rendering.tests]
        args = (self.problem, tests, self.spec, self.model, self.module, self.objectives)
        criteria = self.phases.timed("measure", criteria_report, *args)
        return dataclasses.replace(self._result(reduction, rendering), criteria=criteria)

    def _reduce_deadline(self, deadline: float) -> float:
        """When the reduction (its shrinking included) ends: under a time budget, after
        ``REDUCE_SHARE`` of the time to ``deadline``, the rest left to observe and render the
        kept tests, so that the unit's post-processing ends by ``deadline``; under an
        evaluation budget, at ``deadline`` (far, so that the run is the same for the seed)."""
        if self.spec.evaluations is not None:
            return deadline
        now = time.monotonic()
        return now + max(deadline - now, 0.0) * REDUCE_SHARE

    def _judging_net(self, deadline: float) -> float:
        """Until when the phases that judge mutants (the set cover's kills, the choice of
        assertions) may run. Under a time budget, ``deadline``. Under an evaluation budget
        they are bounded by their input, by count: every candidate of the set cover runs once
        (``CoverageCache``) and every kept test against every mutant loaded; the wall clock is
        only a safety net at the end of the unit's post-processing allowance (``JobSpec.
        post_allowance``: the deadline and shrinking's allowance), so that the same seed gives
        the same tests on a machine slowed past the post-processing's own deadline (a kill
        left unchecked there kept other tests, and other assertions)."""
        if self.spec.evaluations is None:
            return deadline
        return deadline + self.spec.shrink_allowance()

    def _mutants_by(self, deadline: float) -> MutantSet:
        """The unit's mutants for its post-processing: those loaded already, and more in at most
        ``MUTANT_LOADING_SHARE`` of the time to ``deadline``; none when it has no test, or when
        none could be loaded in time (loading compiles the unit once per mutant, a second or
        more for a large unit of a module with module-level state; past the deadline the
        assertions are chosen without them anyway). Under an evaluation budget all of them
        are, as for the search (``_load_mutants``): a deadline on the wall clock loaded fewer on
        a busy machine, and the same seed chose other assertions."""
        now = time.monotonic()
        if self.archive.solution() and now < deadline and not self.mutants.ready:
            by_count = self.spec.evaluations is not None
            self.mutants.load(None if by_count else now + (deadline - now) * MUTANT_LOADING_SHARE)
        if self.mutants.ready or self.mutants.available:
            return self.mutants
        return MutantSet(
            self.model.source, self.spec.path, self.unit, self.spec.module_name,
            self.mutants.timeout, enabled=False,
        )  # fmt: skip

    def _reduce(self, mutants: MutantSet | None, deadline: float) -> Reduction:
        """The unit's kept tests, reduced by ``deadline``; the candidates' kills checked until
        ``_judging_net`` (under an evaluation budget ``deadline`` is the post-processing's)."""
        originals = [e.individual for e in self.archive.solution().values()]
        judged = self._judging_net(deadline)
        runner = _SuiteRunner(self.problem, mutants, judged)
        factory = self.problem.factory
        model = factory.model
        numbers = number_parameters(
            model, factory.signature, factory.numeric_uses, factory.whole_number_uses
        )
        # Performance-aware searches (aDynaMOSA, MIO --performance) keep the cheaper cover.
        cost = runner.proxies if self.problem.performance else None
        return reduce_suite(
            originals, runner, _is_mutant, deadline, self.job.careful, mutants is not None,
            numbers, cost, module_words(model), self.spec.join_tests,
            self._shrink_allowance(deadline), module_texts(model),
            factory.signature, self._shrinking(),
            unit_numbers(model.source, self.unit.ranges), module_years(model.source), judged,
            # The project's suite is the baseline: the host keeps a test for a kill only if
            # the suite leaves the mutant alive, which a lone kill often is.
            lone_kills=bool(self.job.suite_covered),
        )  # fmt: skip

    def _shrink_allowance(self, deadline: float) -> float:
        """Shrinking's allowance beyond half the reduction's time (``reduce_suite``): a hard
        bound in seconds for a machine too slow for shrinking's runs, under either budget
        (``JobSpec.shrink_allowance``: the set cover may have taken all the time before it)."""
        del deadline  # the allowance does not shrink with the slice: the values would
        return self.spec.shrink_allowance()  # then depend on the machine's load

    def _overrun(self, reduce_by: float) -> float:
        """How far the reduction ran past ``reduce_by`` (shrinking on a slow machine, or after
        a set cover that took all the time), at most shrinking's allowance."""
        return min(max(time.monotonic() - reduce_by, 0.0), self.spec.shrink_allowance())

    def _shrinking(self) -> bool:
        """Whether the kept tests are shrunk: not under ``raw`` (``--raw``, or a unit whose
        workers died so often that one more death fails it: shrinking runs new inputs). A
        careful unit before that shrinks: a candidate that kills the worker is blocked and the
        unit restarts from its seeds, as for the search's inputs."""
        return not self.job.raw

    def _render(
        self,
        suite: list[ReducedTest],
        deadline: float,
        taken: set[str],
        mutants: MutantSet,
        kills: bool,
    ) -> Rendering:
        return render(self.problem, suite, self.spec.module_name, deadline, mutants, taken, kills)

    def _result(self, reduction: Reduction, rendering: Rendering) -> UnitResult:
        archive, problem, record = self.archive, self.problem, self.record
        covered = archive.covered()
        uncovered = tuple(
            Uncovered(target.id, closest(archive, target), archive.best_h(target.id))
            for target in self.unit.targets
            if target.id not in covered and target.id not in problem.settled
        )
        report = rendering.mutation_report
        mutation = MutationSummary(
            mutants=report.mutants,
            killed=len(report.killed),
            score=round(report.score, 3),
            killed_in_search=sum(isinstance(t, MutantTarget) for t in covered),
            coverage_evaluations=record.coverage_evaluations or record.evaluations,
        )
        shrinking = ShrinkSummary(
            reduction.cache_hits,
            reduction.executions,
            reduction.shrink_attempts,
            reduction.shrink_successes,
        )
        return UnitResult(
            unit=self.unit.name,
            total=len(self.unit.targets),
            covered=branch_ids(covered),
            tests=tuple(rendering.tests),
            uncovered=uncovered,
            stop_reason=record.stop_reason,
            evaluations=record.evaluations,
            executions=problem.executor.executions + self.mutants.executions,
            mutant_executions=self.mutants.executions,
            search_executions=record.executions,
            search_seconds=record.seconds,
            phases=self.phases.seconds,
            replayed=self.replayed,
            refusals=dict(problem.refusals),
            mutation=mutation,
            shrinking=shrinking,
            dropped=rendering.drops,
        )


def branch_ids(targets: Iterable[Hashable]) -> tuple[int, ...]:
    """The branch and line targets among ``targets`` (ints), sorted: mutants are left out."""
    return tuple(sorted(t for t in targets if isinstance(t, int)))


def _is_mutant(target: Hashable) -> bool:
    return isinstance(target, MutantTarget)


class _SuiteRunner:
    """Runs tests for the reduction: branches, and the mutants in focus while time allows."""

    def __init__(self, problem: UnitProblem, mutants: MutantSet | None, deadline: float) -> None:
        self.all: set[Hashable] = {m.target for m in mutants.loaded} if mutants else set()
        self.wanted: set[Hashable] = set(self.all)
        self.until = deadline  # kills are checked until then (``focus`` may move it)
        wanted = self.wanted
        mode = BRANCHES_ONLY
        if mutants is not None:
            mode = EvaluationMode(
                mutants,
                skip=lambda target: target not in wanted or time.monotonic() >= self.until,
            )
        self.problem = problem.under(mode)
        self._proxies: dict[tuple[object, ...], tuple[float, ...]] = {}

    def __call__(self, test: TestCase) -> tuple[TestCase, frozenset[Hashable]]:
        evaluated = self.problem.evaluate(test)
        if evaluated.proxies:
            self._proxies[canonical_key(evaluated.individual)] = evaluated.proxies
        return evaluated.individual, frozenset(t for t, h in evaluated.h.items() if h >= 1.0)

    def proxies(self, test: TestCase) -> tuple[float, ...] | None:
        """The performance proxies I1..I7 of a test this runner ran (as it ran), else None."""
        return self._proxies.get(canonical_key(test))

    def focus(self, optional: Iterable[Hashable] | None, until: float | None = None) -> None:
        self.wanted.clear()
        self.wanted.update(self.all if optional is None else optional)
        if until is not None:
            self.until = until


@dataclass(frozen=True)
class Rendering:
    tests: list[TestRecord]
    drops: WorkerDrops
    mutation_report: MutationReport


def render(
    problem: UnitProblem,
    suite: list[ReducedTest],
    module_name: str,
    deadline: float,
    mutants: MutantSet,
    taken: set[str],
    kills: bool = False,
) -> Rendering:
    """Observe each kept test in clean re-runs, choose its assertions, render it.

    A test is not emitted when a re-run was refused or hung (it varies), when the re-runs end
    differently (one raises, the other not), or when nothing stable is left to check.
    ``kills`` (mutation on): each test says which of the unit's mutants its assertions kill.
    """
    classes = set(problem.factory.model.classes)
    generic = {n for n, c in problem.factory.model.classes.items() if c.generic}
    suite = sorted(suite, key=lambda reduced: _source_line(problem.factory, reduced.test))
    rendered: list[TestRecord] = []
    refused = unstable = without_assertion = 0
    analysis = MutationAnalysis(mutants)
    executor = problem.executor
    kept: set[tuple[object, ...]] = set()  # the tests rendered so far, as canonical keys
    for reduced in suite:
        refused_before = executor.refused_runs
        observed = observe(executor, reduced.test, module_name, world.varied)
        if executor.refused_runs != refused_before:
            refused += 1
            continue
        if not observed.stable:
            unstable += 1
            continue
        if unmeant_raise(observed, problem.factory.signature):
            # Not a raises-test (assertions.observe.unmeant_raise): the calls before the raising
            # one stay a test when they show something of their own, else nothing is left.
            shorter = _before_raise(problem, observed, reduced, module_name, kept)
            if shorter is None:
                without_assertion += 1
                continue
            observed, reduced = shorter
        kept.add(canonical_key(observed.test))
        observations = analysis.select(
            observed.test, observed.observations, deadline, problem.factory.signature
        )
        observations = changed_state_only(observed.test, observations, problem.factory.signature)
        if not observations and not _unassertable_but_needed(observed, reduced):
            without_assertion += 1
            continue  # a test without an assertion is not worth keeping
        name = test_name(observed.test, observations, taken, reduced.parts)
        signature = problem.factory.signature
        written = as_written(observed.test, signature)
        wrong = mistyped(observed.test, signature)
        output = render_test(written, observations, name, classes, wrong, signature, generic)
        rendered.append(
            TestRecord(
                name=name,
                source=output.source,
                imports=tuple(sorted(output.imports)),
                extra_imports=tuple(sorted(output.extra_imports)),
                targets=branch_ids(reduced.targets),
                kills=sum(isinstance(t, MutantTarget) for t in reduced.targets),
                test=to_json(observed.test),
                killed=tuple(sorted(analysis.last_killed)) if kills else (),
            )
        )
    drops = WorkerDrops(refused, unstable, without_assertion)
    return Rendering(rendered, drops, analysis.report)


def _before_raise(
    problem: UnitProblem,
    observed: Observed,
    reduced: ReducedTest,
    module_name: str,
    kept: set[tuple[object, ...]],
) -> tuple[Observed, ReducedTest] | None:
    """The test without its raising call (and the values only it used), observed again, with
    the targets it was kept for that it still covers; None when it covers none of them (it adds
    nothing), it is a test already rendered, or its re-runs differ or were refused."""
    assert observed.raised_at is not None
    shorter = drop_unused_values(observed.test[: observed.raised_at])
    if not any(statement.kind in CALLS for statement in shorter) or canonical_key(shorter) in kept:
        return None
    executor = problem.executor
    refused_before = executor.refused_runs
    covered = {t for t, h in problem.evaluate(shorter).h.items() if h >= 1.0}
    targets = reduced.targets & covered
    if not targets:
        return None
    again = observe(executor, shorter, module_name, world.varied)
    if executor.refused_runs != refused_before or not again.stable:
        return None
    return again, ReducedTest(again.test, frozenset(targets))


def _unassertable_but_needed(observed: Observed, reduced: ReducedTest) -> bool:
    """A test with nothing stable to check is kept when what it ran drew from the clock or a
    generator (so its value is not stated) and it covers branches no test kept before it
    covers: it still checks that those paths run without raising."""
    return observed.drew and bool(branch_ids(reduced.targets))


def _source_line(factory: TestFactory, test: TestCase) -> int:
    """Where the callable a test is for (its last call) is defined: tests follow the unit's
    source order, constructor first; a test of no known callable goes first."""
    calls = [statement for statement in test if statement.kind in CALLS]
    if not calls:
        return 0
    subject = calls[-1]
    if subject.kind == "operator" and subject.name == "__iter__":  # list(chunk(...)): chunk's
        subject = test[subject.receiver]
    signature = factory.signature(subject)
    return signature.line if signature is not None else 0


def closest(archive: Archive[TestCase], target: Target) -> str:
    """The calls of the test that came closest to the target, for "closest: f(x=9)" messages."""
    best = archive.best(target.id)
    if best is None:
        return ""
    source = render_test(best.individual, [], "closest", set()).source
    calls = [line.strip() for line in source.splitlines()[1:]]
    return "; ".join(calls[-2:])


class _Progress:
    """Streams what the search has, throttled: covered targets and the tests that cover them."""

    def __init__(
        self,
        problem: UnitProblem,
        archive: Archive[TestCase],
        unit: str,
        emit: Emit,
        spec: JobSpec,
    ) -> None:
        self.problem, self.archive, self.unit, self.emit = problem, archive, unit, emit
        self.interval = spec.progress_interval
        self.budget = Budget()
        self.next_time = time.monotonic() + self.interval
        self.sent: set[Hashable] = set()
        self.seen = 0  # targets the archive covered at the last flush (mutants included)

    def __call__(self, evaluated: Evaluated[TestCase], improved: bool) -> None:
        # New coverage goes out at once (a worker that dies next keeps it); the rest is throttled.
        if time.monotonic() >= self.next_time or (
            improved and self.archive.covered_count > self.seen
        ):
            self.seen = self.archive.covered_count
            self.flush(self.budget)

    def flush(self, budget: Budget) -> None:
        self.next_time = time.monotonic() + self.interval
        by_id = self.problem.by_id
        solution = {t: e for t, e in self.archive.solution().items() if t in by_id}
        new_tests = []
        for target, evaluated in solution.items():
            if target not in self.sent:
                self.sent.add(target)
                new_tests.append(StreamedTest(branch_ids([target]), to_json(evaluated.individual)))
        elapsed = budget.elapsed
        self.emit(
            Progress(
                unit=self.unit,
                evaluations=budget.evaluations_used,
                elapsed=elapsed,
                fraction=budget.fraction_used(),
                covered=branch_ids(solution),
                total=len(by_id),
                rate=budget.evaluations_used / elapsed if elapsed > 0 else 0.0,
                new_tests=tuple(new_tests),
            )
        )
