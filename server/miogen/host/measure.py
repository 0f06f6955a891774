"""Runs an emitted test file under pytest + coverage.py (branch=True) in a fresh process.

The verdict about coverage comes from here, not from the search: what the editor is told is what
coverage.py measures (invariant 2).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import threading
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from coverage import Coverage
from coverage.exceptions import CoverageException
from coverage.python import PythonFileReporter
from coverage.results import analysis_from_file_reporter

from miogen.analysis.model import Unit
from miogen.analysis.targets import CodeMap, parse_code
from miogen.common.platform_support import kill_process_group
from miogen.host import clock
from miogen.host.arcs import module_coverage
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.runs import ended, started
from miogen.plugins.guard import FREE


@dataclass
class Measurement:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    exit_code: int = 0
    covered: dict[str, list[int]] = field(default_factory=dict)  # unit -> covered target ids
    executed_lines: list[int] = field(default_factory=list)
    arcs: list[tuple[int, int]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # names of failing tests
    messages: dict[str, str] = field(default_factory=dict)  # failing test -> its failure text
    output: str = ""
    seconds: float = 0.0  # the tests' own run time, as pytest reports it (set-up included)
    # Why pytest could not collect (import) the test file: then no test of it ran ("": it did).
    collection_error: str = ""
    # coverage.py's own total for the module file (statements and branches, as `coverage
    # report --branch` prints it); None: not measured.
    module_percent: float | None = None
    # pytest node id -> the target ids (of all units) that test covers; generated tests only
    per_test: dict[str, list[int]] = field(default_factory=dict)
    # pytest wrote its JUnit report: it got as far as running (or collecting) the tests
    reported: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.failed and not self.errors


def measure(
    test_file: Path,
    module_path: Path,
    units: list[Unit],
    source: str,
    import_root: Path,
    cwd: Path,
    timeout: float = 120.0,
    extra_args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    sandbox: bool = False,
    warning_filters: Sequence[str] = (),
    ahead: Ahead | None = None,
    interpreter: Interpreter = OWN,
    in_project: bool = False,
) -> Measurement:
    """Run ``test_file`` with coverage measuring ``module_path``; map the arcs to unit targets.

    ``sandbox``: generated tests run in the worker's world: its audit hook
    (``miogen.plugins.guard``), a hash seed (COVERAGE_HASH_SEED: not the worker's, so that a
    test that depends on it fails here), and the project's ``warning_filters`` (the
    file lives outside the project, where pytest would not read its configuration); a
    project's own tests run as its developers run them. ``ahead``: a process started for this
    run (``start_ahead``, run 0), used instead of a new one when it is still waiting.
    ``interpreter``: the project's (``host.interpreter``), where pytest and coverage.py run.
    ``in_project``: ``test_file`` lies in the project at ``cwd`` (its root), and runs as the
    project's plain ``python -m pytest`` runs it there (``_placed``).
    """
    with tempfile.TemporaryDirectory(prefix="miogen-verify-") as own:
        scratch = ahead.scratch if ahead is not None else own
        data_file = os.path.join(scratch, "coverage.dat")
        junit = os.path.join(scratch, "junit.xml")
        args = [
            "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            *_guarded(sandbox, scratch, () if in_project else warning_filters),
            *_placed(test_file, cwd, in_project), f"--junit-xml={junit}", str(test_file),
            *extra_args,
        ]  # fmt: skip
        order = _project_order(in_project, import_root)
        result = _run_ahead(ahead, args, cwd, timeout, junit, (data_file, module_path), order)
        if result is None:
            command = interpreter.command(
                "coverage", "run", "--branch", f"--data-file={data_file}",
                f"--include={module_path}", "-m", "pytest", *args,
            )  # fmt: skip
            base = dict(env or os.environ, PYTHONHASHSEED=COVERAGE_HASH_SEED) if sandbox else env
            environment = _environment(
                base, None if in_project else import_root, scratch if sandbox else None
            )
            environment = interpreter.environment(environment)
            result = _run_and_read(command, cwd, environment, timeout, junit, in_project)
        if result.exit_code != -1:
            read_coverage(result, data_file, module_path, units, source)
        return result


def run_shuffled(
    test_file: Path,
    import_root: Path,
    cwd: Path,
    seed: int,
    timeout: float = 120.0,
    sandbox: bool = False,
    warning_filters: Sequence[str] = (),
    ahead: Ahead | None = None,
    interpreter: Interpreter = OWN,
    in_project: bool = False,
) -> Measurement:
    """One more run without coverage: another order (plugins/shuffle.py: run 1 backwards, later
    ones shuffled), another PYTHONHASHSEED, a fresh process (``ahead``: one started for it,
    with this ``seed``); ``in_project`` as for ``measure``."""
    with tempfile.TemporaryDirectory(prefix="miogen-stability-") as own:
        scratch = ahead.scratch if ahead is not None else own
        junit = os.path.join(scratch, "junit.xml")
        args = [
            "-q", "-p", "no:cacheprovider", "-p", "miogen.plugins.shuffle",
            *_guarded(sandbox, scratch, () if in_project else warning_filters),
            *_placed(test_file, cwd, in_project), f"--junit-xml={junit}", str(test_file),
        ]  # fmt: skip
        order = _project_order(in_project, import_root)
        result = _run_ahead(ahead, args, cwd, timeout, junit, None, order)
        if result is not None:
            return result
        environment = _environment(
            dict(os.environ, **_shuffle(seed)), None if in_project else import_root,
            scratch if sandbox else None,
        )  # fmt: skip
        return _run_and_read(
            interpreter.command("pytest", *args), cwd, interpreter.environment(environment),
            timeout, junit, in_project,
        )  # fmt: skip


# Run k of a verification has hash seed k + 1: none has the worker's (0), under which the
# observed values were taken, and no two runs share one.
COVERAGE_HASH_SEED = "1"


def _shuffle(seed: int) -> dict[str, str]:
    """The rerun's order and hash seed; rerun ``clock.SEED`` also runs elsewhere (clock.py)."""
    environment = {"MIOGEN_SHUFFLE_SEED": str(seed), "PYTHONHASHSEED": str(seed + 1)}
    return clock.elsewhere_environment(environment) if seed == clock.SEED else environment


