"""One pipeline for the CLI, continuous generation and the language server.

    job_spec -> run (worker, supervised) -> verify (pytest + coverage.py, shuffled reruns)
             -> keep what passes -> module_text (imports, tests, module-state fixture)
             -> merge and write (or hand the edit to the editor)

``miogen generate`` runs all of it for a module (``generate_module``); ``miogen ctg`` runs the
same steps for many modules with its own budget allocation; the language server runs one unit
per job and inserts the module text through a WorkspaceEdit. Each front end adds only what is
its own (terminal output, the history, the editor's views).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miogen.analysis.model import ModuleModel, Unit
from miogen.analysis.module import analyze_file
from miogen.confine import inside
from miogen.emit import files
from miogen.emit.checks import check_notes
from miogen.emit.formatting import format_tests
from miogen.emit.loading import IMPORTLIB, bind_in_tests, importable
from miogen.emit.merge import GeneratedTest, MergeResult, merge_tests, write_merged
from miogen.emit.parametrize import original_names, parametrize
from miogen.emit.state import FIXTURE_NAME, MODULE_ALIAS, state_fixture
from miogen.emit.style import Style, project_style
from miogen.emit.versions import minimum_python, spelled
from miogen.execution.interpreter import OWN, Interpreter, import_origin
from miogen.execution.spare import SpareSource
from miogen.execution.supervisor import OnEvent, ShouldCancel, run_job
from miogen.project import (
    ModuleLocation,
    locate,
    package_files,
    pytest_sys_path,
    pytest_warning_filters,
    time_freezer,
)
from miogen.records import (
    Event,
    JobOutcome,
    JobSpec,
    Progress,
    TestRecord,
    UnitJob,
    UnitOutcome,
)
from miogen.verify import clock
from miogen.verify.adds import Gain, covers_by_test, keep_what_adds, module_gain
from miogen.verify.baseline import Baseline, project_baseline
from miogen.verify.measure import (
    Ahead,
    Measurement,
    measure,
    run_shuffled,
    start_ahead,
    verification_timeout,
)

HEADER = files.HEADER  # a generated file's first line: miogen writes only files that have it
SANDBOX_REFUSAL = "miogen sandbox: refused"  # in the failure of a test the verification refused
_DEF = re.compile(r"^(\s*(?:async\s+)?def\s+)\w+\b", re.MULTILINE)


# --- the job ---------------------------------------------------------------------------------


def job_spec(
    location: ModuleLocation,
    units: Sequence[str | UnitJob],
    budget_seconds: float,
    **options: Any,
) -> JobSpec:
    """The job for ``units`` of the module at ``location`` (``options``: more JobSpec fields)."""
    jobs = tuple(UnitJob(u) if isinstance(u, str) else u for u in units)
    return JobSpec(
        path=str(location.path),
        module_name=location.module_name,
        import_root=str(location.import_root),
        units=jobs,
        budget_seconds=budget_seconds,
        cwd=str(location.project_root),
        warning_filters=pytest_warning_filters(location.project_root),
        **options,
    )


def run(
    spec: JobSpec,
    on_event: OnEvent | None = None,
    should_cancel: ShouldCancel | None = None,
    spares: SpareSource | None = None,
) -> JobOutcome:
    """Run the job in supervised worker processes (user code never runs in this process);
    ``spares``: workers started ahead (the language server's), used when one fits."""
    return run_job(spec, on_event, should_cancel, spares)


# --- verification ----------------------------------------------------------------------------


@dataclass
class Dropped:
    """Tests the verification dropped, by cause (names)."""

    failing: list[str] = field(default_factory=list)  # failed in every run
    # passed in one order, hash seed or clock only (verify/clock.py: one rerun is years ahead)
    unstable: list[str] = field(default_factory=list)
    sandbox: list[str] = field(default_factory=list)  # did what the sandbox refuses
    # Why the test file could not be imported in the verification: then none is kept.
    unimportable: str = ""
    adds_nothing: list[str] = field(default_factory=list)  # covers only what is covered already

    def counts(self) -> dict[str, int]:
        return {"failing": len(self.failing), "unstable": len(self.unstable),
                "sandbox": len(self.sandbox), "adds_nothing": len(self.adds_nothing)}  # fmt: skip


@dataclass
class Verification:
    """What coverage.py measured on the tests that pass, and what was dropped."""

    tests: list[TestRecord]
    measurement: Measurement | None = None
    dropped: Dropped = field(default_factory=Dropped)
    runs: int = 0  # pytest runs of the final set of tests
    clock_ahead: bool = False  # whether a rerun had the clock years ahead (libfaketime found)
    seconds: float = 0.0
    # The kept tests' own seconds in each shuffled rerun (pytest's, without coverage.py).
    runtimes: list[float] = field(default_factory=list)
    gains: dict[str, Gain] = field(default_factory=dict)  # unit -> what it adds to the suite


# The coverage run in the file's order and a rerun backwards (verify/shuffle.py), with hash
# seeds 1 and 2 (the worker observed with 0): every pair of tests runs in both orders, and a
# value that depends on the hash seed is checked under two others. (A third run, shuffled,
# turns no pair around that these two did not.)
VERIFY_RUNS = 2


class VerificationAhead:
    """The verification's pytest processes, started once the search has reported its first
    progress (so that they slow neither the worker's start nor the first tests it streams):
    they import pytest and coverage.py during the rest of the search.

    Use it as the job's ``on_event`` (it passes events on) and hand ``processes`` to ``verify``.
    """

    def __init__(
        self,
        location: ModuleLocation,
        on_event: OnEvent | None,
        runs: int = VERIFY_RUNS,
        interpreter: Interpreter = OWN,
    ) -> None:
        self.location, self.forward, self.runs = location, on_event, runs
        self.interpreter = interpreter
        self.processes: list[Ahead] = []
        self.lock = threading.Lock()
        self.closed = False

    def __call__(self, event: Event) -> None:
        if self.forward is not None:
            self.forward(event)  # first: the first progress is what a save waits to see
        if isinstance(event, Progress):
            with self.lock:
                if not self.processes and not self.closed:
                    self.processes = start_ahead(
                        self.location.import_root, range(self.runs), self.interpreter
                    )

    def close(self) -> None:
        with self.lock:
            self.closed = True
            for process in self.processes:
                process.close()


def verify(
    location: ModuleLocation,
    model: ModuleModel,
    units: Sequence[Unit],
    tests: Sequence[TestRecord],
    test_timeout: float = 1.0,
    runs: int = VERIFY_RUNS,
    attempts: int = 3,
    ahead: Sequence[Ahead] = (),
    interpreter: Interpreter = OWN,
) -> Verification:
    """Run the tests under pytest + coverage.py, and ``runs - 1`` more times in other orders
    (backwards, then shuffled), each with a hash seed of its own, none the worker's (all at
    once, each in a fresh sandboxed process); drop those that fail in any run and try again
    with the rest, at most ``attempts`` times.

    A later attempt runs the rest once, with coverage.py, in the file's order: they passed in
    every order and hash seed already, with the dropped tests among them; what this run adds
    is that none needed a dropped test before it, and the coverage of what is kept. Its
    process starts as soon as a run of the attempt before reports a failure.

    The measurement kept is coverage.py's on the tests that passed every run (invariant 2).
    ``ahead``: processes started for the first attempt (``start_verification``); closed here.
    ``interpreter``: the project's, where pytest and coverage.py run (``execution.interpreter``).
    """
    started = time.monotonic()
    result = Verification(list(tests))
    scratch = Path(tempfile.mkdtemp(prefix="miogen-emit-"))
    waiting = {process.seed: process for process in ahead}
    retry = RetryAhead(location.import_root, interpreter)
    try:
        for attempt in range(attempts):
            if not result.tests:
                break
            candidate = scratch / f"test_{location.module_name.replace('.', '_')}_miogen.py"
            text = module_text(result.tests, location.module_name, model.has_module_state)
            imports, generated = text
            candidate.write_text(merge_tests(None, imports, generated, HEADER).text, "utf-8")
            timeout = verification_timeout(len(result.tests), test_timeout)
            seeds = range(runs) if attempt == 0 else range(1)
            last = attempt + 1 == attempts
            measurement, shuffled = _run_all(
                candidate, location, model, units, seeds, timeout, waiting,
                (lambda: None) if last else retry.prepare, interpreter,
            )  # fmt: skip
            waiting = retry.take()
            result.measurement = measurement
            broken = next((r.collection_error for r in (measurement, *shuffled)
                           if r.collection_error), "")  # fmt: skip
            if broken:  # no test ran: none is kept, and the run says why
                result.dropped.unimportable = broken
                result.tests = []
                break
            if attempt == 0:
                result.runs, result.runtimes = runs, [rerun.seconds for rerun in shuffled]
                result.clock_ahead = clock.SEED in seeds and clock.libfaketime() is not None
            failing = _classify(result.dropped, measurement, shuffled, generated)
            if not failing and measurement.exit_code != -1:
                break
            result.tests = [t for t in result.tests if t.name not in failing]
        if not result.tests:
            result.measurement = None  # what dropped tests covered is no one's coverage
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        for process in [*ahead, *retry.take().values()]:
            process.close()
    result.seconds = time.monotonic() - started
    return result


class RetryAhead:
    """The process for a next attempt's coverage run, started while the others still run."""

    def __init__(self, import_root: Path, interpreter: Interpreter = OWN) -> None:
        self.import_root, self.interpreter = import_root, interpreter
        self.process: Ahead | None = None
        self.lock = threading.Lock()

    def prepare(self) -> None:
        with self.lock:
            if self.process is None:
                [self.process] = start_ahead(self.import_root, [0], self.interpreter)

    def take(self) -> dict[int, Ahead]:
        with self.lock:
            process, self.process = self.process, None
        return {0: process} if process is not None else {}


def _run_all(
    candidate: Path,
    location: ModuleLocation,
    model: ModuleModel,
    units: Sequence[Unit],
    seeds: Sequence[int],
    timeout: float,
    ahead: dict[int, Ahead],
    on_failure: Callable[[], None] = lambda: None,
    interpreter: Interpreter = OWN,
) -> tuple[Measurement, list[Measurement]]:
    """The coverage run (seed 0) and the reruns (other seeds), in parallel processes (those
    started ahead where there are); ``on_failure`` is called when the first run that fails ends."""
    roots = (location.import_root, location.project_root)
    filters = pytest_warning_filters(location.project_root)

    def covered() -> Measurement:
        found = measure(
            candidate, location.path, list(units), model.source, *roots, timeout=timeout,
            sandbox=True, warning_filters=filters, ahead=ahead.get(0), interpreter=interpreter,
        )  # fmt: skip
        return _noting_failure(found, on_failure)

    def rerun(seed: int) -> Measurement:
        found = run_shuffled(
            candidate, *roots, seed, timeout=timeout, sandbox=True, warning_filters=filters,
            ahead=ahead.get(seed), interpreter=interpreter,
        )  # fmt: skip
        return _noting_failure(found, on_failure)

    with ThreadPoolExecutor(max(1, len(seeds))) as threads:
        measurement = threads.submit(covered)
        reruns = [threads.submit(rerun, seed) for seed in seeds if seed != 0]
        return measurement.result(), [run.result() for run in reruns]


def _noting_failure(run: Measurement, on_failure: Callable[[], None]) -> Measurement:
    if not run.ok:
        on_failure()
    return run


def _classify(
    dropped: Dropped,
    measurement: Measurement,
    shuffled: list[Measurement],
    generated: Sequence[GeneratedTest],
) -> set[str]:
    """Every generated test failing in some run (a failing case of a parametrized test names
    the tests it was made of), each noted once under its cause: unstable when it passed in
    another run (another order or hash seed), failing when it failed in every one."""
    failed = [_failing(run, generated) for run in (measurement, *shuffled)]
    names: set[str] = set().union(*failed)
    for name in sorted(names):
        message = next(found[name] for found in failed if name in found)
        if SANDBOX_REFUSAL in message:
            dropped.sandbox.append(name)
        elif all(name in found for found in failed):
            dropped.failing.append(name)
        else:
            dropped.unstable.append(name)
    return names


def _failing(run: Measurement, generated: Sequence[GeneratedTest]) -> dict[str, str]:
    """The generated tests behind the run's failures, with the failure's text."""
    found: dict[str, str] = {}
    for failure in run.failures:
        for name in original_names([failure], generated):
            found.setdefault(name, run.messages.get(failure, ""))
    return found


def keep_only_what_adds(
    verification: Verification,
    module_name: str,
    model: ModuleModel,
    units: Sequence[Unit],
    suite: dict[str, list[int]],
) -> dict[str, Gain]:
    """Drop the verified tests that add no target to the project's ``suite`` (unit -> covered
    ids) and the tests kept before them, in the file's order; the kept tests' coverage is
    coverage.py's per-test measurement. Returns each unit's gain over the suite.

    Without per-test measurement (no tests, or a run that measured nothing), nothing is dropped.
    """
    measurement = verification.measurement
    if measurement is not None and measurement.per_test and verification.tests:
        generated = module_text(verification.tests, module_name, model.has_module_state)[1]
        covers = covers_by_test(measurement.per_test, generated)
        order = [t.name for t in verification.tests]
        suite_ids = {i for ids in suite.values() for i in ids}
        kept = set(keep_what_adds(order, covers, suite_ids))
        verification.dropped.adds_nothing += [n for n in order if n not in kept]
        if len(kept) < len(order):  # its module figure was of every verified test
            measurement.module_percent = None
        verification.tests = [t for t in verification.tests if t.name in kept]
        reached = {i for name in kept for i in covers.get(name, ())}
        for unit in units:
            ids = {t.id for t in unit.targets}
            measurement.covered[unit.name] = sorted(reached & ids)
    measured = measurement.covered if measurement is not None else {}
    verification.gains = {
        unit.name: Gain(
            unit.name,
            len(unit.targets),
            frozenset(suite.get(unit.name, ())),
            frozenset(suite.get(unit.name, ())) | frozenset(measured.get(unit.name, ())),
        )  # fmt: skip
        for unit in units
    }
    return verification.gains


# --- the test module -------------------------------------------------------------------------


def module_text(
    tests: Sequence[TestRecord], module_name: str, module_state: bool
) -> tuple[list[str], list[GeneratedTest]]:
    """Import lines and test functions for a set of generated tests of one module.

    A module with module-level state gets an autouse fixture that gives each test a fresh state,
    as the worker did while it searched (a test never depends on another test's leftovers).
    Tests that differ only in their literals become one parametrized test.
    """
    names = sorted({name for test in tests for name in test.imports})
    extra = {line for test in tests for line in test.extra_imports}
    functions = parametrize([GeneratedTest(t.name, t.source) for t in tests])
    if any(function.cases for function in functions):
        extra.add("import pytest")
    if module_state and tests:
        fixture_imports, fixture = state_fixture(module_name)
        extra |= set(fixture_imports)
        functions.insert(0, fixture)
    if not importable(module_name):  # my-mod.py: each test binds its names (emit/loading.py)
        extra = {line for line in extra if not line.endswith(f" as {MODULE_ALIAS}")}
        extra.add(IMPORTLIB)
        functions = bind_in_tests(functions, module_name, names, MODULE_ALIAS)
        return sorted(extra), functions
    imports = sorted(extra) + ([f"from {module_name} import {', '.join(names)}"] if names else [])
    return imports, functions


def unique_names(groups: Sequence[Sequence[TestRecord]]) -> list[list[TestRecord]]:
    """Tests of one module from separate jobs, renamed where their names clash.

    One job names its tests apart already; units of a module that ran in separate jobs (CTG's
    input seeding) may both have a ``test_area_returns_2``.
    """
    taken: set[str] = set()
    renamed: list[list[TestRecord]] = []
    for group in groups:
        renamed.append([])
        for test in group:
            name, counter = test.name, 2
            while name in taken:
                name, counter = f"{test.name}_{counter}", counter + 1
            taken.add(name)
            if name != test.name:
                source = _DEF.sub(rf"\g<1>{name}", test.source, count=1)
                test = dataclasses.replace(test, name=name, source=source)
            renamed[-1].append(test)
    return renamed


def merge_into(
    existing: str | None,
    tests: Sequence[TestRecord],
    module_name: str,
    module_state: bool,
    style: Style | None = None,
    path: Path | None = None,
) -> MergeResult:
    """The merge of ``tests`` into a test file's text (the editor's, for the language server),
    formatted in the project's ``style`` as its formatter writes the file at ``path``."""
    text = module_text(tests, module_name, module_state)
    imports, generated = _without_present_fixture(existing, *text)
    if path is not None:
        generated = _versioned(generated, path)
    if style is not None:
        generated = format_tests(generated, style, path, imports)
    return merge_tests(existing, imports, generated, HEADER, style)


def write_tests(
    path: Path,
    tests: Sequence[TestRecord],
    module_name: str,
    module_state: bool,
    root: Path,
    setting: str = "tests-directory in [tool.miogen]",
    own_only: bool = True,
    tests_root: Path | None = None,
) -> tuple[Path, MergeResult]:
    """Merge ``tests`` into the file at ``path`` (insert-only, atomic; a fallback file when it
    cannot be merged into, or is not miogen's while ``own_only``); returns the path written and
    the merge. The file written must resolve inside ``root`` (else OutsideRoot, naming
    ``setting``, and nothing is written). ``tests_root``: the project's test folder; where it is
    a package, the folders made under it get an ``__init__.py`` of miogen's
    (``project.package_files``)."""
    inside(root, Path(path), setting)  # before the file is even read, or a folder made
    path = files.own_path(Path(path)) if own_only else Path(path)
    inside(root, path, setting)  # and the fallback chosen
    for package in package_files(tests_root, path) if tests_root is not None else ():
        package.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError), package.open("x", encoding="utf-8") as init:
            init.write(files.PACKAGE_HEADER)
    existing = path.read_text(errors="replace") if path.exists() else None
    text = module_text(tests, module_name, module_state)
    imports, generated = _without_present_fixture(existing, *text)
    return write_merged(
        path,
        imports,
        _versioned(generated, path),
        header=HEADER,
        root=root,
        setting=setting,
        own_only=own_only,
    )


