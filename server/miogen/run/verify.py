"""Verifying a module's tests: pytest + coverage.py in fresh processes, then per unit.

    outcomes (the worker's tests per unit) -> verify (coverage run and reruns in other orders,
    hash seeds and clocks; drop what fails or varies) -> keep only what adds to the suite
    -> each unit's kept tests and coverage.py's measurement of them (``ModuleRun``)

``verify_outcomes`` is the one verification of every front end: ``run.job`` calls it after the
worker for ``miogen generate`` and the language server, ``miogen ctg`` after its jobs (or on the
executor's worker, which has the sources).
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from miogen.analysis.model import ModuleModel, Unit
from miogen.common.project import ModuleLocation, pytest_warning_filters
from miogen.common.records import TestRecord, UnitOutcome
from miogen.emit.files import HEADER
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.module import module_text, unique_names
from miogen.emit.parametrize import original_names
from miogen.host import clock
from miogen.host.adds import Gain, covers_by_test, keep_what_adds
from miogen.host.baseline import Baseline, is_project, project_baseline, refresh_in_background
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.measure import (
    Ahead,
    Measurement,
    measure,
    run_shuffled,
    start_ahead,
    verification_timeout,
)
from miogen.host.suite_kills import MutantId, generated_kills, suite_kills
from miogen.run.result import Dropped, ModuleRun, UnitRun, Verification
from miogen.run.write import import_fix

SANDBOX_REFUSAL = "miogen sandbox: refused"  # in the failure of a test the verification refused
SuiteCovered = Mapping[str, Sequence[int]]  # unit -> target ids the project's tests cover

# The coverage run in the file's order and a rerun backwards (plugins/shuffle.py), with hash
# seeds 1 and 2 (the worker observed with 0): every pair of tests runs in both orders, and a
# value that depends on the hash seed is checked under two others. (A third run, shuffled,
# turns no pair around that these two did not.)
VERIFY_RUNS = 2


def verify_outcomes(
    location: ModuleLocation,
    model: ModuleModel,
    units: Sequence[Unit],
    outcomes: Sequence[UnitOutcome],
    test_timeout: float = 1.0,
    runs: int = VERIFY_RUNS,
    ahead: Sequence[Ahead] = (),
    interpreter: Interpreter = OWN,
    suite: SuiteCovered | SuiteSource | None = None,
    verified: Callable[[list[TestRecord]], Verification] | None = None,
    test_file: Path | None = None,
) -> ModuleRun:
    """The module's run, verified: the tests each unit's outcome holds (``outcomes``, one per
    unit, in order; names made apart across units), verified together (``verify``), then
    split per unit with what coverage.py measured for each.

    ``suite``: what is covered already (unit -> target ids: the module's test file, the
    project's suite; or the project's suite measured meanwhile, ``SuiteSource``): then only
    the tests that add to it are kept (``keep_adds``); None keeps every verified test.
    ``verified``: the verification already done elsewhere (a dask worker verified its job's
    tests, ``ctg.remote``), given the tests as named here; None verifies them here.
    """
    found = [list(o.result.tests) if o.result is not None else [] for o in outcomes]
    result = ModuleRun(location, model, [
        UnitRun(unit, outcome, tests) for unit, outcome, tests
        in zip(units, outcomes, unique_names(found), strict=True)
    ])  # fmt: skip
    tests = result.tests
    if tests:
        result.verification = (
            verified(tests) if verified is not None else verify(
                location, model, units, tests, test_timeout, runs, ahead=ahead,
                interpreter=interpreter, test_file=test_file,
            )
        )  # fmt: skip
        result.seconds["verify"] = result.verification.seconds
        if result.verification.runs > clock.SEED:  # the rerun elsewhere ran: what it kept
            result.notes += clock.elsewhere().notes()
        gone = result.verification.dropped
        for unit in result.units:
            unit.dropped = [
                t.name for t in unit.tests if gone.unimportable or t.name in gone.refused
            ]
        _split(result)
    else:
        for process in ahead:
            process.close()
    covered = _covered(result, suite)
    if covered is not None:
        # The editor's save never waits for the suite's runs against mutants (CachedSuite).
        keep_adds(result, covered, interpreter, mutants=isinstance(suite, MeasuredSuite))
        if verified is None:
            measure_kept(result, test_timeout, interpreter, test_file)
    return result


def measure_kept(
    result: ModuleRun,
    test_timeout: float = 1.0,
    interpreter: Interpreter = OWN,
    test_file: Path | None = None,
) -> None:
    """coverage.py's run of the tests kept, when keeping only what adds left some out: every
    figure shown is coverage.py's on what is written, not a sum of what each test covered
    beside the others (invariant 2). A kept test that needed a left-out one before it fails
    here alone, and is dropped as failing."""
    verification = result.verification
    if verification is None or not verification.dropped.adds_nothing or not verification.tests:
        return
    units = [unit.unit for unit in result.units]
    again = verify(
        result.location, result.model, units, verification.tests, test_timeout, runs=1,
        attempts=2, interpreter=interpreter, test_file=test_file,
    )  # fmt: skip
    verification.tests, verification.measurement = again.tests, again.measurement
    dropped = verification.dropped
    dropped.failing += again.dropped.failing
    dropped.unstable += again.dropped.unstable
    dropped.sandbox += again.dropped.sandbox
    dropped.unimportable = dropped.unimportable or again.dropped.unimportable
    verification.seconds += again.seconds
    result.seconds["verify"] = verification.seconds
    measured = again.measurement.covered if again.measurement is not None else {}
    verification.gains = {
        name: dataclasses.replace(gain, combined=gain.suite | frozenset(measured.get(name, ())))
        for name, gain in verification.gains.items()
    }
    refused = again.dropped.refused
    for unit in result.units:
        unit.dropped += [test.name for test in unit.tests if test.name in refused]
    _split(result)
    for unit in result.units:
        unit.gain = verification.gains.get(unit.name)


def _covered(result: ModuleRun, suite: SuiteCovered | SuiteSource | None) -> SuiteCovered | None:
    """What the suite covers of the run's units; a measured suite is noted in the result."""
    if suite is None or isinstance(suite, Mapping):
        return suite
    baseline = suite.result()
    if baseline is None:
        return None
    result.suite = baseline
    units = [unit.unit for unit in result.units]
    return baseline.covered(result.location.path, result.model.source, units)


