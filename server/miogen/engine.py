"""The generation pipeline for one unit, run inside a worker process: one named phase per line."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from miogen.analysis.model import ModuleModel, Target, Unit
from miogen.analysis.module import analyze_file, parse_module
from miogen.analysis.targets import CodeMap, parse_code
from miogen.assertions.kills import MutantSet, MutantTarget
from miogen.assertions.observe import observe
from miogen.assertions.select import MutationAnalysis
from miogen.criteria import Selection, UnitCriteria, parse_criteria, probe_finder
from miogen.criteria.measurement import measured_copy
from miogen.emit.names import test_name
from miogen.emit.render import render_test
from miogen.execution.executor import Executor
from miogen.execution.problem import UnitProblem
from miogen.execution.tracer import ArcTracer
from miogen.instrument.counting import Counting
from miogen.instrument.loader import load_instrumented
from miogen.instrument.rewrite import probed_lines
from miogen.minimize.reduce import CoverageCache, set_cover, split_independent
from miogen.minimize.shrink import Shrinker
from miogen.search import (
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
from miogen.testcase.model import TestCase, canonical_key, from_json, to_json
from miogen.testcase.sampling import TestFactory

Emit = Callable[[dict], None]


@dataclass
class Phases:
    """Seconds spent per phase, for the summary."""

    seconds: dict[str, float] = field(default_factory=dict)

    def timed(self, name: str, function, *args, **kwargs):
        start = time.monotonic()
        try:
            return function(*args, **kwargs)
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - start


def generate(spec, emit: Emit, heartbeat=None) -> dict:
    """Analyse, instrument, search, reduce, observe and render tests for ``spec.unit``."""
    phases = Phases()
    model = phases.timed("analyse", analyze_file, spec.path, spec.module_name)
    unit = model.unit(spec.unit)
    selection = parse_criteria(spec.criteria)
    counting = _counting(spec, unit, selection)
    module = phases.timed("import", _load, spec, counting)
    problem = phases.timed("prepare", _problem, spec, model, unit, module, heartbeat)
    counters = counting.map if counting is not None else None
    problem.criteria = UnitCriteria(model, unit, selection, counters)
    problem.performance = _performance(spec)
    mutants = phases.timed("mutants", _mutants, spec, model, unit, module, heartbeat)
    archive = phases.timed("seed", _replay_seeds, problem, spec)
    archive = phases.timed("search", _search, problem, archive, spec, emit, mutants)
    # Budget the search left unused (it covered and killed all it could) goes to shrinking.
    unused = (
        0.0 if spec.evaluations else max(0.0, spec.budget_seconds - problem.stats.search_seconds)
    )
    post_deadline = time.monotonic() + spec.post_allowance() + unused
    if _mutation_on(spec, mutants):  # kills weigh in the reduction even if the phase did not run
        problem.mutants = mutants
    suite = phases.timed("reduce", _reduce, problem, archive, post_deadline, spec.careful)
    tests = phases.timed("render", _render, problem, suite, spec, post_deadline, mutants)
    criteria = phases.timed("measure", _criteria_report, problem, tests, spec, model, module)
    return _result(spec, unit, problem, archive, tests, phases, mutants) | {"criteria": criteria}


def _load(spec, counting: Counting | None = None):
    if spec.import_root not in sys.path:
        sys.path.insert(0, spec.import_root)
    transforms = [counting] if counting is not None else []
    return load_instrumented(spec.path, spec.module_name, transforms=transforms)


def _performance(spec) -> bool:
    """Tests carry performance proxies for aDynaMOSA (both variants) and MIO's --performance."""
    return spec.performance or spec.algorithm in ("adynamosa", "adynamosa-nonadaptive")


def _counting(spec, unit: Unit, selection: Selection) -> Counting | None:
    """Statement counters and infection probes, only as far as the search reads them.

    Line and weak-mutation goals need counters, and the performance proxies do; probes go only
    on the mutants the search aims at. Branch-only runs stay as fast as before.
    """
    if not (selection.counts_statements or _performance(spec)):
        return None
    return Counting(probe_finder(unit, selection.probes))


