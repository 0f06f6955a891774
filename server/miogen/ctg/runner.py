"""One continuous-test-generation run over a project: one named phase per line (``run_ctg``).

discover -> measure before -> allocate -> run jobs (seeded, dependency order) -> verify with
coverage.py (those the project's mypy and ruff refuse left out first: ``run.gate``) -> merge into
the test files -> record the history. Every coverage figure it reports
is coverage.py's measurement of test files (invariant 2), never the search's claim: "before" is
the module's existing test file, "after" adds what coverage.py measures for the tests that were
generated, verified and merged in this run (the union of the two measurements, which is what the
merged file covers as long as tests do not depend on each other).
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from miogen.analysis.model import Unit
from miogen.common.confine import OutsideRoot, inside
from miogen.common.history import (
    DEFAULT_PATH,
    HistoryStore,
    RunRecord,
    RunRow,
    StoredUnit,
    content_hash,
)
from miogen.common.project import project_folder, pytest_warning_filters
from miogen.common.records import (
    JobOutcome,
    JobSpec,
    TestData,
    TestRecord,
    UnitJob,
    UnitOutcome,
    VerifiedTests,
)
from miogen.ctg.allocation import (
    CHANGED_WEIGHT,
    PATIENCE,
    Allocation,
    AllocationConfig,
    Candidate,
    Plan,
    allocate,
    allocate_simple,
)
from miogen.ctg.ci import Changes
from miogen.ctg.discovery import Module, discover, project_root
from miogen.ctg.jobs import Job, Pool, dispatch, local_pool
from miogen.ctg.remote import verification_of
from miogen.ctg.seeding import dependencies, pool_objects, pool_seeds, still_valid_seeds
from miogen.emit.gate import Gated
from miogen.emit.merge import UnmergeableFile
from miogen.host.baseline import project_baseline
from miogen.host.config import DEFAULTS, Options
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.measure import Measurement, measure
from miogen.run.check import VERIFY_RUNS
from miogen.run.gate import project_gate
from miogen.run.job import job_spec
from miogen.run.result import UnitRun, Verification
from miogen.run.shares import private_note, unreached_private
from miogen.run.verify import verify_outcomes
from miogen.run.write import import_problem, write_tests

Log = Callable[[str], None]


@dataclass(frozen=True)
class CtgConfig:
    budget: float  # b: search seconds per core; the run shares k*b among the units
    jobs: int = 1  # k: jobs at once
    strategy: str = "ctg"  # ctg (allocation + history + seeding) | simple (equal split, no history)
    minimum: float = 1.0  # seconds every unit that runs gets at least
    h: float = CHANGED_WEIGHT
    patience: int = PATIENCE
    input_seeding: float = 0.0  # probability of an object-pool input; 0 = off, at most 0.5
    verify_runs: int = VERIFY_RUNS  # pytest runs of the new tests: flaky ones go
    baseline: bool = True  # the project's own suite counts as covered (verify.baseline)
    # The engine's settings (seed, test timeout, algorithm...) and the test files' folder and
    # name; the budget is the allocation's.
    options: Options = DEFAULTS
    interpreter: Interpreter = OWN  # the project's: workers and verification run in it

    @property
    def total(self) -> float:
        return self.budget * self.jobs

    @property
    def seed(self) -> int:
        return self.options.seed

    @property
    def test_timeout(self) -> float:
        return self.options.test_timeout

    @property
    def tests_directory(self) -> str:
        """The test folder, relative to the root ("": ``project.project_tests_folder``)."""
        return self.options.tests_directory

    @property
    def test_file_pattern(self) -> str:
        """The name of a module's generated test file."""
        return self.options.test_file_pattern


