"""Per-criterion coverage of the search algorithms and goal selections (issue 15), by command.

    .venv/bin/python -m bench.criteria --subjects triangle expint gammq \\
        --algorithms mio dynamosa adynamosa --criteria smart --seeds 3 --evaluations 2000

Each run is ``miogen generate <subject> --json`` in a fresh process on a fresh copy of the
subject (every unit of the module gets the budget), so a run is exactly what a user gets. From
its summary come, per criterion, the goals the emitted suite covers out of all goals of the
criterion (summed over the module's units; branch and line measured by coverage.py, the rest by
miogen on the emitted tests), the number of tests, and the suite's runtime: the median, over
``--runtime-runs`` pytest runs in fresh processes, of the tests' own time (each test's
setup, call and teardown timed by bench/runtime_plugin.py, so interpreter start and collection
are left out). Rows go to ``<out>/runs.csv`` as runs
finish (``--resume`` skips the ones there); ``<out>/summary.md`` has the medians per subject in
the layout of the aDynaMOSA paper's Table III (criteria down, algorithms across).

An algorithm written ``mio+performance`` runs MIO with ``--performance``. MIO's mutation phase
is off by default here (``--mutation-share 0``): the question is how the
search algorithms and goal selections cover goals, and the phase spends MIO's budget on strong
mutation, which the other algorithms do not do.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.process import run_group
from bench.subjects import REPO, SUBJECTS, select

CRITERIA = (
    "branch", "direct-branch", "line", "weak-mutation", "method", "method-no-exception",
    "exception", "output",
)  # fmt: skip
COLUMNS = [
    "subject", "algorithm", "criteria", "seed", "budget", "status", "wall_seconds", "tests",
    *(f"{c}_{part}" for c in CRITERIA for part in ("covered", "total")),
    "suite_seconds", "runtime_runs", "evaluations",
]  # fmt: skip
DEFAULT_OUT = REPO / "bench" / "results" / "criteria"


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows_path = args.out / "runs.csv"
    done = _done(rows_path) if args.resume else set()
    if not args.resume or not rows_path.exists():
        with rows_path.open("w", newline="") as handle:
            csv.DictWriter(handle, COLUMNS).writeheader()
    for subject in select(args.subjects):
        for criteria in args.criteria:
            for algorithm in args.algorithms:
                for seed in range(args.seeds):
                    key = (subject.name, algorithm, criteria, str(seed))
                    if key in done:
                        continue
                    row = run_one(subject.name, algorithm, criteria, seed, args)
                    with rows_path.open("a", newline="") as handle:
                        csv.DictWriter(handle, COLUMNS).writerow(row)
                    print(_line(row), flush=True)
    (args.out / "summary.md").write_text(summarize(_read(rows_path)), encoding="utf-8")
    print(f"wrote {rows_path} and {args.out / 'summary.md'}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.criteria", description=__doc__)
    parser.add_argument("--subjects", nargs="*", default=["triangle", "expint", "gammq"])
    parser.add_argument("--algorithms", nargs="*", default=["mio", "dynamosa", "adynamosa"])
    parser.add_argument("--criteria", nargs="*", default=["smart"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--evaluations", type=int, default=2000, help="per unit (0: use --budget)")
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per unit")
    parser.add_argument("--mutation-share", type=float, default=0.0)
    parser.add_argument("--runtime-runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--resume", action="store_true")
    return parser


def run_one(subject: str, algorithm: str, criteria: str, seed: int, args) -> dict:
    """One ``miogen generate`` run, its summary, and the emitted suite's runtime."""
    row: dict = {"subject": subject, "algorithm": algorithm, "criteria": criteria, "seed": seed}
    row["budget"] = f"{args.evaluations} evaluations" if args.evaluations else f"{args.budget} s"
    folder = Path(tempfile.mkdtemp(prefix=f"crit-{subject}-"))
    try:
        path = SUBJECTS[subject].install(folder)
        output = folder / f"test_{path.stem}.py"
        base, _, flag = algorithm.partition("+")  # "mio+performance": MIO with --performance
        command = [
            sys.executable, "-m", "miogen.cli", "generate", str(path), "--json",
            "--algorithm", base, *(["--performance"] if flag == "performance" else []),
            "--criteria", criteria, "--seed", str(seed),
            "--mutation-share", str(args.mutation_share), "--output", str(output),
            *(["--evaluations", str(args.evaluations)] if args.evaluations else
              ["--budget", str(args.budget)]),
        ]  # fmt: skip
        summary_file = folder / "summary.json"
        with summary_file.open("w") as stdout:
            code, seconds = run_group(
                command, args.timeout, cwd=folder, stdout=stdout, stderr=subprocess.DEVNULL
            )
        row["wall_seconds"] = round(seconds, 2)
        if code is None or not summary_file.read_text().strip():
            row["status"] = "timeout" if code is None else f"exit {code}"
            return row
        summary = json.loads(summary_file.read_text())
        row["status"] = "ok" if code == 0 else f"exit {code}"
        row.update(_criteria_columns(summary))
        row["tests"] = sum(unit["tests"] for unit in summary["units"])
        row["evaluations"] = sum(unit["evaluations"] for unit in summary["units"])
        if output.exists():
            runtimes = [_pytest_seconds(output, folder) for _ in range(args.runtime_runs)]
            runtimes = [r for r in runtimes if r is not None]
            row["suite_seconds"] = round(statistics.median(runtimes), 5) if runtimes else ""
            row["runtime_runs"] = len(runtimes)
        return row
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _criteria_columns(summary: dict) -> dict:
    columns: dict = {}
    for criterion in CRITERIA:
        covered = total = 0
        for unit in summary["units"]:
            numbers = unit.get("criteria", {}).get(criterion)
            if numbers:
                covered += numbers["covered"]
                total += numbers["total"]
        columns[f"{criterion}_covered"], columns[f"{criterion}_total"] = covered, total
    return columns


