"""The peer: Pynguin in its own virtual environment, run on a subject with a wall budget.

``ensure_pynguin`` creates ``bench/.venv-pynguin`` (git-ignored) with ``pip install pynguin`` the
first time; ``run_pynguin`` starts it with ``PYNGUIN_DANGER_AWARE`` set and times the whole
process (start-up, search, assertion generation by mutation analysis, minimisation, writing).
Its statistics CSV gives its own coverage claim, its executed-test count and search time.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bench.process import run_group

VENV = Path(__file__).resolve().parent / ".venv-pynguin"
# The newest release that installs on Python 3.11 when this was written (issue #8 names 0.48).
REQUIREMENT = "pynguin==0.48.0"
ALGORITHMS = {"pynguin-mio": "MIO", "pynguin-dynamosa": "DYNAMOSA"}
# Pynguin checks every mutant during assertion generation by default (-1: no time limit); on
# pprint that is 936 mutants, about 8 minutes here. Capping it keeps its run within the job's
# time limit; it changes the assertions, not the coverage, and only shortens Pynguin's wall time.
MUTATION_SECONDS = 60
OUTPUT_VARIABLES = [
    "TargetModule", "Coverage", "BranchCoverage", "TotalTime", "SearchTime",
    "AlgorithmIterations", "Executed", "Length", "Size", "CoverageTimeline",
]  # fmt: skip


def executable(venv: Path = VENV) -> Path:
    return venv / "bin" / "pynguin"


def ensure_pynguin(venv: Path = VENV, requirement: str = REQUIREMENT, log=print) -> str:
    """Install Pynguin into its own venv unless it is there; return its version."""
    python = venv / "bin" / "python"
    if not executable(venv).exists():
        log(f"installing {requirement} into {venv} (once; about a minute)")
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", requirement],
            check=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    completed = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('pynguin'))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return completed.stdout.strip()


@dataclass
class PynguinRun:
    status: str  # ok | failed | timeout | no-tests
    wall_seconds: float
    test_file: Path | None
    statistics: dict = field(default_factory=dict)
    message: str = ""

    @property
    def search_seconds(self) -> float:
        return _number(self.statistics.get("SearchTime")) / 1e9

    @property
    def executions(self) -> int:
        return int(_number(self.statistics.get("Executed")))

    @property
    def claimed_percent(self) -> float:
        return 100.0 * _number(self.statistics.get("Coverage"))

    def timeline(self) -> list[tuple[float, float]]:
        """Pynguin's own coverage claim per second of search: (seconds, percent)."""
        return parse_timeline(self.statistics)


def run_pynguin(
    module_path: Path,
    algorithm: str,
    budget: int,
    seed: int,
    workdir: Path,
    venv: Path = VENV,
    project_path: Path | None = None,
    module_name: str | None = None,
) -> PynguinRun:
    """Generate tests for the whole module at ``module_path`` into ``workdir/out``.

    ``project_path`` is the folder Pynguin imports from (default: the module's folder) and
    ``module_name`` the dotted name there (default: the file's stem), for package modules.
    """
    output, report = workdir / "out", workdir / "report"
    output.mkdir(parents=True, exist_ok=True)
    module_name = module_name or module_path.stem
    command = [
        str(executable(venv)), "--project-path", str(project_path or module_path.parent),
        "--module-name", module_name, "--output-path", str(output),
        "--algorithm", ALGORITHMS[algorithm], "--maximum-search-time", str(int(budget)),
        "--seed", str(seed), "--report-dir", str(report),
        "--output-variables", ",".join(OUTPUT_VARIABLES), "--no-rich", "-v",
        "--maximum-mutation-time", str(MUTATION_SECONDS),
    ]  # fmt: skip
    environment = dict(os.environ, PYNGUIN_DANGER_AWARE="1", PYTHONDONTWRITEBYTECODE="1")
    environment.pop("PYTHONPATH", None)
    log = workdir / "pynguin.log"
    limit = 2 * budget + 150
    with log.open("w") as sink:
        code, wall = run_group(
            command, limit, cwd=workdir, env=environment, stdout=sink,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    if code is None:
        status, message = "timeout", f"killed after {limit} s"
    else:
        status = "ok" if code == 0 else "failed"
        message = "" if code == 0 else f"exit code {code}"
    # Pynguin names the file after the module's last name (test_iterator.py for flutes.iterator).
    test_file = output / f"test_{module_name.rpartition('.')[2]}.py"
    statistics = read_statistics(report / "statistics.csv")
    if status == "ok" and not test_file.exists():
        status, message = "no-tests", "Pynguin wrote no test file"
    if status in ("failed", "no-tests"):
        message += ": " + _tail(log)
    return PynguinRun(status, wall, test_file if test_file.exists() else None, statistics, message)


def read_statistics(path: Path) -> dict:
    """The last row of Pynguin's statistics CSV (one row per run into a fresh report folder)."""
    if not path.exists():
        return {}
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return rows[-1] if rows else {}


def parse_timeline(statistics: dict) -> list[tuple[float, float]]:
    """CoverageTimeline_T1..Tn are its coverage after 1..n seconds of search (fractions).

    >>> parse_timeline({"CoverageTimeline_T2": "0.5", "CoverageTimeline_T1": "0.25", "X": "1"})
    [(1.0, 25.0), (2.0, 50.0)]
    """
    points = []
    for key, value in statistics.items():
        prefix, _, index = key.rpartition("_T")
        if prefix == "CoverageTimeline" and index.isdigit():
            points.append((float(index), 100.0 * _number(value)))
    return sorted(points)


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _tail(log: Path, lines: int = 5) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:])[-400:]