def _problem(spec, model: ModuleModel, unit: Unit, module, heartbeat) -> UnitProblem:
    code: CodeMap = parse_code(model.source)
    probed = probed_lines(parse_module(model.source, spec.path))
    exact = all(t.line in probed for t in unit.targets if t.kind == "branch")
    tracer = None if exact and not spec.trace else ArcTracer(module.__file__)
    executor = Executor(
        module, tracer, timeout=spec.test_timeout, fresh_containers=model.has_module_state
    )
    if heartbeat is not None:
        executor.before_test, executor.after_test = heartbeat.begin, heartbeat.end
        executor.before_statement = heartbeat.statement
    problem = UnitProblem(TestFactory(model, unit), executor, unit, code)
    problem.blocked = {canonical_key(from_json(t)) for t in spec.blocked}
    return problem


def _mutants(spec, model: ModuleModel, unit: Unit, module, heartbeat) -> MutantSet:
    """The unit's mutants, loaded once: targets of the mutation phase, judges of the assertions.

    After a worker crash (careful) there are none: their new inputs could crash it again.
    """
    mutants = MutantSet(
        model.source, spec.path, unit, spec.module_name,
        timeout=min(spec.test_timeout, 0.25), enabled=not spec.careful,
        fresh_containers=model.has_module_state,
        # Modules with module-level state run whole per mutant: no container is shared.
        base=None if model.has_module_state else module,
    )  # fmt: skip
    if heartbeat is not None:
        mutants.hook(heartbeat.begin, heartbeat.statement, heartbeat.end)
    return mutants


def _replay_seeds(problem: UnitProblem, spec) -> Archive:
    """Earlier tests go into the archive first (CTG's previous suite, MIO's counterpart)."""
    archive: Archive = Archive(
        random.Random(spec.seed),
        feedback_directed=spec.algorithm != "mio-nofds",
        performance=_performance(spec),
    )
    for data in spec.seeds:
        try:
            test = from_json(data)
        except (TypeError, ValueError):
            continue
        if still_valid(problem, test):
            archive.offer(problem.evaluate(test))
            problem.stats.replayed += 1
    return archive


def still_valid(problem: UnitProblem, test: TestCase) -> bool:
    """A stored test still applies when every callable and parameter it uses still exists."""
    factory = problem.factory
    for statement in test:
        if statement.kind in ("construct", "call", "method", "property"):
            signature = factory.signature(statement)
            if signature is None and statement.kind == "call" and "." in statement.name:
                cls_name, _, method = statement.name.partition(".")
                cls = factory.model.classes.get(cls_name)
                signature = (
                    next((m for m in cls.methods if m.name == method), None) if cls else None
                )
            if signature is None:
                return False
            names = {p.name for p in signature.params}
            if any(name not in names for name, _ in statement.args):
                return False
            required = {p.name for p in signature.params if not p.has_default}
            if statement.kind != "property" and not required <= {n for n, _ in statement.args}:
                return False
        if statement.kind == "enum":
            cls_name, _, member = statement.name.partition(".")
            cls = factory.model.classes.get(cls_name)
            if cls is None or member not in cls.enum_members:
                return False
    return True