def _pytest_seconds(test_file: Path, folder: Path) -> float | None:
    """The tests' own seconds in one fresh pytest process (bench/runtime_plugin.py), or None."""
    result = folder / "runtime.txt"
    result.unlink(missing_ok=True)
    environment = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(REPO)]),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", MIOGEN_RUNTIME_FILE=str(result),
    )  # fmt: skip
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
        "bench.runtime_plugin", str(test_file),
    ]  # fmt: skip
    code, _ = run_group(
        command, 300, cwd=folder, env=environment, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    if code != 0 or not result.exists():
        return None
    return float(result.read_text())


def _done(path: Path) -> set[tuple[str, str, str, str]]:
    return {(r["subject"], r["algorithm"], r["criteria"], r["seed"]) for r in _read(path)}


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _line(row: dict) -> str:
    parts = [f"{row['subject']} {row['algorithm']} {row['criteria']} seed {row['seed']}:"]
    parts.append(str(row.get("status")))
    for criterion in CRITERIA:
        total = row.get(f"{criterion}_total")
        if total not in (None, ""):
            parts.append(f"{criterion} {row[f'{criterion}_covered']}/{total}")
    parts.append(f"tests {row.get('tests', '')}, runtime {row.get('suite_seconds', '')}s")
    return " ".join(parts)


def summarize(rows: list[dict]) -> str:
    """Medians per subject: criteria down, (algorithm, criteria) across; then tests and runtime."""
    lines = ["# Per-criterion coverage (medians over seeds)", ""]
    lines.append("Generated by `python -m bench.criteria`; raw rows in `runs.csv`.")
    for subject in dict.fromkeys(row["subject"] for row in rows):
        chosen = [row for row in rows if row["subject"] == subject and row["status"] == "ok"]
        configs = list(dict.fromkeys((row["algorithm"], row["criteria"]) for row in chosen))
        if not configs:
            continue
        lines += ["", f"## {subject}", ""]
        header = ["criterion", *(f"{a} ({c})" for a, c in configs)]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for criterion in (*CRITERIA, "tests", "suite_seconds", "wall_seconds"):
            cells = [criterion]
            for algorithm, criteria in configs:
                runs = [
                    r for r in chosen if (r["algorithm"], r["criteria"]) == (algorithm, criteria)
                ]
                cells.append(_cell(runs, criterion))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _cell(runs: list[dict], column: str) -> str:
    if column in CRITERIA:
        totals = [int(r[f"{column}_total"] or 0) for r in runs]
        covered = [int(r[f"{column}_covered"] or 0) for r in runs]
        if column == "exception":
            return f"{statistics.median(covered):g} found"
        percents = [100.0 * c / t if t else 100.0 for c, t in zip(covered, totals, strict=True)]
        return f"{statistics.median(percents):.1f}% (of {statistics.median(totals):g})"
    values = [float(r[column]) for r in runs if r.get(column) not in (None, "")]
    return f"{statistics.median(values):.4g}" if values else ""


if __name__ == "__main__":
    sys.exit(main())