# --- runs started ahead ------------------------------------------------------------------------

AHEAD_CPU_SECONDS = 600.0  # a waiting process uses none; the run's own timeout bounds the wall
NOT_RUN = 70  # miogen.plugins.ahead's exit status when it got no order


@dataclass
class Ahead:
    """A pytest process started before its tests exist (``python -m miogen.plugins.ahead``)."""

    process: subprocess.Popen[str]
    folder: tempfile.TemporaryDirectory[str]
    seed: int  # 0: the coverage run (file order); others: reruns in other orders
    _closing: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _closed: bool = field(default=False, repr=False, compare=False)

    @property
    def scratch(self) -> str:
        return self.folder.name

    def close(self) -> None:
        """Stop it if it still waits (or runs), and remove its folder; idempotent, and safe
        from any thread: a cancel may close it while the verification's thread closes it too,
        or still reads its output (``_run_ahead``). So it never reads the pipes itself (two
        readers of one pipe race, and a pipe closed under a reader fails with EBADF): the group
        is killed and waited for, and the pipes closed, whatever another thread did to them."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
            if self.process.poll() is None:
                kill_process_group(self.process.pid)
            self.process.wait()
            ended(self.process)
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError, ValueError):
                        stream.close()
            self.folder.cleanup()


def start_ahead(
    import_root: Path,
    seeds: Sequence[int],
    interpreter: Interpreter = OWN,
    project: Path | None = None,
) -> list[Ahead]:
    """One process per run, each with its hash seed (and order, but for run 0), sandboxed.

    They import pytest and coverage.py now and wait; ``measure`` and ``run_shuffled`` hand them
    their run. Close them (``Ahead.close``) when they are not used. ``project``: the root of
    the project whose run (``in_project``) they will do: they import its installed pytest
    plugins now too, which its run loads.
    """
    made = []
    for seed in seeds:
        folder = tempfile.TemporaryDirectory(prefix="miogen-ahead-")
        base = dict(
            os.environ, **(_shuffle(seed) if seed else {"PYTHONHASHSEED": COVERAGE_HASH_SEED})
        )
        environment = interpreter.environment(_environment(base, import_root, folder.name))
        environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        roots = [str(project), str(import_root)] if project is not None else []
        command = interpreter.command(
            "miogen.plugins.ahead", str(VERIFY_MEMORY_MB), str(AHEAD_CPU_SECONDS), *roots
        )
        process = subprocess.Popen(
            command, cwd=folder.name, env=environment, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        started(process)
        made.append(Ahead(process, folder, seed))
    return made


def _run_ahead(
    ahead: Ahead | None,
    args: list[str],
    cwd: Path,
    timeout: float,
    junit: str,
    covered: tuple[str, Path] | None,
    project: dict[str, object] | None = None,
) -> Measurement | None:
    """The run in the process started ahead; None when there is none, or it cannot do it (it
    died, or pytest wants the project's plugins): the caller starts a fresh one. ``project``:
    the order's part that makes it a run of the project's (``_project_order``)."""
    if ahead is None or ahead.process.poll() is not None:
        return None
    data_file, include = covered if covered is not None else (None, None)
    order = {"args": args, "cwd": str(cwd), "data_file": data_file, "include": str(include),
             **(project or {})}  # fmt: skip
    stdin: IO[str] = ahead.process.stdin  # type: ignore[assignment]
    try:
        stdin.write(json.dumps(order) + "\n")
        stdout, stderr = ahead.process.communicate(timeout=timeout)  # closes stdin: the go
    except subprocess.TimeoutExpired:
        _kill_group(ahead.process)
        return Measurement(exit_code=-1, output="pytest did not finish in time")
    except (OSError, ValueError):  # closed under it (``Ahead.close`` from a cancel)
        return None
    if ahead.process.returncode in (3, 4, NOT_RUN):
        return None
    result = read_junit(junit)
    result.exit_code = ahead.process.returncode
    result.output = (stdout + stderr)[-4000:]
    return result


def _project_order(in_project: bool, import_root: Path) -> dict[str, object] | None:
    """What a process started ahead (with ``import_root`` first on PYTHONPATH, plugin autoload
    off) undoes before a run of the project's: the import root, then PYTHONPATH as it was, the
    run's folder as the script folder (``python -m pytest``'s), and the project's plugins."""
    if not in_project:
        return None
    return {"project": {"drop": str(import_root), "pythonpath": os.environ.get("PYTHONPATH")}}


