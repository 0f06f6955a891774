"""The verification's pytest runs: every order and hash seed, dropping what fails or varies.

    tests -> one scratch file (``emit.module``) -> pytest + coverage.py in the file's order and
    reruns in other orders, hash seeds and clocks, each in a fresh sandboxed process
    -> drop what failed and run the rest again
    -> ``Verification`` (``Verifier.first``)
    ... the caller keeps what adds to the project's suite (``run.keep``) ...
    -> when that left some out, what is kept run again, alone (``Verifier.again``)

Steps of ``run.verify.verify_outcomes``, which calls them in order; it imports no other step,
and calls none back.
"""

from __future__ import annotations

import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from miogen.analysis.model import ModuleModel, Unit
from miogen.common.project import ModuleLocation
from miogen.common.records import TestRecord
from miogen.emit.files import HEADER
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.module import module_text
from miogen.emit.parametrize import original_names
from miogen.host import clock
from miogen.host.adds import covers_by_test
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.measure import (
    Ahead,
    Measurement,
    measure,
    run_shuffled,
    start_ahead,
    verification_timeout,
)
from miogen.run.result import Dropped, Verification
from miogen.run.write import import_fix

SANDBOX_REFUSAL = "miogen sandbox: refused"  # in the failure of a test the verification refused

# The coverage run in the file's order and a rerun backwards (plugins/shuffle.py), with hash
# seeds 1 and 2 (the worker observed with 0): every pair of tests runs in both orders, and a
# value that depends on the hash seed is checked under two others. (A third run, shuffled,
# turns no pair around that these two did not.)
VERIFY_RUNS = 2
AGAIN_ATTEMPTS = 2  # the kept tests' verification, when keeping left some out: a run, a rerun


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
    folder: Path | None = None,
    warning_filters: Sequence[str] = (),
) -> Verification:
    """The tests verified once (``Verifier.first``), for a caller that keeps every test that
    passes (a dask worker's verification, ``ctg.remote``)."""
    verifier = Verifier(location, model, units, test_timeout, interpreter, folder, warning_filters)
    try:
        return verifier.first(tests, runs, attempts, ahead)
    finally:
        verifier.close()