def _search(
    problem: UnitProblem, archive: Archive, spec, emit: Emit, mutants: MutantSet
) -> Archive:
    """Coverage first; then, in the budget left, the mutation phase (mutants as targets).

    The coverage phase ends when every branch target is covered or ``1 - mutation_share`` of
    the budget is spent. The mutation phase continues the same archive with one more target
    per mutant of the unit (covered = killed, EvoSuite's strong mutation), so that the tests a
    user keeps check boundaries and not just paths; it ends with the budget, or when it has
    killed nothing new for as long as it has been running (at least ``MUTATION_PATIENCE``
    evaluations): equivalent mutants can never be killed, and waiting for them wastes the
    user's time. MIO only: the random and whole-suite baselines search for coverage alone.
    """
    budget = Budget(
        seconds=None if spec.evaluations else spec.budget_seconds, evaluations=spec.evaluations
    )
    if spec.replay_only or not problem.by_id:
        return archive
    rng = random.Random(spec.seed)
    progress = _Progress(problem, archive, budget, emit, spec.progress_interval)
    common = dict(archive=archive, on_evaluation=progress)
    stalled = _GoalsStalled(problem, archive, budget)
    if spec.algorithm == "random":
        archive = run_random(problem, budget, rng, should_stop=stalled, **common)
    elif spec.algorithm == "wts":  # the whole-suite GA baseline keeps its own archive
        archive = run_wts(problem, budget, rng, on_evaluation=progress)
        progress.archive = archive
    elif spec.algorithm in GENETIC:
        config = DynaMosaConfig(variant=GENETIC[spec.algorithm])
        archive = run_dynamosa(problem, budget, rng, config, should_stop=stalled, **common)
    else:
        config = MioConfig(
            focus_point=spec.focus_point, feedback_directed=spec.algorithm != "mio-nofds"
        )
        share = spec.mutation_share if _mutation_on(spec, mutants) else 0.0
        coverage_end = 1.0 - share
        archive = run_mio(
            problem, budget, rng, config,
            should_stop=lambda: budget.fraction_used() >= coverage_end or stalled(), **common,
        )  # fmt: skip
        problem.stats.coverage_evaluations = budget.evaluations_used
        if share > 0 and not budget.exhausted():
            problem.mutants = mutants
            # Killed mutants need no more runs; and no evaluation runs mutants past the budget.
            problem.skip = lambda target: archive.is_covered(target) or budget.exhausted()
            problem.whole_kills = True
            kills = [loaded.target for loaded in mutants.loaded]
            stagnation = _Stagnation(archive, budget, of=kills)
            archive = run_mio(problem, budget, rng, config, should_stop=stagnation, **common)
            problem.skip, problem.whole_kills = None, False
    progress.flush()
    problem.stats.search_evaluations = budget.evaluations_used
    problem.stats.search_seconds = budget.elapsed
    # Test executions of the search: the original's and, in the mutation phase, the mutants'.
    problem.stats.search_executions = problem.executor.executions + mutants.executions
    return archive


GENETIC = {variant.value: variant for variant in Variant}  # dynamosa, adynamosa, ...


def _mutation_on(spec, mutants: MutantSet) -> bool:
    return spec.mutation_share > 0 and len(mutants) > 0 and spec.algorithm in ("mio", "mio-nofds")


MUTATION_PATIENCE = 500  # evaluations without a new kill before the mutation phase may stop


class _Stagnation:
    """True once a phase has covered nothing new for as long as it has been running.

    ``of`` restricts "new" to some targets (the mutation phase counts kills only, not the other
    criteria's goals it may cover on the way); they are counted only when the archive changed.
    """

    def __init__(self, archive: Archive, budget: Budget, of: list | None = None) -> None:
        self.archive, self.budget, self.of = archive, budget, of
        self.start = self.last = budget.evaluations_used
        self.seen = archive.covered_count
        self.covered = self._count()

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
        return used - self.last > max(MUTATION_PATIENCE, self.last - self.start)


class _GoalsStalled:
    """True once every branch is covered and the other goals stopped coming, as in ``_Stagnation``.

    The other criteria's goals often include infeasible ones (a ``negative`` output of a
    function that never returns one, exceptions nobody can raise): without this rule every
    unit with criteria would use its whole budget. With every branch target covered, the search
    goes on for the other goals as long as it keeps covering new ones (at least
    ``MUTATION_PATIENCE`` evaluations, and as long again as it has been running since).
    """

    def __init__(self, problem: UnitProblem, archive: Archive, budget: Budget) -> None:
        self.problem, self.archive, self.budget = problem, archive, budget
        self.seen = -1
        self.stagnation: _Stagnation | None = None

    def __call__(self) -> bool:
        if self.problem.criteria is None or not self.problem.criteria.goal_count():
            return False
        if self.stagnation is None:
            if self.archive.covered_count == self.seen:
                return False
            self.seen = self.archive.covered_count
            if not all(self.archive.is_covered(target) for target in self.problem.by_id):
                return False
            self.stagnation = _Stagnation(self.archive, self.budget)
        return self.stagnation()


