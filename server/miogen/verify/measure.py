"""Runs an emitted test file under pytest + coverage.py (branch=True) in a fresh process.

The verdict about coverage comes from here, not from the search: what the editor is told is what
coverage.py measures (invariant 2).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

from coverage import CoverageData

from miogen.analysis.model import Unit
from miogen.analysis.targets import parse_code


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
    output: str = ""
    seconds: float = 0.0  # the tests' own run time, as pytest reports it (set-up included)

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
) -> Measurement:
    """Run ``test_file`` with coverage measuring ``module_path``; map the arcs to unit targets."""
    with tempfile.TemporaryDirectory(prefix="miogen-verify-") as scratch:
        data_file = os.path.join(scratch, "coverage.dat")
        junit = os.path.join(scratch, "junit.xml")
        command = [
            sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={data_file}",
            f"--include={module_path}", "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "-p", "no:randomly", f"--junit-xml={junit}", "--rootdir", str(cwd), str(test_file),
            *extra_args,
        ]  # fmt: skip
        environment = _with_import_root(dict(env or os.environ), import_root)
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        result = _run_and_read(command, cwd, environment, timeout, junit)
        if result.exit_code != -1:
            read_coverage(result, data_file, module_path, units, source)
        return result


def run_shuffled(
    test_file: Path, import_root: Path, cwd: Path, seed: int, timeout: float = 120.0
) -> Measurement:
    """One more run without coverage: shuffled order, another PYTHONHASHSEED, a fresh process."""
    with tempfile.TemporaryDirectory(prefix="miogen-stability-") as scratch:
        junit = os.path.join(scratch, "junit.xml")
        environment = _with_import_root(
            dict(os.environ, MIOGEN_SHUFFLE_SEED=str(seed), PYTHONHASHSEED=str(seed)), import_root
        )
        command = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "miogen.verify.shuffle",
            f"--junit-xml={junit}", "--rootdir", str(cwd), str(test_file),
        ]  # fmt: skip
        return _run_and_read(command, cwd, environment, timeout, junit)


def _run_and_read(
    command: list[str], cwd: Path, env: dict, timeout: float, junit: str
) -> Measurement:
    """Run pytest and read its verdict from the JUnit report (exit code -1: it did not finish)."""
    try:
        completed = _run_pytest(command, cwd, env, timeout)
    except subprocess.TimeoutExpired:
        return Measurement(exit_code=-1, output="pytest did not finish in time")
    result = read_junit(junit)
    result.exit_code = completed.returncode
    result.output = (completed.stdout + completed.stderr)[-4000:]
    return result


def _with_import_root(environment: dict, import_root: Path) -> dict:
    """The environment with the module's import root first on PYTHONPATH."""
    existing = environment.get("PYTHONPATH")
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(import_root)] + ([existing] if existing else [])
    )
    return environment


def _run_pytest(
    command: list[str], cwd: Path, env: dict, timeout: float
) -> subprocess.CompletedProcess:
    """pytest without plugin autoload first (it halves start-up where many plugins are installed);
    again with the project's plugins when pytest says its configuration needs them (exit 3 or 4).

    The run gets the worker's resource limits (through ``miogen.verify.limited``) and a process
    group of its own: past ``timeout`` the whole group is killed, processes a test started too.
    """

    def run(environment: dict) -> subprocess.CompletedProcess:
        limited = [
            sys.executable, "-m", "miogen.verify.limited", str(VERIFY_MEMORY_MB), str(timeout),
            "--", *command,
        ]  # fmt: skip
        process = subprocess.Popen(
            limited, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            raise
        return subprocess.CompletedProcess(limited, process.returncode, stdout, stderr)

    completed = run(dict(env, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
    if completed.returncode in (3, 4):
        completed = run(env)
    return completed


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
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
    root = ElementTree.parse(path).getroot()
    for case in root.iter("testcase"):
        result.seconds += float(case.get("time", 0.0) or 0.0)
        if case.find("failure") is not None:
            result.failed += 1
            result.failures.append(case.get("name", ""))
        elif case.find("error") is not None:
            result.errors += 1
            result.failures.append(case.get("name", ""))
        elif case.find("skipped") is None:
            result.passed += 1
    return result


def read_coverage(
    result: Measurement, data_file: str, module_path: Path, units, source: str
) -> None:
    if not os.path.exists(data_file):
        return
    data = CoverageData(data_file)
    data.read()
    raw = data.arcs(str(module_path.resolve())) or []
    code = parse_code(source)
    arcs = set(code.parser.translate_arcs(raw))
    lines = {a for a, _ in arcs if a > 0} | {b for _, b in arcs if b > 0}
    result.arcs = sorted(arcs)
    result.executed_lines = sorted(lines & code.statements)
    for unit in units:
        result.covered[unit.name] = [
            t.id for t in unit.targets if (t.arc in arcs if t.kind == "branch" else t.line in lines)
        ]