def _placed(test_file: Path, cwd: Path, in_project: bool) -> list[str]:
    """Where pytest takes its root and conftest files from: for a file in the project, where
    the project's pytest takes them (nothing to say); else ``cwd`` and the file's folder."""
    return [] if in_project else ["--rootdir", str(cwd), *_cut(test_file)]


def _cut(test_file: Path) -> list[str]:
    """The emitted file's folder as pytest's conftest cut, sandboxed or not.

    The emitted file is in a temporary folder outside the project (``--rootdir``): without the
    cut, pytest 9 collects from the top folder of that path, walking every directory of /tmp
    (3,300 on the development machine: seconds per run, CPU that the search and the other runs
    share). No conftest.py lies between that folder and the file anyway.
    """
    return ["--confcutdir", str(test_file.parent)]


def _guarded(sandbox: bool, scratch: str, warning_filters: Sequence[str]) -> list[str]:
    """pytest options for generated tests: the sandbox, and the project's warning filters (in
    a configuration file of the run's own, which holds nothing else)."""
    if not sandbox:
        return []
    options = ["-p", "miogen.plugins.guard", "-p", "miogen.plugins.contexts"]
    if warning_filters:
        config = os.path.join(scratch, "pytest.ini")
        lines = "".join(f"    {line}\n" for line in warning_filters)
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(f"[pytest]\nfilterwarnings =\n{lines}")
        options += ["-c", config]
    return options


def _environment(
    env: dict[str, str] | None, import_root: Path | None, scratch: str | None
) -> dict[str, str]:
    """The run's environment: the import root on PYTHONPATH (None: PYTHONPATH as it is, the
    project's run), no bytecode written; with a ``scratch`` folder, temporary files there and
    the sandbox's free folder set to it."""
    environment = dict(env or os.environ)
    if import_root is not None:
        environment = _with_import_root(environment, import_root)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    if scratch is not None:
        temporary = os.path.join(scratch, "tmp")
        os.makedirs(temporary, exist_ok=True)
        for name in ("TMPDIR", "TMP", "TEMP"):
            environment[name] = temporary
        environment[FREE] = scratch
    return environment


def _run_and_read(
    command: list[str],
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    junit: str,
    plugins: bool = False,
) -> Measurement:
    """Run pytest and read its verdict from the JUnit report (exit code -1: it did not finish);
    ``plugins``: with the installed pytest plugins from the start (the project's run)."""
    try:
        completed = _run_pytest(command, cwd, env, timeout, plugins)
    except subprocess.TimeoutExpired:
        return Measurement(exit_code=-1, output="pytest did not finish in time")
    result = read_junit(junit)
    result.exit_code = completed.returncode
    result.output = (completed.stdout + completed.stderr)[-4000:]
    return result


def _with_import_root(environment: dict[str, str], import_root: Path) -> dict[str, str]:
    """The environment with the module's import root first on PYTHONPATH."""
    existing = environment.get("PYTHONPATH")
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(import_root)] + ([existing] if existing else [])
    )
    return environment