class SuiteSource(Protocol):
    """The project's own suite's coverage for a run: started once the module is known to be
    one to test, asked for once its tests are verified; None: keep every verified test."""

    def start(self) -> None: ...

    def result(self) -> Baseline | None: ...


class MeasuredSuite:
    """The CLI's: the project's suite measured (cached by content) while the search runs."""

    def __init__(self, root: Path, interpreter: Interpreter = OWN) -> None:
        self.root, self.interpreter = root, interpreter
        self.future: Future[Baseline] | None = None

    def start(self) -> None:
        measuring = ThreadPoolExecutor(1, thread_name_prefix="miogen-baseline")
        self.future = measuring.submit(project_baseline, self.root, self.interpreter)
        measuring.shutdown(wait=False)

    def result(self) -> Baseline | None:
        return self.future.result() if self.future is not None else None


class CachedSuite:
    """The language server's: a save never waits for the project's whole suite. Its cached
    measurement when current; else one is started in the background for the next job, and
    this one keeps every test."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def start(self) -> None:
        pass

    def result(self) -> Baseline | None:
        suite = project_baseline(self.root, run=False)
        if suite.stale:
            refresh_in_background(self.root)
            return None
        return suite


def keep_adds(
    result: ModuleRun, suite: SuiteCovered, interpreter: Interpreter = OWN, mutants: bool = False
) -> None:
    """Keep only the verified tests that add to ``suite`` (``keep_only_what_adds``), and give
    each unit its gain over it. ``mutants``: a test that kills a mutant the project's measured
    suite (``result.suite``) leaves alive adds too (``host.suite_kills``; with mutation on, the
    worker says which mutants each test kills)."""
    verification = result.verification or Verification([])
    units = [unit.unit for unit in result.units]
    kills = generated_kills((unit.name, unit.tests) for unit in result.units) if mutants else {}
    suite_killed: set[MutantId] = set()
    if kills and result.suite is not None and result.suite.ran:
        location = result.location
        found = suite_kills(
            result.suite, location.path, location.module_name, result.model.source, units,
            {m for killed in kills.values() for m in killed}, interpreter,
        )  # fmt: skip
        suite_killed = found.killed
        result.notes += [f"mutants: {note}" for note in found.notes]
    elif kills:
        kills = {}  # no measured suite to tell what it kills: coverage decides alone
    gains = keep_only_what_adds(
        verification, result.location.module_name, result.model, units, suite, kills,
        suite_killed,
    )  # fmt: skip
    if result.verification is not None:
        _split(result)
    for unit in result.units:
        unit.gain = gains.get(unit.name)


def _split(result: ModuleRun) -> None:
    """Each unit's kept tests and coverage.py's measurement of them."""
    verification = result.verification
    assert verification is not None
    kept = {t.name for t in verification.tests}
    measured = verification.measurement.covered if verification.measurement else {}
    for unit in result.units:
        unit.tests = [t for t in unit.tests if t.name in kept]
        unit.measured = sorted(measured.get(unit.name, []))


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
    test_file: Path | None = None,
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
    ``interpreter``: the project's, where pytest and coverage.py run (``host.interpreter``).
    ``test_file``: where the tests will be written. Inside the project (``project_folder``),
    the runs are the project's plain ``python -m pytest`` at its root (its configuration,
    import mode, conftest files and plugins, no PYTHONPATH of miogen's) on a copy in the folder
    the file will be in (removed after); a file pytest cannot import there keeps no test, and
    says how to fix the project. Elsewhere, in a folder of its own with the import root on
    PYTHONPATH.
    """
    started = time.monotonic()
    result = Verification(list(tests))
    scratch = Path(tempfile.mkdtemp(prefix="miogen-emit-"))
    folder = project_folder(location, test_file)
    result.in_project = folder is not None
    stem = re.sub(r"\W", "_", location.module_name.replace(".", "_"))
    candidate = (
        scratch / f"test_{stem}_miogen.py" if folder is None
        # not a test file's name: no other pytest run in the project collects it meanwhile
        else folder / f"miogen_verifying_{secrets.token_hex(4)}_{stem}.py"
    )  # fmt: skip
    waiting = {process.seed: process for process in ahead}
    retry = RetryAhead(location.import_root, interpreter)
    try:
        for attempt in range(attempts):
            if not result.tests:
                break
            text = module_text(result.tests, location.module_name, model.has_module_state)
            imports, generated = text
            candidate.write_text(merge_tests(None, imports, generated, HEADER).text, "utf-8")
            timeout = verification_timeout(len(result.tests), test_timeout)
            seeds = range(runs) if attempt == 0 else range(1)
            last = attempt + 1 == attempts
            measurement, shuffled = _run_all(
                candidate, location, model, units, seeds, timeout, waiting,
                (lambda: None) if last else retry.prepare, interpreter, result.in_project,
            )  # fmt: skip
            waiting = retry.take()
            result.measurement = measurement
            broken = next((r.collection_error for r in (measurement, *shuffled)
                           if r.collection_error), "")  # fmt: skip
            if result.in_project:
                broken = broken or next(filter(None, map(_not_run, (measurement, *shuffled))), "")
            if broken:  # no test ran: none is kept, and the run says why
                result.dropped.unimportable = (
                    _in_project(broken, location) if result.in_project else broken
                )
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
        candidate.unlink(missing_ok=True)  # in the project: never left behind
        shutil.rmtree(scratch, ignore_errors=True)
        for process in [*ahead, *retry.take().values()]:
            process.close()
    result.seconds = time.monotonic() - started
    return result