@dataclass
class UnitState:
    """Everything the run learns about one unit, phase by phase."""

    module: Module
    unit: Unit
    key: str
    stored: StoredUnit | None = None
    seeds: list[TestData] = field(default_factory=list)  # stored tests that still fit the unit
    seeds_dropped: int = 0
    runs: tuple[RunRecord, ...] = ()  # earlier runs at the current AST hash, oldest first
    before: list[int] = field(default_factory=list)  # covered target ids, coverage.py
    suite: list[int] = field(default_factory=list)  # ... by the project's own tests alone
    allocation: Allocation | None = None
    outcome: UnitOutcome | None = None
    verified: UnitRun | None = None  # the run's verified tests (``run.verify``)
    added: int = 0  # tests merged into the file (not already there)
    remote: VerifiedTests | None = None  # its job's tests, verified where the job ran
    # the project's checkers' gate on its module's tests (``run.gate``): its fixes, at the write
    gated: Gated | None = None

    @property
    def tests(self) -> list[TestRecord]:
        """Generated tests that passed verification."""
        return self.verified.tests if self.verified is not None else []

    @property
    def measured(self) -> list[int]:
        """What coverage.py measured for them."""
        return self.verified.measured if self.verified is not None else []

    @property
    def dropped(self) -> list[str]:
        """Failed, unstable or refused in verification."""
        return self.verified.dropped if self.verified is not None else []

    @property
    def total(self) -> int:
        return len(self.unit.targets)

    @property
    def changed(self) -> bool:
        return self.stored is None or self.stored.ast_hash != self.unit.ast_hash

    @property
    def after(self) -> list[int]:
        return sorted(set(self.before) | set(self.measured))

    @property
    def status(self) -> str:
        if self.outcome is not None:
            return "ran" if self.outcome.status == "ok" else "failed"
        if self.allocation is not None and self.allocation.reason.startswith("waits"):
            return "waits"
        return "skipped"


@dataclass
class CtgReport:
    root: Path
    config: CtgConfig
    units: list[UnitState] = field(default_factory=list)
    module_errors: dict[str, str] = field(default_factory=dict)  # relative path -> message
    warnings: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    failing: dict[str, list[str]] = field(default_factory=dict)  # test file -> tests failing before
    history: Path | None = None
    executor: str = "local"
    wall_seconds: float = 0.0
    generation_seconds: float = 0.0  # the jobs' wall seconds, summed (the paper's time spent)
    changes: Changes | None = None  # --changed-since: only the units these lines touch ran
    unwritten: dict[str, str] = field(default_factory=dict)  # test file -> why not written

    @property
    def nothing_to_do(self) -> bool:
        """--changed-since found no changed unit (and no module that cannot be analysed)."""
        return self.changes is not None and not self.units and not self.module_errors

    @property
    def not_kept(self) -> int:
        """Generated tests verification dropped (failing, unstable, refused by the sandbox, or
        not importable), plus the test files that could not be written."""
        return sum(len(u.dropped) for u in self.units) + len(self.unwritten)

    @property
    def covered(self) -> int:
        return sum(len(u.after) for u in self.units)

    @property
    def branches(self) -> int:
        return sum(u.total for u in self.units)

    @property
    def pooled(self) -> float:
        """The paper's mu(P): covered targets over all targets of the project, in percent."""
        return 100.0 * self.covered / self.branches if self.branches else 100.0

    @property
    def failed(self) -> bool:
        return bool(self.module_errors) or any(u.status == "failed" for u in self.units)


def run_ctg(
    paths: list[str | Path],
    config: CtgConfig,
    root: str | Path | None = None,
    history: str | Path | None = None,
    pool: Pool | None = None,
    log: Log | None = None,
    changes: Changes | None = None,
) -> CtgReport:
    """Discover units, allocate ``config.total`` seconds, run, verify, merge and record.
    ``changes``: only the units they touch (``ctg.ci.changed_since``) take part."""
    started = time.monotonic()
    log = log or (lambda _: None)
    folders = [Path(p) for p in paths] or [Path.cwd()]
    report = CtgReport(project_root(folders, root), config, changes=changes)
    with ExitStack() as stack:
        store = _open_history(report, history) if config.strategy == "ctg" else None
        if store is not None:
            stack.callback(store.close)
        pool = pool or stack.enter_context(local_pool(config.jobs))
        report.executor = pool.name
        threads = stack.enter_context(ThreadPoolExecutor(max(1, config.jobs)))
        modules = _discover(report, folders, config)
        # The suite first: it tells which private units are taken (``Module.private``).
        measured = [m for m in modules if _touched(m, changes)]
        suite = _suite(report, measured) if config.baseline and measured else {}
        states = _load_history(modules, store, changes)
        modules = [m for m in modules if any(s.module is m for s in states)]
        _measure_before(report, modules, states, store, threads, suite)
        plan = _allocate(states, config)
        _run_jobs(report, states, plan, config, pool, log)
        report.warnings += _verify(states, threads, config, report.root)
        _merge(report, modules, states)
        _record(store, modules, states)
        report.units = states
    report.wall_seconds = time.monotonic() - started
    return report


