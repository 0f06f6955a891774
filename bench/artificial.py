"""Reproduce the MIO paper's Figures 1-4: coverage on the artificial problems for MIO and baselines.

Run from the repository root::

    .venv/bin/python -m bench.artificial --runs 30

Writes ``results.csv``, ``figures.png`` and ``table.md`` into ``bench/results/artificial/``.
As in the paper: r = 1000, b = 1000 evaluations, z in {1..5, 10, 20, .., 100} (Infeasible:
10 gradient targets plus {0..5, 10, 20, .., 100} infeasible ones), every algorithm runs on
the same problem instances (run i uses goal seed i), coverage counts feasible targets.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path

from miogen.worker.search import (
    Budget,
    Deceptive,
    Gradient,
    Infeasible,
    Landscape,
    MioConfig,
    Plateau,
    run_mio,
    run_random,
    run_wts,
)

SIZES = [1, 2, 3, 4, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
INFEASIBLE_SIZES = [0, *SIZES]
FEASIBLE_FOR_INFEASIBLE = 10
OUT = Path(__file__).parent / "results" / "artificial"

ALGORITHMS: dict[str, Callable] = {
    "MIO": lambda problem, budget, rng: run_mio(problem, budget, rng),
    "MIO-noFDS": lambda problem, budget, rng: run_mio(
        problem, budget, rng, MioConfig(feedback_directed=False)
    ),
    "Random": lambda problem, budget, rng: run_random(problem, budget, rng),
    "WTS": lambda problem, budget, rng: run_wts(problem, budget, rng),
}
PROBLEMS = ["Gradient", "Plateau", "Deceptive", "Infeasible"]


def make_problem(kind: str, z: int, r: int, seed: int) -> Landscape:
    """z is the number of targets, or for Infeasible the number of infeasible ones."""
    if kind == "Infeasible":
        return Infeasible(FEASIBLE_FOR_INFEASIBLE, z, r=r, seed=seed)
    return {"Gradient": Gradient, "Plateau": Plateau, "Deceptive": Deceptive}[kind](z, r, seed)


def run_instance(task: tuple[str, int, int, int, int]) -> tuple[str, int, dict[str, int]]:
    """All algorithms on one problem instance; returns covered feasible targets per algorithm."""
    kind, z, run, r, evaluations = task
    covered = {}
    for name, algorithm in ALGORITHMS.items():
        problem = make_problem(kind, z, r, seed=run)
        archive = algorithm(problem, Budget(evaluations=evaluations), random.Random(10_000 + run))
        covered[name] = sum(archive.is_covered(target) for target in problem.feasible())
    return kind, z, covered


def tasks(problems: list[str], runs: int, r: int, evaluations: int):
    for kind in problems:
        for z in INFEASIBLE_SIZES if kind == "Infeasible" else SIZES:
            for run in range(runs):
                yield (kind, z, run, r, evaluations)


def collect(problems: list[str], runs: int, r: int, evaluations: int, jobs: int) -> dict:
    """(kind, z) -> algorithm -> list of covered counts, one per run."""
    results: dict = defaultdict(lambda: defaultdict(list))
    work = list(tasks(problems, runs, r, evaluations))
    with Pool(jobs) as pool:
        for kind, z, covered in pool.imap_unordered(run_instance, work, chunksize=4):
            for name, count in covered.items():
                results[(kind, z)][name].append(count)
    return results


def feasible_count(kind: str, z: int) -> int:
    return FEASIBLE_FOR_INFEASIBLE if kind == "Infeasible" else z


def rows(results: dict) -> list[dict]:
    table = []
    for (kind, z), per_algorithm in sorted(
        results.items(), key=lambda item: (PROBLEMS.index(item[0][0]), item[0][1])
    ):
        for name in ALGORITHMS:
            counts = per_algorithm[name]
            mean = statistics.mean(counts)
            table.append(
                {
                    "problem": kind,
                    "z": z,
                    "algorithm": name,
                    "runs": len(counts),
                    "mean_covered": round(mean, 3),
                    "std_covered": round(statistics.pstdev(counts), 3),
                    "coverage_percent": round(100 * mean / feasible_count(kind, z), 1),
                }
            )
    return table


def write_csv(table: list[dict], path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)


def write_markdown(table: list[dict], path: Path) -> None:
    """One table per problem: z down, algorithms across, coverage % (mean covered)."""
    lines = []
    for kind in dict.fromkeys(row["problem"] for row in table):
        label = "infeasible targets (+10 gradient)" if kind == "Infeasible" else "z"
        lines += [f"### {kind}", "", f"| {label} | " + " | ".join(ALGORITHMS) + " |"]
        lines.append("|---:|" + "---:|" * len(ALGORITHMS))
        by_z = defaultdict(dict)
        for row in table:
            if row["problem"] == kind:
                by_z[row["z"]][row["algorithm"]] = row
        for z, cells in by_z.items():
            values = [f"{c['coverage_percent']}% ({c['mean_covered']:.2f})" for c in cells.values()]
            lines.append(f"| {z} | " + " | ".join(values) + " |")
        lines.append("")
    path.write_text("\n".join(lines))


def write_figure(table: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = list(dict.fromkeys(row["problem"] for row in table))
    figure, axes = plt.subplots(2, 2, figsize=(11, 8), squeeze=False)
    for axis, kind in zip(axes.flat, kinds, strict=False):
        for name in ALGORITHMS:
            points = [
                (row["z"], row["coverage_percent"])
                for row in table
                if row["problem"] == kind and row["algorithm"] == name
            ]
            axis.plot(*zip(*points, strict=True), marker="o", markersize=3, label=name)
        axis.set_title(f"{kind} (Fig. {PROBLEMS.index(kind) + 1})")
        axis.set_xlabel(
            "infeasible targets (+10 gradient)" if kind == "Infeasible" else "targets z"
        )
        axis.set_ylabel("coverage of feasible targets (%)")
        axis.set_ylim(0, 100)
        axis.grid(alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="runs per problem size (paper: 100)")
    parser.add_argument("--evaluations", type=int, default=1000, help="budget b per run")
    parser.add_argument("-r", type=int, default=1000, help="range of x")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--problems", nargs="+", choices=PROBLEMS, default=PROBLEMS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    results = collect(args.problems, args.runs, args.r, args.evaluations, args.jobs)
    table = rows(results)
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(table, args.out / "results.csv")
    write_markdown(table, args.out / "table.md")
    write_figure(table, args.out / "figures.png")
    elapsed = time.perf_counter() - started
    print(f"{len(table)} rows in {elapsed:.1f} s -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