class Verifier:
    """The verification's pytest runs of one module's tests: ``first`` runs them in every order
    and hash seed; after the caller kept what adds to the project's suite (``run.keep``),
    ``again`` runs what is kept once more, alone, when that left some out. ``close`` when done.

    Its first runs: pytest + coverage.py in the file's order, and ``runs - 1`` more times in
    other orders (backwards, then shuffled), each with a hash seed of its own, none the
    worker's (all at once, each in a fresh sandboxed process); those that fail in any run are
    dropped and the rest tried again, at most ``attempts`` times. A later attempt runs the rest
    once, with coverage.py, in the file's order: they passed in every order and hash seed
    already, with the dropped tests among them; what this run adds is that none needed a
    dropped test before it, and the coverage of what is kept. Its process starts as soon as a
    run of the attempt before reports a failure.

    The measurement kept is coverage.py's on the tests that passed every run (invariant 2).
    ``interpreter``: the project's, where pytest and coverage.py run (``host.interpreter``).
    ``folder``: the project's folder the tests will be written in (``common.project.
    project_folder``, found once per job by the caller). There, the runs are the project's
    plain ``python -m pytest`` at its root (its configuration, import mode, conftest files and
    plugins, no PYTHONPATH of miogen's) on a copy in that folder (removed after); a file
    pytest cannot import there keeps no test, and says how to fix the project. None: in a
    folder of its own with the import root on PYTHONPATH, with the project's
    ``warning_filters`` (its pytest ``filterwarnings``, read once per job by the caller:
    ``JobSpec.warning_filters``) applied as its pytest would.

    ``again_ahead``: the process of ``again``'s run starts now (a save or ``miogen generate``
    waits for it, when keeping leaves some out); False: only once it is asked for (``miogen
    ctg`` verifies many modules at once, most of which leave nothing out).
    """

    def __init__(
        self,
        location: ModuleLocation,
        model: ModuleModel,
        units: Sequence[Unit],
        test_timeout: float = 1.0,
        interpreter: Interpreter = OWN,
        folder: Path | None = None,
        warning_filters: Sequence[str] = (),
        again_ahead: bool = False,
    ) -> None:
        self.location, self.model, self.units = location, model, units
        self.test_timeout, self.interpreter = test_timeout, interpreter
        self.in_project, self.warning_filters = folder is not None, warning_filters
        self.scratch = Path(tempfile.mkdtemp(prefix="miogen-emit-"))
        stem = re.sub(r"\W", "_", location.module_name.replace(".", "_"))
        self.candidate = (
            self.scratch / f"test_{stem}_miogen.py" if folder is None
            # not a test file's name: no other pytest run in the project collects it meanwhile
            else folder / f"miogen_verifying_{secrets.token_hex(4)}_{stem}.py"
        )  # fmt: skip
        project = location.project_root if folder else None
        self.retry = RetryAhead(location.import_root, interpreter, project)
        # The run of the tests kept, started now when keeping may leave some out.
        self.kept_run = RetryAhead(location.import_root, interpreter, project)
        if again_ahead:
            self.kept_run.prepare()

    def first(
        self,
        tests: Sequence[TestRecord],
        runs: int = VERIFY_RUNS,
        attempts: int = 3,
        ahead: Sequence[Ahead] = (),
    ) -> Verification:
        """The tests verified: run in every order and hash seed, what fails or varies dropped.
        ``ahead``: processes started for the first attempt (``start_ahead``); closed here."""
        started = time.monotonic()
        result = Verification(list(tests))
        result.in_project = self.in_project
        try:
            self._attempts(result, range(runs), attempts, {p.seed: p for p in ahead}, first=True)
        finally:
            self.candidate.unlink(missing_ok=True)  # in the project: never left behind
            for process in [*ahead, *self.retry.take().values()]:
                process.close()
        result.seconds = time.monotonic() - started
        return result

    def again(self, result: Verification) -> None:
        """What keeping kept (``result.tests``), verified once more, alone, in the file's
        order, with coverage.py (``AGAIN_ATTEMPTS`` attempts, as ``first``'s later ones) when
        keeping or the project's checkers left some out (``result.dropped.adds_nothing``,
        ``checkers``): every figure is coverage.py's on what is written, not of the tests
        beside those left out, and a kept test that needed a left-out one before it fails
        there and is dropped. ``result`` is updated."""
        if not ((result.dropped.adds_nothing or result.dropped.checkers) and result.tests):
            return
        started = time.monotonic()
        try:
            self._attempts(result, range(1), AGAIN_ATTEMPTS, self.kept_run.take(), first=False)
        finally:
            self.candidate.unlink(missing_ok=True)
            for process in self.retry.take().values():
                process.close()
        result.gains = result.measured_gains()
        result.seconds += time.monotonic() - started

    def close(self) -> None:
        """The scratch folder removed, the processes started ahead and not used closed."""
        self.candidate.unlink(missing_ok=True)
        shutil.rmtree(self.scratch, ignore_errors=True)
        for process in [*self.retry.take().values(), *self.kept_run.take().values()]:
            process.close()

    def _attempts(
        self,
        result: Verification,
        seeds: range,
        count: int,
        waiting: dict[int, Ahead],
        first: bool,
    ) -> None:
        """Run the tests (the first attempt with ``seeds``, the later ones once) and drop
        those that fail or vary, at most ``count`` times; ``first``: the verification's first
        runs, whose figures (runs, runtimes, clock) are the ones reported."""
        location, model, candidate = self.location, self.model, self.candidate
        rendered: tuple[list[str], Sequence[GeneratedTest]] = ([], [])
        for attempt in range(count):
            if not result.tests:
                break
            text = module_text(result.tests, location.module_name, model.has_module_state)
            imports, generated = text
            rendered = ([t.name for t in result.tests], generated)
            candidate.write_text(merge_tests(None, imports, generated, HEADER).text, "utf-8")
            ran = seeds if attempt == 0 else range(1)
            last = attempt + 1 == count
            measurement, shuffled = _run_all(
                candidate, location, model, self.units, ran,
                (len(result.tests), self.test_timeout), waiting,
                (lambda: None) if last else self.retry.prepare, self.interpreter,
                result.in_project, self.warning_filters,
            )  # fmt: skip
            waiting = self.retry.take()
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
            if attempt == 0 and first:
                result.runs, result.runtimes = len(seeds), [rerun.seconds for rerun in shuffled]
                result.clock_ahead = clock.SEED in ran and clock.libfaketime() is not None
            failing = _classify(result.dropped, measurement, shuffled, generated)
            if not failing and measurement.exit_code != -1:
                break
            result.tests = [t for t in result.tests if t.name not in failing]
        for process in waiting.values():
            process.close()
        if not result.tests:
            result.measurement = None  # what dropped tests covered is no one's coverage
        if first:
            result.covers = _covers(result, rendered, location.module_name, model.has_module_state)