def _open_history(report: CtgReport, history: str | Path | None) -> HistoryStore:
    path = Path(history) if history else report.root / DEFAULT_PATH
    inside(
        report.root, path, "--history" if history else f"the history folder {DEFAULT_PATH.parent}"
    )
    store = HistoryStore.open(path)
    report.history = path
    report.warnings += store.warnings
    return store


def _discover(report: CtgReport, paths: list[Path], config: CtgConfig) -> list[Module]:
    modules = discover(paths, report.root, config.tests_directory, config.test_file_pattern)
    if report.changes is not None:
        modules = [m for m in modules if report.changes.touches_file(m.location.path)]
    for module in modules:
        if module.error:
            report.module_errors[module.relative] = module.error
    return [m for m in modules if m.model is not None]


def _load_history(
    modules: list[Module], store: HistoryStore | None, changes: Changes | None = None
) -> list[UnitState]:
    """Each unit (that ``changes`` touch, if given) with its stored suite, whose tests are
    re-validated against the current code."""
    states = []
    for module in modules:
        for unit in module.units:
            if changes is not None and not changes.touches(module.location.path, unit):
                continue
            state = UnitState(module, unit, module.key(unit))
            if store is not None:
                state.stored = store.unit(state.key)
                state.runs = store.runs(state.key, unit.ast_hash)
            if state.stored is not None:
                state.seeds, state.seeds_dropped = still_valid_seeds(
                    module.analysed, unit, state.stored.seeds
                )
            states.append(state)
    return states


def _touched(module: Module, changes: Changes | None) -> bool:
    """Whether one of the module's units, or of the private units it may take, takes part."""
    units = [*module.units, *module.analysed.unreached_private_units]
    return any(changes is None or changes.touches(module.location.path, u) for u in units)


def _measure_before(
    report: CtgReport,
    modules: list[Module],
    states: list[UnitState],
    store: HistoryStore | None,
    threads: ThreadPoolExecutor,
    suite: dict[str, dict[str, list[int]]],
) -> None:
    """coverage.py on each module's existing test file (reused while neither file changed);
    ``suite``: what the project's suite covers (``_suite``)."""
    coverage, futures = {}, {}
    for module in modules:
        test_hash = content_hash(module.test_path)
        cached = (
            store.module_coverage(module.relative, module.source_hash, test_hash)
            if (store is not None and test_hash)
            else None
        )
        if not test_hash or cached is not None:
            coverage[module.relative] = cached or {}
        else:
            futures[module.relative] = threads.submit(
                _coverage_before, module, report.config.interpreter
            )
    for module in modules:
        if module.relative in futures:
            coverage[module.relative], failures, warning = futures[module.relative].result()
            if failures:
                report.failing[str(module.test_path)] = failures
            if warning:
                report.warnings.append(warning)
    for state in states:
        known = coverage[state.module.relative].get(state.unit.name, [])
        targets = {t.id for t in state.unit.targets}
        state.suite = sorted(set(suite.get(state.module.relative, {}).get(state.unit.name, [])))
        state.before = sorted({t for t in known if t in targets} | set(state.suite))