def _run_pytest(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float, plugins: bool = False
) -> subprocess.CompletedProcess[str]:
    """pytest without plugin autoload first (it halves start-up where many plugins are installed);
    again with the project's plugins when pytest says its configuration needs them (exit 3 or 4).
    ``plugins``: with them at once, as the project's own ``pytest`` runs (a plugin may change
    what a test does without any configuration naming it).

    The run gets the worker's resource limits (through ``miogen.plugins.limited``) and a process
    group of its own: past ``timeout`` the whole group is killed, processes a test started too.
    """

    def run(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
        limited = [
            *OWN.command("miogen.plugins.limited", str(VERIFY_MEMORY_MB), str(timeout)),
            "--", *command,
        ]  # fmt: skip
        process = subprocess.Popen(
            limited, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True, start_new_session=True,
        )  # fmt: skip
        started(process)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except BaseException:  # past the timeout, or the command was cancelled
            _kill_group(process)
            raise
        finally:
            ended(process)
        return subprocess.CompletedProcess(limited, process.returncode, stdout, stderr)

    if plugins:
        return run(env)
    completed = run(dict(env, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
    if completed.returncode in (3, 4):
        completed = run(env)
    return completed


def _kill_group(process: subprocess.Popen[str]) -> None:
    kill_process_group(process.pid)
    process.communicate()


VERIFY_MEMORY_MB = 2048  # as a worker's
VERIFY_STARTUP = 30.0  # seconds for interpreter, pytest and coverage.py start on a loaded machine


def verification_timeout(tests: int, test_timeout: float = 1.0) -> float:
    """Seconds one verification run may take: start-up, then each test thrice its search limit.

    Every emitted test ran within ``test_timeout`` during the search; under coverage.py it may
    take two or three times as long.

    >>> verification_timeout(10)
    60.0
    """
    return VERIFY_STARTUP + 3.0 * tests * test_timeout


def read_junit(path: str) -> Measurement:
    result = Measurement()
    if not os.path.exists(path):
        return result
    result.reported = True
    root = ElementTree.parse(path).getroot()
    exact = [p.get("value") for p in root.iter("property") if p.get("name") == "miogen_seconds"]
    for case in root.iter("testcase"):
        result.seconds += float(case.get("time", 0.0) or 0.0)
        failure, error = case.find("failure"), case.find("error")
        if failure is not None or error is not None:
            if failure is not None:
                result.failed += 1
            else:
                result.errors += 1
            name = case.get("name", "")
            element = failure if failure is not None else error
            assert element is not None
            if element.get("message") == COLLECTION_FAILURE:
                result.collection_error = _collection_error(element.text or "")
                continue
            result.failures.append(name)
            result.messages[name] = f"{element.get('message', '')}\n{element.text or ''}"
        elif case.find("skipped") is None:
            result.passed += 1
    if exact and exact[0]:
        result.seconds = float(exact[0])  # the same sum, without the report's millisecond steps
    return result


COLLECTION_FAILURE = "collection failure"  # pytest's JUnit message for a file it cannot import


def _collection_error(text: str) -> str:
    """The exception of a collection failure: pytest's ``E`` lines, else its last line."""
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    lines = lines or [line.strip() for line in text.splitlines() if line.strip()][-1:]
    return " ".join(lines) or "pytest could not collect it"


def _module_percent(data_file: str, module_path: Path, code: CodeMap) -> float | None:
    """coverage.py's report total for the one file: the figure its own report shows, from
    ``code``, the parse of the file's text read for the arcs (``parse_code``: coverage.py's
    parser with its default exclusions, as the report's). The report's own parse of the file
    took ten times longer (0.2-0.3 CPU s for argparse, on the server's thread at each save)."""
    measured = Coverage(data_file=data_file, config_file=False, branch=True)
    measured.load()
    try:
        reporter = PythonFileReporter(str(module_path), measured)
        reporter._parser = code.parser  # noqa: SLF001 - the report's parse, made already
        data = measured.get_data()
        analysis = analysis_from_file_reporter(
            data, measured.config.precision, reporter, reporter.filename
        )
        return float(analysis.numbers.pc_covered)
    except CoverageException:
        return None


def read_coverage(
    result: Measurement, data_file: str, module_path: Path, units: Sequence[Unit], source: str
) -> None:
    """What coverage.py measured of the module: its own total, then (``source`` parsed once,
    the data read once: ``arcs.module_coverage``) the arcs and lines run, each unit's
    covered targets, and each test's."""
    if not os.path.exists(data_file):
        return
    code = parse_code(source)
    result.module_percent = _module_percent(data_file, module_path, code)
    arcs, covered, result.per_test = module_coverage(data_file, module_path, units, code)
    lines = {a for a, _ in arcs if a > 0} | {b for _, b in arcs if b > 0}
    result.arcs = sorted(arcs)
    result.executed_lines = sorted(lines & code.statements)
    result.covered.update(covered)