def _covers(
    result: Verification,
    rendered: tuple[list[str], Sequence[GeneratedTest]],
    module_name: str,
    module_state: bool,
) -> dict[str, set[int]] | None:
    """The targets each kept test covers, from the measurement's per-test contexts read through
    the file the kept tests make (``rendered``: the last run's, when it ran just these; else
    rendered again: its last attempt dropped some); None without a per-test measurement."""
    measurement = result.measurement
    if measurement is None or not measurement.per_test or not result.tests:
        return None
    names, generated = rendered
    if names != [t.name for t in result.tests]:
        generated = module_text(result.tests, module_name, module_state)[1]
    return covers_by_test(measurement.per_test, generated)


def _not_run(run: Measurement) -> str:
    """Why the project's pytest ran none of the tests (its configuration, a conftest.py that
    fails, no test collected), from its exit status; "" when it ran them. Exit status 1 (tests
    failed) without a report is pytest stopping before its tests, on the exception it names (a
    warning its ``filterwarnings`` made an error, at start-up)."""
    if run.exit_code in (0, -1) or run.passed or run.failed or run.errors:
        return ""
    if run.exit_code == 1 and run.reported:
        return ""
    lines = [line.strip() for line in run.output.splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line or line.startswith("E ")]
    said = (errors or lines or ["no output"])[-1]
    if run.exit_code == 1:  # a traceback's last line: the exception that stopped it
        raised_last = [
            line for line in lines if re.match(r"[\w.]+(Error|Warning|Exception)\b", line)
        ]
        said = (raised_last or [said])[-1]
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

    def __init__(
        self, import_root: Path, interpreter: Interpreter = OWN, project: Path | None = None
    ) -> None:
        self.import_root, self.interpreter, self.project = import_root, interpreter, project
        self.process: Ahead | None = None
        self.lock = threading.Lock()

    def prepare(self) -> None:
        with self.lock:
            if self.process is None:
                [self.process] = start_ahead(self.import_root, [0], self.interpreter, self.project)

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
    tests: tuple[int, float],
    ahead: dict[int, Ahead],
    on_failure: Callable[[], None] = lambda: None,
    interpreter: Interpreter = OWN,
    in_project: bool = False,
    filters: Sequence[str] = (),
) -> tuple[Measurement, list[Measurement]]:
    """The coverage run (seed 0) and the reruns (other seeds), in parallel processes (those
    started ahead where there are); ``tests``: how many, and the seconds one may take
    (``verification_timeout``); ``on_failure`` is called when the first run that fails ends;
    ``in_project``: ``candidate`` lies in the project, run as its pytest runs it; ``filters``:
    the project's warning filters."""
    roots = (location.import_root, location.project_root)
    timeout = verification_timeout(*tests)

    def rerun(seed: int) -> Measurement:
        found = run_shuffled(
            candidate, *roots, seed, timeout=timeout, sandbox=True, warning_filters=filters,
            ahead=ahead.get(seed), interpreter=interpreter, in_project=in_project,
        )  # fmt: skip
        return _noting_failure(found, on_failure)

    def covered() -> Measurement:
        found = measure(
            candidate, location.path, list(units), model.source, *roots, timeout=timeout,
            sandbox=True, warning_filters=filters, ahead=ahead.get(0), interpreter=interpreter,
            in_project=in_project,
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