def _suite(report: CtgReport, modules: list[Module]) -> dict[str, dict[str, list[int]]]:
    """Module -> unit -> the target ids the project's own suite covers (cached by content);
    its failing tests are reported with their errors. The private units no public unit
    reaches whose targets the suite leaves open become units of the module (``Module.private``,
    ``run.shares.unreached_private``), as in ``miogen generate``."""
    found = project_baseline(report.root, report.config.interpreter)
    if found.error:
        report.warnings.append(f"your suite: {found.error}")
    if found.failures:
        report.warnings.append(
            f"your suite: {len(found.failures)} tests fail: " + "; ".join(found.failure_lines()[:5])
        )
    covered = {}
    for m in modules:
        units = m.units
        others = [u for u in m.analysed.unreached_private_units if u not in units]
        covered[m.relative] = found.covered(m.location.path, m.analysed.source, [*units, *others])
        if found.ran and not found.error:
            m.private = unreached_private(others, covered[m.relative])
            if m.private:
                report.warnings.append(f"{m.relative}: {private_note(m.private)}")
    return covered


def _coverage_before(
    module: Module, interpreter: Interpreter = OWN
) -> tuple[dict[str, list[int]], list[str], str]:
    location = module.location
    measurement = measure(
        module.test_path, location.path, module.units, module.analysed.source,
        location.import_root, location.project_root, interpreter=interpreter,
    )  # fmt: skip
    problem = pytest_problem(measurement)
    warning = f"{module.test_path}: {problem}" if problem else ""
    return measurement.covered, measurement.failures, warning


def pytest_problem(measurement: Measurement) -> str:
    """What went wrong in a pytest run, in pytest's own words (the error, not a guess at its
    cause); empty when nothing did. Exit 5 is no test collected: no problem."""
    if measurement.exit_code == -1:
        return "pytest did not finish; its coverage counts as 0"
    if measurement.failures:
        first = measurement.failures[0]
        reason = _first_line(measurement.messages.get(first, "")) or "no message"
        return f"{len(measurement.failures)} tests fail ({first}: {reason})"
    if measurement.exit_code not in (0, 1, 5):
        return f"pytest stopped (exit status {measurement.exit_code}): {_error_line(measurement)}"
    return ""


def _first_line(text: str) -> str:
    """The first non-blank line of a failure's text: the error itself, as pytest reports it."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]


def _error_line(measurement: Measurement) -> str:
    """The last line of pytest's output that names an error (``E   ModuleNotFoundError: ...``)."""
    lines = [line.strip().removeprefix("E").strip() for line in measurement.output.splitlines()]
    named = [line for line in lines if re.search(r"\b\w*(Error|Exception)\b", line)]
    return (named or [line for line in lines if line] or ["no output"])[-1][:300]


def _allocate(states: list[UnitState], config: CtgConfig) -> Plan:
    candidates = [Candidate(s.key, s.total, s.changed, len(s.before), s.runs) for s in states]
    if config.strategy == "simple":
        plan = allocate_simple(candidates, config.total, config.budget)
    else:
        settings = AllocationConfig(
            config.total, config.budget, config.minimum, config.h, config.patience
        )
        plan = allocate(candidates, settings)
    allocations = plan.by_key()
    for state in states:
        state.allocation = allocations[state.key]
    return plan


def _run_jobs(
    report: CtgReport,
    states: list[UnitState],
    plan: Plan,
    config: CtgConfig,
    pool: Pool,
    log: Log,
) -> None:
    """One job per module, its units sharing their allocations; with input seeding, one job per
    unit, in dependency order, so that a unit's job starts from its dependencies' new tests."""
    by_key = {s.key: s for s in states}
    seeding = config.strategy == "ctg" and config.input_seeding > 0
    # A job verifies its tests where it ran when it holds its module's units (without seeding)
    there = pool.verifies and not seeding
    groups: dict[str, list[UnitState]] = {}
    for allocation in plan.running():
        state = by_key[allocation.key]
        groups.setdefault(state.key if seeding else state.module.relative, []).append(state)
    jobs = []
    for key, group in groups.items():
        seconds = sum(_seconds(s) for s in group)
        after = _dependencies(group[0], by_key) if seeding else set()
        jobs.append(Job(key, seconds, _builder(group, by_key, config, there), after))

    def finished(job: Job, outcome: JobOutcome) -> None:
        report.generation_seconds += outcome.wall_seconds
        for state in groups[job.key]:
            state.outcome = outcome.outcome_of(state.unit.name, "no result")
            state.remote = outcome.verified
            result = state.outcome.result
            log(f"{state.key}: {state.outcome.status} in {state.outcome.seconds:.1f} s "
                f"(search claims {len(result.covered) if result else 0}/{state.total})")  # fmt: skip

    dispatch(jobs, pool, finished)


