"""Replay the shop's versions under "simple" and under CTG at the same total budget.

Run from the repository root::

    .venv/bin/python -m bench.ctg.run --budget 4 --jobs 2 --reps 2

For each repetition and each version (bench/ctg/versions.py), both strategies run through
``miogen.ctg.runner.run_ctg``, the code behind ``miogen ctg``, with k*b seconds to share:

- *simple* (the paper's baseline): an equal split, no history; every version starts from a fresh
  copy of the sources without tests, so its coverage is that of the suite generated for it.
- *ctg*: allocation + history + seeding, on one working copy that keeps its test files and its
  .miogen/ history from version to version, as a project's CI would.

Coverage is the pooled mu(P) measured by coverage.py on the test files after the run. Time is
reported twice: generation (the jobs' wall seconds, summed over the k slots) and the whole run's
wall clock (discovery, coverage.py before and after, merge). Writes results.csv, units.csv,
table.md and ctg.png into bench/results/ctg/.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from miogen.ctg.runner import CtgConfig, CtgReport, run_ctg
from miogen.host.config import Options

from bench.ctg.versions import VERSIONS, write_version

OUT = Path(__file__).resolve().parents[1] / "results" / "ctg"
STRATEGIES = ("simple", "ctg")
FIELDS = [
    "rep", "strategy", "version", "title", "units", "ran", "covered", "total", "pooled",
    "allocated_seconds", "generation_seconds", "wall_seconds", "failing_tests",
]  # fmt: skip


def run_version(strategy: str, rep: int, number: int, work: Path, args) -> CtgReport:
    project = work / f"{strategy}-{rep}"
    if strategy == "simple" and project.exists():
        shutil.rmtree(project)  # no history, no earlier tests
    write_version(number, project)
    config = CtgConfig(
        budget=args.budget,
        jobs=args.jobs,
        strategy=strategy,
        minimum=args.minimum,
        options=Options(seed=rep),
    )
    return run_ctg([project], config)


def row(report: CtgReport, strategy: str, rep: int, number: int) -> dict:
    return {
        "rep": rep,
        "strategy": strategy,
        "version": number,
        "title": VERSIONS[number - 1][0],
        "units": len(report.units),
        "ran": sum(1 for u in report.units if u.outcome is not None),
        "covered": report.covered,
        "total": report.branches,
        "pooled": round(report.pooled, 2),
        "allocated_seconds": round(sum(u.allocation.seconds for u in report.units), 3),
        "generation_seconds": round(report.generation_seconds, 3),
        "wall_seconds": round(report.wall_seconds, 3),
        "failing_tests": sum(len(f) for f in report.failing.values()),
    }


def unit_rows(report: CtgReport, strategy: str, rep: int, number: int) -> list[dict]:
    return [
        {
            "rep": rep,
            "strategy": strategy,
            "version": number,
            "unit": u.key,
            "status": u.status,
            "reason": u.allocation.reason,
            "changed": u.changed,
            "budget": round(u.allocation.seconds, 3),
            "before": len(u.before),
            "after": len(u.after),
            "total": u.total,
            "added": u.added,
            "seconds": round(u.outcome.seconds, 3) if u.outcome else 0.0,
            "replayed": u.outcome.result.replayed if u.outcome and u.outcome.result else 0,
            "seeds_dropped": u.seeds_dropped,
        }  # fmt: skip
        for u in report.units
    ]


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def mean(rows: list[dict], strategy: str, version: int, key: str) -> float:
    return statistics.fmean(
        float(r[key]) for r in rows if r["strategy"] == strategy and int(r["version"]) == version
    )


def table(rows: list[dict], args) -> str:
    versions = sorted({int(r["version"]) for r in rows})
    reps = len({r["rep"] for r in rows})
    lines = [
        f"b = {args.budget:g} s per slot, k = {args.jobs} slots (k*b = {args.budget * args.jobs:g} "
        f"search seconds per version), minimum {args.minimum:g} s, h = 2; mean of {reps} "
        "repetition(s). Coverage: pooled mu(P) by coverage.py on the test files. "
        "gen = the jobs' wall seconds summed; wall = the whole run incl. coverage.py.",
        "",
        "| version | simple: mu(P) | CTG: mu(P) | simple: gen s | CTG: gen s | simple: wall s "
        "| CTG: wall s | CTG: units run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for v in versions:
        lines.append(
            f"| {VERSIONS[v - 1][0]} | {mean(rows, 'simple', v, 'pooled'):.1f}% "
            f"| {mean(rows, 'ctg', v, 'pooled'):.1f}% "
            f"| {mean(rows, 'simple', v, 'generation_seconds'):.1f} "
            f"| {mean(rows, 'ctg', v, 'generation_seconds'):.1f} "
            f"| {mean(rows, 'simple', v, 'wall_seconds'):.1f} "
            f"| {mean(rows, 'ctg', v, 'wall_seconds'):.1f} "
            f"| {mean(rows, 'ctg', v, 'ran'):.1f} of {mean(rows, 'ctg', v, 'units'):.0f} |"
        )
    totals = {
        (s, key): sum(mean(rows, s, v, key) for v in versions)
        for s in STRATEGIES
        for key in ("generation_seconds", "wall_seconds", "pooled")
    }
    average = {s: totals[(s, "pooled")] / len(versions) for s in STRATEGIES}
    saved = {
        key: 100 * (1 - totals[("ctg", key)] / totals[("simple", key)])
        for key in ("generation_seconds", "wall_seconds")
    }
    lines.append(
        f"| **all versions** | **{average['simple']:.1f}%** (mean) | **{average['ctg']:.1f}%** "
        f"(mean) | **{totals[('simple', 'generation_seconds')]:.0f}** "
        f"| **{totals[('ctg', 'generation_seconds')]:.0f}** ({saved['generation_seconds']:.0f}% less) "
        f"| **{totals[('simple', 'wall_seconds')]:.0f}** "
        f"| **{totals[('ctg', 'wall_seconds')]:.0f}** ({saved['wall_seconds']:.0f}% less) | |"
    )
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    versions = sorted({int(r["version"]) for r in rows})
    figure, (coverage, seconds) = plt.subplots(1, 2, figsize=(12, 4.5))
    for strategy, color in (("simple", "tab:gray"), ("ctg", "tab:blue")):
        values = [
            [
                float(r["pooled"])
                for r in rows
                if r["strategy"] == strategy and int(r["version"]) == v
            ]
            for v in versions
        ]
        coverage.plot(versions, [statistics.fmean(v) for v in values], marker="o", color=color,
                      label=strategy.upper() if strategy == "ctg" else "simple")  # fmt: skip
        coverage.fill_between(versions, [min(v) for v in values], [max(v) for v in values],
                              color=color, alpha=0.2)  # fmt: skip
        for key, style in (("generation_seconds", "-"), ("wall_seconds", ":")):
            seconds.plot(versions, [mean(rows, strategy, v, key) for v in versions], style,
                         marker="o", color=color,
                         label=f"{strategy}: {'generation' if key[0] == 'g' else 'whole run'}")  # fmt: skip
    coverage.set(xlabel="version", ylabel="pooled branch coverage mu(P), %", xticks=versions,
                 title="coverage.py on the test files after each version")  # fmt: skip
    seconds.set(xlabel="version", ylabel="seconds", xticks=versions, title="time per version")
    coverage.legend()
    seconds.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=4.0, help="b: seconds per slot")
    parser.add_argument("--jobs", type=int, default=2, help="k: slots")
    parser.add_argument("--minimum", type=float, default=0.3, help="CTG's minimum per unit")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--versions", type=int, default=len(VERSIONS))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--report-only", action="store_true",
        help="redo table.md and ctg.png from results.csv (versions both strategies finished)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        return report_only(args)
    rows, units = [], []
    work = Path(tempfile.mkdtemp(prefix="miogen-ctg-bench-"))
    started = time.monotonic()
    try:
        for rep in range(args.reps):
            for number in range(1, args.versions + 1):
                for strategy in STRATEGIES:
                    report = run_version(strategy, rep, number, work, args)
                    rows.append(row(report, strategy, rep, number))
                    units += unit_rows(report, strategy, rep, number)
                    print(
                        f"rep {rep} {strategy:6} v{number:<2} mu(P) {report.pooled:5.1f}%  "
                        f"gen {report.generation_seconds:5.1f}s  wall {report.wall_seconds:5.1f}s  "
                        f"({time.monotonic() - started:.0f}s)",
                        flush=True,
                    )
                write_csv(args.out / "results.csv", rows)
                write_csv(args.out / "units.csv", units)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (args.out / "table.md").write_text(table(rows, args))
    plot(rows, args.out / "ctg.png")
    print(table(rows, args))
    return 0


def report_only(args) -> int:
    with (args.out / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    done = {(r["rep"], r["version"]) for r in rows if r["strategy"] == "ctg"}
    rows = [r for r in rows if (r["rep"], r["version"]) in done]
    (args.out / "table.md").write_text(table(rows, args))
    plot(rows, args.out / "ctg.png")
    print(table(rows, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