def _versioned(generated: list[GeneratedTest], path: Path) -> list[GeneratedTest]:
    """The spellings of the project's minimum Python (emit/versions.py)."""
    minimum = minimum_python(path)
    return [dataclasses.replace(t, source=spelled(t.source, minimum)) for t in generated]


def _without_present_fixture(
    existing: str | None, imports: list[str], generated: list[GeneratedTest]
) -> tuple[list[str], list[GeneratedTest]]:
    """A file that has the fixture keeps its own (the merge would add a second, renamed)."""
    if existing and f"def {FIXTURE_NAME}" in existing:
        generated = [t for t in generated if t.name != FIXTURE_NAME]
    return imports, generated


def import_problem(
    location: ModuleLocation, test_file: Path, interpreter: Interpreter = OWN
) -> str:
    """Why the project's plain ``pytest`` (at its root, its configuration, no PYTHONPATH of
    miogen's) would not import the module under test from ``test_file`` as the tests expect,
    and how to fix it; empty when it would."""
    root = location.project_root.resolve()
    if not test_file.resolve().is_relative_to(root):
        return ""  # a file the user put elsewhere: run from where, nobody knows
    top = location.module_name.split(".")[0]
    first = pytest_sys_path(location.project_root, test_file)
    origin = import_origin(interpreter, top, first, location.project_root)
    if origin is not None and Path(origin).resolve().is_relative_to(location.import_root.resolve()):
        return ""
    relative = Path(os.path.relpath(location.import_root, location.project_root)).as_posix()
    fix = (
        f'add pythonpath = ["{relative}"] under [tool.pytest.ini_options] in pyproject.toml, or '
        "install the project into its environment (pip install -e .)"
    )
    if origin is None:
        return f"the project's pytest cannot import {top} from {test_file.name}: {fix}"
    return (
        f"the project's pytest imports {top} from {origin}, not from {location.import_root}: {fix}"
    )