class _Progress:
    """Streams what the search has, throttled: covered targets and the tests that cover them."""

    def __init__(
        self, problem: UnitProblem, archive: Archive, budget: Budget, emit: Emit, interval: float
    ):
        self.problem, self.archive, self.budget, self.emit = problem, archive, budget, emit
        self.interval = interval
        self.next_time = time.monotonic() + interval
        self.sent: set = set()
        self.seen = 0  # targets the archive covered at the last flush (mutants included)

    def __call__(self, evaluated: Evaluated, improved: bool) -> None:
        # New coverage goes out at once (a worker that dies next keeps it); the rest is throttled.
        if time.monotonic() >= self.next_time or (
            improved and self.archive.covered_count > self.seen
        ):
            self.seen = self.archive.covered_count
            self.flush()

    def flush(self) -> None:
        self.next_time = time.monotonic() + self.interval
        by_id = self.problem.by_id
        solution = {t: e for t, e in self.archive.solution().items() if t in by_id}
        new_tests = []
        for target, evaluated in solution.items():
            if target not in self.sent:
                self.sent.add(target)
                new_tests.append({"targets": [target], "test": to_json(evaluated.individual)})
        elapsed = self.budget.elapsed
        self.emit(
            {
                "event": "progress",
                "evaluations": self.budget.evaluations_used,
                "elapsed": elapsed,
                "fraction": self.budget.fraction_used(),
                "covered": sorted(solution),
                "total": len(self.problem.by_id),
                "rate": self.budget.evaluations_used / elapsed if elapsed > 0 else 0.0,
                "new_tests": new_tests,
            }
        )


MIN_MUTANT_GAIN = 2  # mutants a test must kill, that no other test kills, to be kept for them
MUTANT_TEST_SHARE = 1 / 3  # tests kept for mutants alone, at most, per test kept for coverage


def _reduce(problem: UnitProblem, archive: Archive, deadline: float, careful: bool = False):
    """Set cover over the archive's tests, then each test shrunk (half the post-processing time).

    Killed mutants are targets too, but optional ones: a test kept for mutants alone must kill
    at least ``MIN_MUTANT_GAIN`` that the rest of the suite does not, and such tests add at most
    ``MUTANT_TEST_SHARE`` to the suite (each test costs the user reading and maintenance; one
    more fault found is not always worth it). The set cover weighs
    every kill of every candidate; shrinking a test only checks the mutants it is kept for.
    """

    def run(test: TestCase) -> tuple[TestCase, frozenset]:
        evaluated = problem.evaluate(test)
        return evaluated.individual, frozenset(t for t, h in evaluated.h.items() if h >= 1.0)

    wanted: set = set()
    if problem.mutants is not None:  # kills count as targets, as long as the time allows
        problem.skip = lambda target: target not in wanted or time.monotonic() >= deadline
    cache = CoverageCache(run)
    originals = [e.individual for e in archive.solution().values()]
    if problem.mutants is not None:
        wanted.update(loaded.target for loaded in problem.mutants.loaded)
    optional = dict(
        optional=_is_mutant, min_optional_gain=MIN_MUTANT_GAIN, optional_share=MUTANT_TEST_SHARE
    )
    # Single-purpose pieces first (they read best); whole tests only for what needs them, such as
    # a call that sees what an earlier call left in module-level state.
    suite = set_cover([p for test in originals for p in split_independent(test)], cache, **optional)
    covered = frozenset().union(*(r.targets for r in suite)) if suite else frozenset()
    suite += set_cover(originals, cache, already=covered, **optional)
    now = time.monotonic()
    shrinker = Shrinker(cache, now if careful else now + (deadline - now) / 2)
    shrunk = []
    for reduced in suite:
        wanted.clear()
        wanted.update(reduced.targets)
        shrunk.append(shrinker.shrink(reduced))
    if problem.mutants is not None:
        # Simpler values often kill more (1 sits on more boundaries than 3): cover once more
        # over the shrunk tests, with every kill counted, and drop what became redundant.
        wanted.clear()
        wanted.update(t for r in suite for t in r.targets if isinstance(t, MutantTarget))
        recount = CoverageCache(run)
        shrunk = set_cover([r.test for r in shrunk], recount, **optional)
    problem.stats.shrinking = {
        "cache_hits": cache.hits,
        "executions": cache.misses,
        **vars(shrinker.stats),
    }
    return shrunk


def _is_mutant(target) -> bool:
    return isinstance(target, MutantTarget)