def _seconds(state: UnitState) -> float:
    return state.allocation.seconds if state.allocation is not None else 0.0


def _dependencies(state: UnitState, by_key: dict[str, UnitState]) -> set[str]:
    names = dependencies(state.module.analysed).get(state.unit.name, set())
    return {state.module.key(u) for u in state.module.units if u.name in names} & set(by_key)


def _builder(
    group: list[UnitState], by_key: dict[str, UnitState], config: CtgConfig, there: bool = False
) -> Callable[[dict[str, JobOutcome]], JobSpec]:
    """The JobSpec of a group, made when the job starts (the pool needs its dependencies' tests)."""

    def build(finished: dict[str, JobOutcome]) -> JobSpec:
        units = []
        for state in group:
            seeds = list(state.seeds) if config.strategy == "ctg" else []
            if config.strategy == "ctg" and config.input_seeding > 0:
                seeds += _pool_seeds(state, by_key, finished, config)
            # the search aims at what the project's suite misses
            suite = tuple(state.suite)
            job = UnitJob(state.unit.name, tuple(seeds), share=_seconds(state), suite_covered=suite)
            units.append(job)
        budget = sum(_seconds(s) for s in group)
        location = group[0].module.location
        spec = job_spec(location, units, config.options, budget, config.interpreter)
        if there:  # verified on the worker that ran it (``ctg.remote``)
            spec = dataclasses.replace(spec, verify_runs=config.verify_runs)
        return spec

    return build


def _pool_seeds(
    state: UnitState,
    by_key: dict[str, UnitState],
    finished: dict[str, JobOutcome],
    config: CtgConfig,
) -> list[TestData]:
    model = state.module.analysed
    pool = {}
    for name in dependencies(model).get(state.unit.name, set()):
        other = by_key.get(state.module.key(model.unit(name)))
        if other is None:
            continue
        outcome = finished.get(other.key)
        result = outcome.outcome_of(name, "no result").result if outcome is not None else None
        tests = [t.test for t in result.tests] if result is not None else other.seeds
        objects = pool_objects(model, name, tests)
        if objects:
            pool[name] = objects
    rng = random.Random(f"{config.seed}:{state.key}")
    return pool_seeds(model, state.unit, pool, rng, config.input_seeding)


def _verify(
    states: list[UnitState], threads: ThreadPoolExecutor, config: CtgConfig, root: Path
) -> list[str]:
    """coverage.py runs each module's new tests in a fresh pytest; failing tests are dropped.
    Returns why a module's test file could not be imported (its tests are all dropped), and
    what the project's checkers' gate left out (``run.gate``)."""
    by_module: dict[str, list[UnitState]] = {}
    for state in states:
        if state.outcome is not None and state.outcome.result is not None:
            by_module.setdefault(state.module.relative, []).append(state)
    futures = [threads.submit(_verify_module, g, config, root) for g in by_module.values()]
    return [warning for future in futures for warning in future.result()]


def _verify_module(group: list[UnitState], config: CtgConfig, root: Path) -> list[str]:
    """The module's new tests verified (``run.verify``): kept when they add to what the test
    file and the project's suite cover already, those the project's mypy and ruff refuse in
    its test file left out first (``run.gate``: its file must resolve inside ``root``).
    Returns why its test file could not be imported, and the gate's notes."""
    module = group[0].module
    gate = project_gate(module.test_path, root, module.location.module_name)
    outcomes = [s.outcome or UnitOutcome(s.unit.name, "failed") for s in group]
    there = group[0].remote
    verified_there: Callable[[list[TestRecord]], Verification] | None = None
    if there is not None and all(s.remote is there for s in group):  # one job's, verified
        verified_there = functools.partial(verification_of, there)
    result = verify_outcomes(
        module.location, module.analysed, [s.unit for s in group], outcomes,
        config.test_timeout, config.verify_runs, interpreter=config.interpreter,
        suite={s.unit.name: s.before for s in group}, verified=verified_there,
        folder=project_folder(module.location, module.test_path), again_ahead=False,
        warning_filters=pytest_warning_filters(module.location.project_root), gate=gate,
    )  # fmt: skip
    for state, verified in zip(group, result.units, strict=True):
        state.verified, state.gated = verified, result.gated
    error = result.verification.dropped.unimportable if result.verification else ""
    notes = result.gated.notes() if result.gated is not None else []
    return [f"{module.test_path}: no tests written: {error}"] * bool(error) + [
        f"{module.test_path}: {note}" for note in notes
    ]