# --- the CLI's run of one module -------------------------------------------------------------


@dataclass
class UnitReport:
    unit: Unit
    outcome: UnitOutcome
    tests: list[TestRecord] = field(default_factory=list)  # kept after verification
    measured: list[int] | None = None  # target ids coverage.py measured on the emitted tests

    @property
    def claimed(self) -> list[int]:
        if self.tests:
            return sorted({t for test in self.tests for t in test.targets})
        return list(self.outcome.result.covered) if self.outcome.result else []


@dataclass
class GenerationReport:
    location: ModuleLocation
    model: ModuleModel
    units: list[UnitReport]
    job: JobOutcome | None = None
    output: Path | None = None
    merge: MergeResult | None = None
    verification: Verification | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per pipeline step
    notes: list[str] = field(default_factory=list)  # what the user should know (import_problem)
    suite: Baseline | None = None  # the project's own tests' coverage (None: not asked)
    gains: dict[str, Gain] = field(default_factory=dict)  # unit -> what the kept tests add

    @property
    def gain(self) -> Gain:
        return module_gain(self.location.module_name, list(self.gains.values()))


def generate_module(
    path: str | Path,
    unit_names: list[str] | None,
    budget: float,
    output: Path | None,
    project_root: str | None = None,
    on_event: OnEvent | None = None,
    raw: bool = False,
    spares: SpareSource | None = None,
    output_setting: str = "tests-directory in [tool.miogen]",
    output_root: Path | None = None,
    own_only: bool = True,
    tests_root: Path | None = None,
    interpreter: Interpreter = OWN,
    baseline: bool = True,
    **options: Any,
) -> GenerationReport:
    """One job for the module's units (sharing ``budget``), verified, merged into ``output``
    (``own_only``: only if it is miogen's file, else a fallback beside it; ``tests_root``: see
    ``write_tests``), the worker and the verification in ``interpreter`` (the project's).

    ``raw``: the search's tests as found (no shrinking, no mutants); ``options``: JobSpec fields.
    The worker starts at once (``spares``: one started earlier still, ``execution.early``); this
    process analyses the module meanwhile (for the units' targets, and to refuse a file that
    does not parse or a unit that does not exist). ``output`` must resolve inside
    ``output_root`` (default: the project root), checked first and again when it is written:
    else OutsideRoot names ``output_setting``.

    ``baseline``: measure the project's own suite meanwhile (``verify.baseline``, cached) and
    keep only the tests that add to it.
    """
    started = time.monotonic()
    location = locate(path, project_root)
    write_root = output_root or location.project_root
    if output is not None:
        inside(write_root, output, output_setting)
    names = unit_names or []
    if (raw or options.get("evaluations")) and not names:
        # Careful units must be named, and an evaluation budget's deadlines and limits count
        # the units from the start: then the analysis comes first.
        names = [u.name for u in analyze_file(location.path, location.module_name).select(None)]
    jobs = [UnitJob(name, careful=raw) for name in names]
    cancel = threading.Event()
    # pytest starts while the search runs
    ahead = VerificationAhead(location, on_event, interpreter=interpreter)
    if not interpreter.own:
        options = {**options, "python": interpreter.executable, "shim": interpreter.shim}
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="miogen-job") as pool:
            spec = job_spec(location, jobs, budget, **options)
            job = pool.submit(run, spec, ahead, cancel.is_set, spares)
            try:
                model = analyze_file(location.path, location.module_name)
                units = model.select(names or None)  # none public: an error naming the rest
                # The project's suite runs meanwhile (once the module is known to be one to test).
                measuring = ThreadPoolExecutor(1, thread_name_prefix="miogen-baseline")
                suite = (
                    measuring.submit(project_baseline, location.project_root, interpreter)
                    if baseline
                    else None
                )
                measuring.shutdown(wait=False)
                report = GenerationReport(location, model, [])
                report.seconds["analyse"] = time.monotonic() - started
                report.job = job.result()
            except BaseException:  # also Ctrl-C while the job runs: its supervisor stops
                cancel.set()  # the worker, and the pool's exit need not wait for the budget
                raise
        report.seconds["job"] = report.job.wall_seconds
        outcomes = {u.unit: u for u in report.job.units}
        failed = UnitOutcome("", "failed", message=report.job.message)
        report.units = [UnitReport(u, outcomes.get(u.name, failed)) for u in units]
        _verify_report(report, options.get("test_timeout", 1.0), ahead.processes, interpreter)
    finally:
        ahead.close()
    if suite is not None:
        _keep_what_adds(report, suite.result())
    tests = [t for r in report.units for t in r.tests]
    if output is not None and tests:
        written = time.monotonic()
        state = model.has_module_state
        report.output, report.merge = write_tests(
            output, tests, location.module_name, state, write_root, output_setting,
            own_only, tests_root,
        )  # fmt: skip
        if problem := import_problem(location, report.output, interpreter):
            report.notes.append(problem)
        report.notes += check_notes(report.output, project_style(report.output))
        if freezer := time_freezer(location.project_root):
            report.notes.append(
                f"the project freezes time with {freezer}: clock-derived values are still "
                "not asserted (the tests do not freeze the clock)"
            )
        report.seconds["write"] = time.monotonic() - written
    report.seconds["total"] = time.monotonic() - started
    return report


