"""`python -m bench.overhead`: the wall time a whole module costs beyond its budget (issue 12 part 5).

Runs ``miogen generate MODULE --budget B --json`` as a user would (a fresh process, the module in
a project of its own) on a module of many functions (posixpath, 17) and one of a few units
(textwrap, 6), ``--reps`` times each, and writes the medians to bench/OVERHEAD.md: wall time,
wall time minus the budget (the overhead: worker start, analysis, import, verification, writing,
and whatever post-processing runs past the budget), and the steps the summary times.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SUBJECTS = {
    "posixpath (17 functions)": BENCH / "subjects" / "stdlib_posixpath.py",
    "textwrap (6 units)": BENCH / "subjects" / "stdlib_textwrap.py",
    # the real corpus's slowest module: many units, module-level state (a whole-module rerun
    # per mutant and per criteria copy)
    "urllib.parse (34 units)": BENCH / "subjects" / "stdlib_urllib_parse.py",
}
STEPS = ("analyse", "worker_start", "worker_analyse", "worker_import", "job", "verify", "write")


def run_once(
    module: Path, budget: float, work: Path, baseline: Path | None = None
) -> dict[str, float]:
    """One CLI run in a fresh project; wall seconds and the summary's timings.

    ``baseline``: another checkout of miogen (its ``server/`` first on PYTHONPATH), with the
    same whole-module budget. ``cpu``: CPU seconds of the command and every process it waited
    for (workers, pytest runs): unlike the wall time, it does not grow with the others' load.
    """
    project = work / "project"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'subject'\n")
    target = project / module.name
    shutil.copy(module, target)
    env, given = dict(os.environ), budget
    if baseline is not None:
        env["PYTHONPATH"] = str(baseline / "server")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", str(target), "--budget", f"{given:.4f}",
         "--json", "--output", str(project / "tests" / f"test_{module.stem}.py")],
        capture_output=True, text=True, cwd=project, stdin=subprocess.DEVNULL, timeout=600,
        env=env,
    )  # fmt: skip
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    summary = json.loads(done.stdout)
    seconds = summary.get("seconds", {})
    row = {"wall": wall, "overhead": wall - budget, "cpu": cpu, "units": len(summary["units"])}
    row["load"] = os.getloadavg()[0]
    row["coverage"] = summary["coverage"]["percent"]
    row["tests"] = summary["measured"]["tests_passed"]
    by_cause = summary.get("dropped")  # an older summary lists the dropped tests by name
    old = len(summary.get("dropped_failing_tests", [])) + len(
        summary.get("dropped_unstable_tests", [])
    )
    row["dropped"] = sum(by_cause.values()) if by_cause else old
    row.update({step: seconds.get(step, 0.0) for step in STEPS})
    return row


def median(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def table(results: dict[str, list[dict[str, float]]], budget: float) -> str:
    header = (
        "| module | units | wall (s) | wall − budget (s) | CPU (s) | load | CLI analysis "
        "| worker start | worker analysis | import | job | verify | write | coverage.py | tests "
        "| dropped |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for name, rows in results.items():
        cells = [name, f"{median(rows, 'units'):.0f}", f"{median(rows, 'wall'):.2f}",
                 f"{median(rows, 'overhead'):.2f}", f"{median(rows, 'cpu'):.2f}",
                 f"{median(rows, 'load'):.1f}"]  # fmt: skip
        cells += [f"{median(rows, step):.2f}" for step in STEPS]
        cells += [f"{median(rows, 'coverage'):.1f}%", f"{median(rows, 'tests'):.0f}",
                  f"{median(rows, 'dropped'):.0f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return header + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.overhead", description=__doc__)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per module")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", type=Path, default=BENCH / "OVERHEAD.md")
    parser.add_argument(
        "--baseline", type=Path, help="a checkout of an earlier miogen (per-unit budgets)"
    )
    parser.add_argument("--baseline-label", help="what the baseline is (default: its git HEAD)")
    args = parser.parse_args(argv)
    results: dict[str, list[dict[str, float]]] = {}
    load = os.getloadavg()[0]
    variants = [("", None)] + ([(" — baseline", args.baseline)] if args.baseline else [])
    with tempfile.TemporaryDirectory(prefix="miogen-overhead-") as scratch:
        for rep in range(args.reps):  # interleaved: both see the same load
            for name, module in SUBJECTS.items():
                for suffix, checkout in variants:
                    row = run_once(module, args.budget, Path(scratch), checkout)
                    results.setdefault(name + suffix, []).append(row)
                    print(f"{name}{suffix} #{rep + 1}: wall {row['wall']:.2f} s", file=sys.stderr)
    text = (
        "# Per-module overhead (issue 12 part 5)\n\n"
        f"`python -m bench.overhead --budget {args.budget:g} --reps {args.reps}` on "
        f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load:.1f} at the start (2 cores, "
        "shared). Medians over the repetitions. `--budget` is the whole module's: its units "
        "share it. Steps: the summary's `seconds`: CLI analysis (while the worker starts), "
        "worker start (launch to module loaded, its analysis and import included), job (the "
        "worker's whole run: start, the budget, what post-processing ran past it), verify (two "
        "pytest runs at once, started ahead: coverage in file order, a rerun backwards), write."
        + (
            f" Baseline: {args.baseline} ({args.baseline_label or _revision(args.baseline)}), the same budget,"
            " run in turns with this checkout (both see the same load)."
            if args.baseline
            else ""
        )
        + "\n\n"
        + table(results, args.budget)
        + "\nRaw rows:\n\n```json\n"
        + json.dumps(results, indent=1)
        + "\n```\n"
    )
    args.out.write_text(text, encoding="utf-8")
    print(table(results, args.budget))
    return 0


def _revision(checkout: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(checkout), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    )
    return done.stdout.strip()[:80]


if __name__ == "__main__":
    sys.exit(main())
