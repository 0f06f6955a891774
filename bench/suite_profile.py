"""The aDynaMOSA paper's runtime profile for bench.criteria: the median-coverage suite of each
configuration, run ``--profile-runs`` times in fresh pytest processes, in turns.

The paper (sec. 4.2) profiles, per class and algorithm, the suite with the median branch
coverage, 1,000 times in fresh JVMs. Here each kept suite (``<suites>/<subject>/<config>/
<seed>``, written by bench.criteria) of a subject and configuration is a candidate; the one whose
branch coverage is the median of the configuration's runs (the lowest seed among equals) is run
30 times by default, every configuration's suite once per turn so that the load of a shared
machine falls on all alike. Rows go to ``<out>/profile.csv`` as they finish; a rerun continues.
"""

from __future__ import annotations

import csv
import statistics
from collections.abc import Callable
from pathlib import Path

from bench import stats

COLUMNS = ["subject", "algorithm", "criteria", "seed", "repetition", "suite_seconds", "cpu"]
Runner = Callable[[Path, Path], "tuple[float, int, float, int] | None"]


def suite_folder(suites: Path, subject: str, algorithm: str, criteria: str, seed: int) -> Path:
    return suites / subject / f"{algorithm}-{criteria}" / str(seed)


def median_run(runs: list[dict]) -> dict:
    """The run with the median branch coverage (the lower middle of an even count), lowest seed
    among runs with that coverage.

    >>> [median_run([{"seed": s, "branch_covered": c} for s, c in enumerate(cs)])["seed"]
    ...  for cs in ((3, 1, 2), (4, 4, 1, 2))]
    [2, 3]
    """
    ordered = sorted(runs, key=lambda r: (int(r["branch_covered"] or 0), int(r["seed"])))
    middle = int(ordered[(len(ordered) - 1) // 2]["branch_covered"] or 0)
    return min((r for r in runs if int(r["branch_covered"] or 0) == middle), key=_seed)


def _seed(row: dict) -> int:
    return int(row["seed"])


def profile(out: Path, suites: Path, rows: list[dict], repetitions: int, run: Runner) -> None:
    """Run every subject's median-coverage suites ``repetitions`` times each, in turns."""
    path = out / "profile.csv"
    done = _read(path)
    if not path.exists():
        with path.open("w", newline="") as handle:
            csv.DictWriter(handle, COLUMNS).writeheader()
    ok = [r for r in rows if r["status"] == "ok"]
    for subject in dict.fromkeys(r["subject"] for r in ok):
        chosen = []
        for config in dict.fromkeys((r["algorithm"], r["criteria"]) for r in ok):
            runs = [
                r
                for r in ok
                if r["subject"] == subject and (r["algorithm"], r["criteria"]) == config
            ]
            if runs:
                pick = median_run(runs)
                folder = suite_folder(suites, subject, *config, int(pick["seed"]))
                emitted = list(folder.glob("test_*.py"))
                if emitted:
                    chosen.append((config, pick["seed"], folder, emitted[0]))
        for repetition in range(repetitions):
            for config, seed, folder, suite in chosen:
                key = (subject, *config, str(seed), str(repetition))
                if key in done:
                    continue
                result = run(suite, folder)
                if result is None:
                    continue
                row = dict(
                    zip(COLUMNS, (*key, round(result[0], 6), round(result[2], 6)), strict=True)
                )
                with path.open("a", newline="") as handle:
                    csv.DictWriter(handle, COLUMNS).writerow(row)


def report(out: Path, first: tuple[str, str], second: tuple[str, str]) -> list[str]:
    """Per subject: each profiled suite's median seconds and CPU seconds over its repetitions,
    and ``first`` against ``second`` (rank-sum over the repetitions, A12)."""
    rows = list(_read_rows(out / "profile.csv"))
    if not rows:
        return []
    lines = ["", "# Profiled median-coverage suites (the paper's runtime measure)", ""]
    lines.append(
        "Per subject and configuration, the suite with the median branch coverage over the seeds, "
        "run in fresh pytest processes in turns with the other configurations' suites. Seconds: "
        "the tests' own time (setup, call, teardown); CPU: the calls' CPU seconds."
    )
    lines += ["", "| subject | configuration | seed | runs | median s | median CPU s |"]
    lines.append("|---|---|---|---|---|---|")
    by_config: dict[tuple[str, str, str], list[dict]] = {}
    for row in rows:
        by_config.setdefault((row["subject"], row["algorithm"], row["criteria"]), []).append(row)
    for (subject, algorithm, criteria), runs in by_config.items():
        seconds = [float(r["suite_seconds"]) for r in runs]
        cpu = [float(r["cpu"]) for r in runs]
        lines.append(
            f"| {subject} | {algorithm} ({criteria}) | {runs[0]['seed']} | {len(runs)} | "
            f"{statistics.median(seconds):.4g} | {statistics.median(cpu):.4g} |"
        )
    lines += [
        "",
        f"{first[0]} vs {second[0]} (rank-sum over the repetitions; A12 < 0.5: faster):",
        "",
    ]
    for subject in dict.fromkeys(r["subject"] for r in rows):
        a, b = by_config.get((subject, *first)), by_config.get((subject, *second))
        if not a or not b:
            continue
        for measure in ("suite_seconds", "cpu"):
            x, y = [float(r[measure]) for r in a], [float(r[measure]) for r in b]
            lines.append(
                f"- {subject}, {measure}: {statistics.median(x):.4g} vs {statistics.median(y):.4g}, "
                f"p = {stats.rank_sum(x, y):.3f}, A12 = {stats.a12(x, y):.2f}"
            )
    return lines


def _read(path: Path) -> set[tuple[str, ...]]:
    return {
        (r["subject"], r["algorithm"], r["criteria"], r["seed"], r["repetition"])
        for r in _read_rows(path)
    }


def _read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))