def _keep_what_adds(report: GenerationReport, suite: Baseline) -> None:
    """The project's suite as the baseline: only tests that add to it stay (``keep_only_what_adds``)."""
    report.suite = suite
    units = [r.unit for r in report.units]
    covered = suite.covered(report.location.path, report.model.source, units)
    verification = report.verification or Verification([])
    module = report.location.module_name
    report.gains = keep_only_what_adds(verification, module, report.model, units, covered)
    kept = {t.name for t in verification.tests}
    measured = verification.measurement.covered if verification.measurement else {}
    for unit_report in report.units:
        unit_report.tests = [t for t in unit_report.tests if t.name in kept]
        if unit_report.measured is not None:
            unit_report.measured = measured.get(unit_report.unit.name, [])


def _verify_report(
    report: GenerationReport,
    test_timeout: float,
    ahead: Sequence[Ahead] = (),
    interpreter: Interpreter = OWN,
) -> None:
    for unit_report in report.units:
        result = unit_report.outcome.result
        unit_report.tests = list(result.tests) if result else []
    tests = [t for r in report.units for t in r.tests]
    if not tests:
        return
    units = [r.unit for r in report.units]
    verification = verify(
        report.location, report.model, units, tests, test_timeout, ahead=ahead,
        interpreter=interpreter,
    )  # fmt: skip
    report.verification = verification
    report.seconds["verify"] = verification.seconds
    kept = {t.name for t in verification.tests}
    measured = verification.measurement.covered if verification.measurement else {}
    for unit_report in report.units:
        unit_report.tests = [t for t in unit_report.tests if t.name in kept]
        unit_report.measured = measured.get(unit_report.unit.name, [])