def project_folder(location: ModuleLocation, test_file: Path | None) -> Path | None:
    """The folder of the project where the verification's copy of ``test_file`` goes: the
    file's own, else the nearest existing one above it (no folder is made; pytest imports a
    file there as it will the one written: no conftest.py or ``__init__.py`` lies in folders
    not made yet, and those miogen makes are ``package_files``, as the folder above). None:
    no project (no pyproject.toml, setup.cfg, setup.py or .git), or a file outside it."""
    if test_file is None:
        return None
    root = location.project_root.resolve()
    target = Path(test_file).resolve()
    if not target.is_relative_to(root) or not is_project(root):
        return None
    folder = target.parent
    while not folder.is_dir():
        folder = folder.parent
    return folder


def _not_run(run: Measurement) -> str:
    """Why the project's pytest ran none of the tests (its configuration, a conftest.py that
    fails, no test collected), from its exit status; "" when it ran them."""
    if run.exit_code in (0, 1, -1) or run.passed or run.failed:
        return ""
    lines = [line.strip() for line in run.output.splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line or line.startswith("E ")]
    said = (errors or lines or ["no output"])[-1]
    internal = [  # pytest's own failure (a plugin's warning made an error, a broken hook)
        line.removeprefix("INTERNALERROR>").strip()
        for line in lines
        if line.startswith("INTERNALERROR>")
    ]
    raised = [line for line in internal if re.match(r"[\w.]+(Error|Warning|Exception):", line)]
    if raised:
        said = raised[-1]
    if run.exit_code == 5:
        said = "it collected none of the tests (its python_functions or python_files?)"
    return f"pytest exited with {run.exit_code}: {said}"


