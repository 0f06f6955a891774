"""coverage.py's verdict on an emitted test file, the same procedure for every tool.

The test file runs under pytest inside ``coverage run --branch`` in a fresh process, with the
subject's folder on PYTHONPATH. From the data we read coverage.py's own module-level numbers
(statements, branches, its total percent) and map the arcs onto miogen's per-unit targets.
Suite size (tests, statements) is read from the file's syntax tree.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from coverage import Coverage
from miogen.analysis.module import analyze_file
from miogen.host.measure import Measurement, read_coverage, read_junit


@dataclass
class SuiteMeasure:
    """What coverage.py measured for one test file over one module, plus the file's size."""

    statements_total: int = 0
    statements_covered: int = 0
    branches_total: int = 0
    branches_covered: int = 0
    coveragepy_percent: float = 0.0  # coverage.py's total: (lines + branches) / (stmts + branches)
    targets_total: int = 0  # miogen's per-unit targets, summed over the module's units
    targets_covered: int = 0
    tests: int = 0
    statements: int = 0  # statements inside test functions
    tests_passed: int = 0
    tests_failed: int = 0
    exit_code: int = 0

    @property
    def branch_percent(self) -> float:
        return percent(self.branches_covered, self.branches_total)

    @property
    def targets_percent(self) -> float:
        return percent(self.targets_covered, self.targets_total)

    @property
    def raw_covered(self) -> int:
        """The MIO paper's Table 1 measure: covered statements plus covered branches."""
        return self.statements_covered + self.branches_covered

    def row(self) -> dict:
        data = asdict(self)
        data.update(
            branch_percent=round(self.branch_percent, 2),
            targets_percent=round(self.targets_percent, 2),
            raw_covered=self.raw_covered,
        )
        return data


def percent(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else 100.0


def measure_suite(
    test_file: Path | None,
    module_path: Path,
    timeout: float = 300.0,
    import_root: Path | None = None,
    module_name: str | None = None,
) -> SuiteMeasure:
    """Run ``test_file`` (None: no tests at all) under coverage.py, measuring ``module_path``.

    ``import_root`` goes on PYTHONPATH (default: the module's folder) and ``module_name`` is its
    dotted name from there (default: the file's stem), for modules inside packages.
    """
    module_path = module_path.resolve()
    test_file = test_file.resolve() if test_file is not None else None
    where = Where(module_path, import_root or module_path.parent, module_name or module_path.stem)
    model = analyze_file(module_path, where.module_name)
    result = SuiteMeasure(targets_total=sum(len(u.targets) for u in model.units))
    with tempfile.TemporaryDirectory(prefix="bench-measure-") as scratch:
        data_file = os.path.join(scratch, "coverage.dat")
        junit = os.path.join(scratch, "junit.xml")
        if test_file is not None and test_file.exists():
            result.exit_code = _run_pytest(test_file, where, data_file, junit, timeout)
            size = suite_size(test_file.read_text(encoding="utf-8"))
            result.tests, result.statements = size
        else:
            _import_only(where, data_file, scratch)
        _module_numbers(result, data_file, module_path, scratch)
        verdict = read_junit(junit)
        result.tests_passed = verdict.passed
        result.tests_failed = verdict.failed + verdict.errors
        mapped = Measurement()
        read_coverage(mapped, data_file, module_path, model.units, model.source)
        result.targets_covered = sum(len(ids) for ids in mapped.covered.values())
    return result


@dataclass(frozen=True)
class Where:
    """The measured module: its file, the folder it is imported from, and its dotted name."""

    path: Path
    import_root: Path
    module_name: str


def _environment(where: Where) -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(where.import_root)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    # Generated tests need bare pytest; the dev venv's plugins (pytest-lsp, asyncio, ...) cost
    # about 4 s of start-up per process on the loaded 2-core machine.
    environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    environment.pop("COVERAGE_PROCESS_START", None)
    return environment


def _run_pytest(test_file: Path, where: Where, data_file: str, junit: str, timeout: float):
    command = [
        sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={data_file}",
        f"--include={where.path}", "-m", "pytest", "-q", "-p", "no:cacheprovider",
        "-p", "no:randomly", f"--junit-xml={junit}", "--rootdir", str(test_file.parent),
        "-o", "addopts=", "-p", "pytest_timeout", "--timeout=60", str(test_file),
    ]  # fmt: skip
    try:
        completed = subprocess.run(
            command, cwd=test_file.parent, env=_environment(where), capture_output=True,
            text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return -1
    return completed.returncode


def _import_only(where: Where, data_file: str, scratch: str) -> None:
    """Coverage of merely importing the module: the floor every test file starts from."""
    script = Path(scratch) / "import_only.py"
    script.write_text(f"import {where.module_name}\n", encoding="utf-8")
    command = [
        sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={data_file}",
        f"--include={where.path}", str(script),
    ]  # fmt: skip
    subprocess.run(
        command, cwd=scratch, env=_environment(where), capture_output=True,
        timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _module_numbers(result: SuiteMeasure, data_file: str, module_path: Path, scratch: str):
    """coverage.py's own summary of the module (its JSON report), zeros if nothing ran."""
    cov = Coverage(data_file=data_file, branch=True, include=[str(module_path)])
    cov.load()
    out = os.path.join(scratch, "coverage.json")
    try:
        cov.json_report(morfs=[str(module_path)], outfile=out)
    except Exception:  # coverage.py raises NoDataError/NoSource when nothing was measured
        summary = _empty_summary(module_path, cov)
    else:
        summary = next(iter(json.loads(Path(out).read_text())["files"].values()))["summary"]
    result.statements_total = summary["num_statements"]
    result.statements_covered = summary["covered_lines"]
    result.branches_total = summary["num_branches"]
    result.branches_covered = summary["covered_branches"]
    result.coveragepy_percent = round(summary["percent_covered"], 2)


def _empty_summary(module_path: Path, cov: Coverage) -> dict:
    analysis = cov._analyze(str(module_path))  # only reached when no data exists at all
    numbers = analysis.numbers
    return {
        "num_statements": numbers.n_statements,
        "covered_lines": 0,
        "num_branches": numbers.n_branches,
        "covered_branches": 0,
        "percent_covered": 0.0,
    }


def suite_size(source: str) -> tuple[int, int]:
    """Number of test functions and of statements inside them (nested blocks counted through).

    >>> suite_size("def test_a():\\n    x = 1\\n    assert x\\n\\ndef helper():\\n    pass\\n")
    (1, 2)
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return 0, 0
    tests = [_test_functions(node) for node in tree.body]
    functions = [f for group in tests for f in group]
    statements = sum(_count_statements(f.body) for f in functions)
    return len(functions), statements


def _test_functions(node: ast.stmt) -> list[ast.FunctionDef]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
        return [node]
    if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
        return [f for child in node.body for f in _test_functions(child)]
    return []


def _count_statements(body: list[ast.stmt]) -> int:
    count = 0
    for statement in body:
        count += 1
        for field in ("body", "orelse", "finalbody", "handlers"):
            children = getattr(statement, field, None) or []
            count += _count_statements([c for c in children if isinstance(c, ast.stmt)])
            for handler in children:
                if isinstance(handler, ast.ExceptHandler):
                    count += _count_statements(handler.body)
    return count