def _merge(report: CtgReport, modules: list[Module], states: list[UnitState]) -> None:
    """The safe merge: insert-only, atomic; tests whose body the file already holds are skipped."""
    for module in modules:
        group = [s for s in states if s.module is module and s.tests]
        if not group:
            continue
        tests = [t for s in group for t in worth_adding(s)]
        try:
            path, merged = write_tests(
                module.test_path, tests, module.location.module_name,
                module.analysed.has_module_state, report.root, tests_root=module.tests_root,
                gated=group[0].gated,
            )  # fmt: skip
        except (UnmergeableFile, OSError, OutsideRoot) as error:
            report.warnings.append(f"{module.test_path}: tests not written: {error}")
            report.unwritten[str(module.test_path)] = str(error)
            continue
        report.written.append(path)
        interpreter = report.config.interpreter
        # Verified where it is written, by the project's pytest: it imports the module.
        there = group[0].remote is None and project_folder(module.location, path) is not None
        if not there and (problem := import_problem(module.location, path, interpreter)):
            report.warnings.append(f"{path}: {problem}")
        skipped = set(merged.skipped)
        for state in group:
            state.added = sum(1 for t in worth_adding(state) if t.name not in skipped)
        if path != module.test_path:
            report.warnings.append(f"{module.test_path} could not be merged into; wrote {path}")


def worth_adding(state: UnitState) -> list[TestRecord]:
    """The unit's verified tests that the test file needs.

    For a unit whose code did not change, only the tests that cover a branch the file does not
    cover yet: its other tests are the file's own, replayed from the history and reduced and
    shrunk again (with other criteria's goals, into slightly different shapes), and appending them
    on every run would grow the file with near-copies. A changed unit gets all of them.
    """
    if state.changed:
        return state.tests
    known = set(state.before)
    return [test for test in state.tests if not set(test.targets) <= known]


def _record(store: HistoryStore | None, modules: list[Module], states: list[UnitState]) -> None:
    """One transaction: the runs, the best suites, and the coverage now known per module."""
    if store is None:
        return
    runs, suites = [], {}
    for state in states:
        if state.outcome is None:
            continue
        ok = state.outcome.status == "ok"
        runs.append(
            RunRow(
                state.key, state.unit.ast_hash, _seconds(state),
                state.outcome.seconds, "ok" if ok else "failed", state.total,
                len(state.before), len(state.after), state.added,
            )
        )  # fmt: skip
        if ok and _is_better(state):
            suites[state.key] = (
                state.unit.ast_hash,
                [t.test for t in state.tests],
                len(state.measured),
            )
    coverage = {
        m.relative: (
            m.source_hash,
            content_hash(m.test_path),
            {s.unit.name: s.after for s in states if s.module is m},
        )
        for m in modules
        # A module whose units took part only in part (--changed-since): its coverage is not known
        if sum(1 for s in states if s.module is m) == len(m.units)
    }
    present = {m.key(u) for m in modules for u in m.units}
    analysed = {m.relative for m in modules}
    forget = [
        key for key in store.keys() if key.rpartition("::")[0] in analysed and key not in present
    ]
    store.record(runs, suites, coverage, forget)


def _is_better(state: UnitState) -> bool:
    """A new suite replaces the stored one unless the unit is unchanged and it covers less."""
    return (
        state.stored is None or state.changed or len(state.measured) >= state.stored.seeds_covered
    )