def _in_project(error: str, location: ModuleLocation) -> str:
    """A collection error of the project's pytest, with the fix where it is an import's."""
    top = location.module_name.split(".")[0]
    if re.search(rf"\b(ModuleNotFoundError|ImportError)\b.*\b{re.escape(top)}\b", error):
        return (
            f"the project's pytest (python -m pytest at {location.project_root}) cannot import "
            f"{location.module_name}: {error}; {import_fix(location)}"
        )
    return f"the project's pytest could not run the tests: {error}"


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
    in_project: bool = False,
) -> tuple[Measurement, list[Measurement]]:
    """The coverage run (seed 0) and the reruns (other seeds), in parallel processes (those
    started ahead where there are); ``on_failure`` is called when the first run that fails ends;
    ``in_project``: ``candidate`` lies in the project, run as its pytest runs it."""
    roots = (location.import_root, location.project_root)
    filters = pytest_warning_filters(location.project_root)

    def covered() -> Measurement:
        found = measure(
            candidate, location.path, list(units), model.source, *roots, timeout=timeout,
            sandbox=True, warning_filters=filters, ahead=ahead.get(0), interpreter=interpreter,
            in_project=in_project,
        )  # fmt: skip
        return _noting_failure(found, on_failure)

    def rerun(seed: int) -> Measurement:
        found = run_shuffled(
            candidate, *roots, seed, timeout=timeout, sandbox=True, warning_filters=filters,
            ahead=ahead.get(seed), interpreter=interpreter, in_project=in_project,
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
    suite: SuiteCovered,
    kills: Mapping[str, set[MutantId]] | None = None,
    suite_killed: set[MutantId] | None = None,
) -> dict[str, Gain]:
    """Drop the verified tests that add no target to the project's ``suite`` (unit -> covered
    ids) and the tests kept before them, in the file's order; the kept tests' coverage is
    coverage.py's per-test measurement. Returns each unit's gain over the suite.
    ``kills`` (test name -> the mutants it kills, with mutation on): a test that kills one that
    neither ``suite_killed`` nor a test kept before it kills adds too.

    Without per-test measurement (no tests, or a run that measured nothing), nothing is dropped.
    """
    measurement = verification.measurement
    if measurement is not None and measurement.per_test and verification.tests:
        generated = module_text(verification.tests, module_name, model.has_module_state)[1]
        covers = covers_by_test(measurement.per_test, generated)
        order = [t.name for t in verification.tests]
        suite_ids = {i for ids in suite.values() for i in ids}
        kept = set(keep_what_adds(order, covers, suite_ids, kills, suite_killed or ()))
        verification.dropped.adds_nothing += [n for n in order if n not in kept]
        if len(kept) < len(order):  # its module figure was of every verified test
            measurement.module_percent = None
        verification.tests = [t for t in verification.tests if t.name in kept]
        reached = {i for name in kept for i in covers.get(name, ())}
        for unit in units:
            ids = {t.id for t in unit.targets}
            measurement.covered[unit.name] = sorted(reached & ids)
    measured = measurement.covered if measurement is not None else {}
    added = {m for t in verification.tests for m in (kills or {}).get(t.name, ())}
    added -= suite_killed or set()
    verification.gains = {
        unit.name: Gain(
            unit.name,
            len(unit.targets),
            frozenset(suite.get(unit.name, ())),
            frozenset(suite.get(unit.name, ())) | frozenset(measured.get(unit.name, ())),
            sum(1 for u, _ in added if u == unit.name),
        )  # fmt: skip
        for unit in units
    }
    return verification.gains