def _render(problem: UnitProblem, suite, spec, deadline: float, mutants: MutantSet) -> list[dict]:
    classes = set(problem.factory.model.classes)
    taken: set[str] = set()
    rendered = []
    analysis = MutationAnalysis(mutants)
    for reduced in suite:
        refused_before = problem.executor.refused_runs
        test, observations = observe(problem.executor, reduced.test, spec.module_name)
        if problem.executor.refused_runs != refused_before:
            continue  # refused or hung when re-run (it varies): never emitted
        observations = analysis.select(test, observations, deadline)
        if not observations:
            problem.stats.without_assertion += 1
            continue  # nothing stable to check: a test without an assertion is not worth keeping
        name = test_name(test, observations, taken)
        output = render_test(test, observations, name, classes)
        rendered.append(
            {
                "name": name,
                "source": output.source,
                "imports": sorted(output.imports),
                "extra_imports": sorted(output.extra_imports),
                "targets": sorted(t for t in reduced.targets if t in problem.by_id),
                "kills": sum(isinstance(t, MutantTarget) for t in reduced.targets),
                "test": to_json(test),
            }
        )
    problem.stats.mutation_report = analysis.report
    return rendered


def _criteria_report(
    problem: UnitProblem, tests: list[dict], spec, model: ModuleModel, module
) -> dict[str, dict[str, int]]:
    """Per criterion, the goals the emitted tests cover out of all of the criterion's goals.

    Measured on the tests as emitted, over every criterion whatever the search aimed at (so
    that runs with different ``--criteria`` compare), by one more run of each in a fully
    counted and probed copy of the unit (criteria/measurement.py).
    """
    if problem.criteria is None or not tests:
        return {}
    base = None if model.has_module_state else module
    copy, counters = measured_copy(
        model.source, module.__file__, problem.unit, spec.module_name, base
    )
    executor = Executor(
        copy, problem.executor.tracer, spec.test_timeout, fresh_containers=model.has_module_state
    )
    runs = []
    for rendered in tests:
        execution = executor.run(from_json(rendered["test"]))
        runs.append((execution, problem.branch_heuristics(execution)))
    report = problem.criteria.report(runs, counters)
    return {c.value: {"covered": v.covered, "total": v.total} for c, v in report.items()}


def _closest(problem: UnitProblem, archive: Archive, target: Target) -> str:
    """The calls of the test that came closest to the target, for "closest: f(x=9)" messages."""
    best = archive.best(target.id)
    if best is None:
        return ""
    source = render_test(best.individual, [], "closest", set()).source
    calls = [line.strip() for line in source.splitlines()[1:]]
    return "; ".join(calls[-2:])


def _result(
    spec,
    unit: Unit,
    problem: UnitProblem,
    archive: Archive,
    tests,
    phases: Phases,
    mutants: MutantSet,
) -> dict:
    covered = sorted(t for t in archive.covered() if t in problem.by_id)
    uncovered = [
        {
            "id": target.id,
            "closest": _closest(problem, archive, target),
            "h": archive.best_h(target.id),
        }
        for target in unit.targets
        if target.id not in archive.covered()
    ]
    killed_in_search = sum(isinstance(t, MutantTarget) for t in archive.covered())
    stats = problem.stats
    evaluations = stats.search_evaluations
    seconds = stats.search_seconds
    return {
        "event": "result",
        "unit": unit.name,
        "total": len(unit.targets),
        "covered": covered,
        "tests": tests,
        "uncovered": uncovered,
        "evaluations": evaluations,
        "executions": problem.executor.executions + mutants.executions,
        "mutant_executions": mutants.executions,
        "search_executions": stats.search_executions,
        "search_seconds": seconds,
        "rate": stats.search_executions / seconds if seconds else 0.0,
        "phases": phases.seconds,
        "replayed": stats.replayed,
        "refusals": problem.refusals,
        "mutation": {
            **_mutation_summary(stats.mutation_report),
            "killed_in_search": killed_in_search,
            "coverage_evaluations": stats.coverage_evaluations or evaluations,
        },
        "shrinking": stats.shrinking,
        "dropped_without_assertion": stats.without_assertion,
    }


def _mutation_summary(report) -> dict:
    if report is None:
        return {}
    return {
        "mutants": report.mutants,
        "killed": len(report.killed),
        "score": round(report.score, 3),
    }
