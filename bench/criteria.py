"""Per-criterion coverage of the search algorithms and goal selections (issue 15), by command.

    .venv/bin/python -m bench.criteria --subjects triangle expint gammq \\
        --algorithms mio dynamosa adynamosa --criteria smart --seeds 3 --evaluations 2000

Each run is ``miogen generate <subject> --json`` in a fresh process on a fresh copy of the
subject (every unit of the module gets the budget), so a run is exactly what a user gets. From
its summary come, per criterion, the goals the emitted suite covers out of all goals of the
criterion (summed over the module's units; branch and line measured by coverage.py, the rest by
miogen on the emitted tests), the number of tests, and three costs of the emitted suite, each
measured in fresh pytest processes by bench/runtime_plugin.py: ``suite_seconds``, the median over
``--runtime-runs`` runs of the tests' own time (setup, call and teardown; interpreter start and
collection left out); ``call_cpu_seconds``, the median CPU seconds of the test calls alone (it
moves less with the machine's load); and ``suite_lines``, the lines of the module under test the
calls execute (one traced run; aDynaMOSA's I5 over the suite as emitted, independent of load).
A seed's configurations run back to back and their suites are timed in turns, so the load of a
shared machine falls on all alike. Every run's subject copy and suite stay under ``--suites``;
at the end each configuration's median-coverage suite is run ``--profile-runs`` times (30), in
turns (bench/suite_profile.py, the paper's runtime profile). Rows go to ``<out>/runs.csv`` as
runs finish (``--resume`` skips the ones there); ``<out>/summary.md`` has the medians per subject
in the layout of the aDynaMOSA paper's Table III (criteria down, algorithms across), the pairwise
tests, the issue's aim (branch loss; cost where branch coverage is equal) and the profile.

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
from dataclasses import dataclass
from pathlib import Path

from bench import realcorpus, stats, suite_profile
from bench.process import run_group
from bench.subjects import REPO, SUBJECTS, Subject

CRITERIA = (
    "branch", "direct-branch", "line", "weak-mutation", "method", "method-no-exception",
    "exception", "output",
)  # fmt: skip
COLUMNS = [
    "subject", "algorithm", "criteria", "seed", "budget", "status", "wall_seconds", "tests",
    *(f"{c}_{part}" for c in CRITERIA for part in ("covered", "total")),
    "suite_seconds", "runtime_runs", "peak_kb", "evaluations", "call_cpu_seconds", "suite_lines",
    "load1",
]  # fmt: skip
DEFAULT_OUT = REPO / "bench" / "results" / "criteria"


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows_path = args.out / "runs.csv"
    if args.report_only:
        if args.combine:
            combine(args.combine, args.out)
        write_report(args.out)
        return 0
    done = _done(rows_path) if args.resume else set()
    if not args.resume or not rows_path.exists():
        with rows_path.open("w", newline="") as handle:
            csv.DictWriter(handle, COLUMNS).writeheader()
    # Seeds outermost, and within a seed and subject every configuration's run back to back,
    # then their suites timed in turns: on a shared machine the load drifts, and every
    # configuration should see the same drift.
    for seed in range(args.seeds):
        for subject in subjects(args.subjects):
            group = [
                (algorithm, criteria)
                for algorithm, criteria in configurations(args.algorithms, args.criteria)
                if (subject.name, algorithm, criteria, str(seed)) not in done
            ]
            if not group:
                continue
            runs = [generate(subject, a, c, seed, args) for a, c in group]
            measure_suites(runs, args.runtime_runs)
            for run in runs:
                with rows_path.open("a", newline="") as handle:
                    csv.DictWriter(handle, COLUMNS).writerow(run.row)
                print(_line(run.row), flush=True)
    if args.profile_runs:
        rows = _read(rows_path)
        suite_profile.profile(args.out, args.suites, rows, args.profile_runs, _pytest_run)
    write_report(args.out)
    print(f"wrote {rows_path} and {args.out / 'summary.md'}")
    return 0


def combine(folders: list[Path], out: Path) -> None:
    """``out``'s runs.csv and profile.csv made of the rows of ``folders``' (streams run apart)."""
    for name, columns in (("runs.csv", COLUMNS), ("profile.csv", suite_profile.COLUMNS)):
        rows = [row for folder in folders for row in _read(folder / name)]
        with (out / name).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, columns)
            writer.writeheader()
            writer.writerows(rows)


def write_report(out: Path) -> None:
    """summary.md (tables, comparisons, the aims, the profiled suites) and the plots."""
    rows = _read(out / "runs.csv")
    first, second = ("adynamosa", "smart"), ("dynamosa", "smart")
    text = summarize(rows) + "\n".join(suite_profile.report(out, first, second)) + "\n"
    (out / "summary.md").write_text(text, encoding="utf-8")
    plot(rows, out / "criteria.png")


def subjects(names: list[str]) -> list[Subject]:
    """bench.subjects' subjects, or the real-code corpus's stdlib copies (``stdlib_calendar``)."""
    copies = {m.name: m for m in realcorpus.CORPUS if m.copy}
    found = []
    for name in names:
        if name in SUBJECTS:
            found.append(SUBJECTS[name])
        elif name in copies:
            module = copies[name]
            origin = f"{realcorpus.STDLIB} {module.module} (bench/realcorpus.py)"
            found.append(Subject(name, realcorpus.SUBJECTS / module.copy, origin))
        else:
            known = [*SUBJECTS, *copies]
            raise SystemExit(f"unknown subject {name}; known: {', '.join(known)}")
    return found


def configurations(algorithms: list[str], criteria: list[str]) -> list[tuple[str, str]]:
    """Every algorithm with the first goal selection, then the first algorithm with the others:
    the two comparisons the issue asks for, without their cross product.

    >>> configurations(["mio", "dynamosa"], ["smart", "branch"])
    [('mio', 'smart'), ('dynamosa', 'smart'), ('mio', 'branch')]
    """
    return [(a, criteria[0]) for a in algorithms] + [(algorithms[0], c) for c in criteria[1:]]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.criteria", description=__doc__)
    parser.add_argument("--subjects", nargs="*", default=["triangle", "expint", "gammq"])
    parser.add_argument("--algorithms", nargs="*", default=["mio", "dynamosa", "adynamosa"])
    parser.add_argument("--criteria", nargs="*", default=["smart"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--evaluations", type=int, default=2000, help="per unit (0: use --budget)")
    parser.add_argument(
        "--budget", type=float, default=5.0, help="seconds for the whole module (--evaluations 0)"
    )
    parser.add_argument("--mutation-share", type=float, default=0.0)
    parser.add_argument(
        "--runtime-runs", type=int, default=3, help="timed pytest runs of every suite"
    )
    parser.add_argument(
        "--profile-runs", type=int, default=30,
        help="timed runs of each configuration's median-coverage suite (0: none)",
    )  # fmt: skip
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument(
        "--suites", type=Path, default=Path(tempfile.gettempdir()) / "miogen-bench-criteria",
        help="where every run's subject copy and suite are kept (outside the repository, so "
        "that its pytest configuration does not apply to them)",
    )  # fmt: skip
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite summary.md from runs.csv, run nothing"
    )
    parser.add_argument(
        "--combine", type=Path, nargs="*", default=[],
        help="with --report-only: first make --out's rows of these folders' (separate streams)",
    )  # fmt: skip
    return parser


@dataclass
class Generated:
    """One ``miogen generate`` run: its row so far, and where its suite and subject copy are."""

    row: dict
    folder: Path
    module: Path | None = None
    suite: Path | None = None


def generate(subject: Subject, algorithm: str, criteria: str, seed: int, args) -> Generated:
    """One ``miogen generate`` run in a fresh folder, and its summary; the folder is kept."""
    row: dict = {
        "subject": subject.name, "algorithm": algorithm, "criteria": criteria, "seed": seed,
        "load1": round(os.getloadavg()[0], 2),
    }  # fmt: skip
    row["budget"] = f"{args.evaluations} evaluations" if args.evaluations else f"{args.budget} s"
    folder = suite_profile.suite_folder(args.suites, subject.name, algorithm, criteria, seed)
    shutil.rmtree(folder, ignore_errors=True)  # a run left unfinished by an interrupted bench
    folder.mkdir(parents=True)
    path = subject.install(folder)
    output = folder / f"test_{path.stem}.py"
    base, _, flag = algorithm.partition("+")  # "mio+performance": MIO with --performance
    command = [
        sys.executable, "-m", "miogen.cli", "generate", str(path), "--json", "--no-baseline",
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
        return Generated(row, folder)
    summary = json.loads(summary_file.read_text())
    row["status"] = "ok" if code == 0 else f"exit {code}"
    row.update(_criteria_columns(summary))
    row["tests"] = sum(unit["tests"] for unit in summary["units"])
    row["evaluations"] = sum(unit["evaluations"] for unit in summary["units"])
    return Generated(row, folder, path, output if output.exists() else None)


def measure_suites(runs: list[Generated], repetitions: int) -> None:
    """Each suite's production lines (one traced run), then ``repetitions`` timed runs in turns.

    Round-robin (every suite's first run, then every suite's second ...) so that a burst of load
    from the other users of the machine falls on all configurations alike.
    """
    timed = [run for run in runs if run.suite is not None]
    for run in timed:
        counted = _pytest_run(run.suite, run.folder, count=run.module)
        if counted is not None:
            run.row["suite_lines"] = counted[3]
    results: dict[int, list[tuple[float, int, float, int]]] = {id(run): [] for run in timed}
    for _ in range(repetitions):
        for run in timed:
            result = _pytest_run(run.suite, run.folder)
            if result is not None:
                results[id(run)].append(result)
    for run in timed:
        measured = results[id(run)]
        if measured:
            run.row["suite_seconds"] = round(statistics.median(r[0] for r in measured), 5)
            run.row["peak_kb"] = int(statistics.median(r[1] for r in measured))
            run.row["call_cpu_seconds"] = round(statistics.median(r[2] for r in measured), 5)
        run.row["runtime_runs"] = len(measured)


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


def _pytest_run(
    test_file: Path, folder: Path, count: Path | None = None
) -> tuple[float, int, float, int] | None:
    """One fresh pytest process over the suite (bench/runtime_plugin.py): the tests' own seconds,
    its peak resident memory in KB, the CPU seconds of the test calls, and, with ``count``, the
    lines of that module the calls executed; None when it failed."""
    result = folder / "runtime.txt"
    result.unlink(missing_ok=True)
    environment = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(REPO)]),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", MIOGEN_RUNTIME_FILE=str(result),
    )  # fmt: skip
    if count is not None:
        environment["MIOGEN_COUNT_FILE"] = str(count)
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
    seconds, peak, cpu, lines = result.read_text().split()
    return float(seconds), int(peak), float(cpu), int(lines)


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


# Criteria whose goals are known before the search (a unit without emitted tests may leave its
# goals out of a run's sum: runs before a fix did, see ``complete_totals``).
STATIC = ("direct-branch", "weak-mutation", "method", "method-no-exception")


def complete_totals(rows: list[dict]) -> list[dict]:
    """Static criteria's totals per subject set to the largest any run reported.

    A static criterion has the same goals in every run of a subject; a run whose sum is smaller
    left out a unit that emitted no tests (its goals are all uncovered).
    """
    largest: dict[tuple[str, str], int] = {}
    for row in rows:
        for criterion in STATIC:
            key = (row["subject"], criterion)
            largest[key] = max(largest.get(key, 0), int(row.get(f"{criterion}_total") or 0))
    return [{**row, **{f"{c}_total": largest[(row["subject"], c)] for c in STATIC}} for row in rows]


def summarize(rows: list[dict]) -> str:
    """Medians per subject: criteria down, (algorithm, criteria) across; then tests and runtime."""
    rows = complete_totals(rows)
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
        columns = (*CRITERIA, "tests", "suite_seconds", "call_cpu_seconds", "suite_lines")
        for criterion in (*columns, "peak_kb", "wall_seconds", "load1"):
            cells = [criterion]
            for algorithm, criteria in configs:
                runs = [
                    r for r in chosen if (r["algorithm"], r["criteria"]) == (algorithm, criteria)
                ]
                cells.append(_cell(runs, criterion))
            lines.append("| " + " | ".join(cells) + " |")
    lines += comparisons(rows)
    lines += verdict(rows)
    return "\n".join(lines) + "\n"


# (first, second) configurations compared, when a run has both: aDynaMOSA and its ablation
# against DynaMOSA, MIO against the others, smart selection against all criteria and branches.
PAIRS = (
    (("adynamosa", "smart"), ("dynamosa", "smart")),
    (("adynamosa-nonadaptive", "smart"), ("dynamosa", "smart")),
    (("adynamosa", "smart"), ("adynamosa-nonadaptive", "smart")),
    (("mio", "smart"), ("dynamosa", "smart")),
    (("mio", "smart"), ("adynamosa", "smart")),
    (("mio", "smart"), ("random", "smart")),
    (("mio", "smart"), ("mio", "all")),
    (("mio", "smart"), ("mio", "branch")),
)
COMPARED = (
    "branch", "line", "weak-mutation", "exception", "output", "suite_seconds", "call_cpu_seconds",
    "suite_lines", "tests",
)  # fmt: skip


def comparisons(rows: list[dict]) -> list[str]:
    """Per subject and pair: medians, the rank-sum test's p and A12 (first vs second)."""
    lines = ["", "# Pairwise comparisons (Wilcoxon rank-sum, Vargha-Delaney A12)", ""]
    lines.append(
        "A12 > 0.5: the first configuration's values tend to be larger (better for coverage, "
        "worse for suite_seconds and tests). Coverage in percent of the criterion's goals; "
        "exception: goals found."
    )
    for subject in dict.fromkeys(row["subject"] for row in rows):
        ok = [r for r in rows if r["subject"] == subject and r["status"] == "ok"]
        pairs = [p for p in PAIRS if _runs(ok, p[0]) and _runs(ok, p[1])]
        if not pairs:
            continue
        lines += [
            "",
            f"## {subject}",
            "",
            "| first vs second | metric | first | second | p | A12 |",
        ]
        lines.append("|---|---|---|---|---|---|")
        for first, second in pairs:
            label = f"{first[0]} ({first[1]}) vs {second[0]} ({second[1]})"
            for metric in COMPARED:
                a, b = (
                    metric_values(_runs(ok, first), metric),
                    metric_values(_runs(ok, second), metric),
                )
                if not a or not b:
                    continue
                effect = stats.a12(a, b)
                lines.append(
                    f"| {label} | {metric} | {statistics.median(a):.4g} | "
                    f"{statistics.median(b):.4g} | {stats.rank_sum(a, b):.3f} | "
                    f"{effect:.2f} ({stats.magnitude(effect)}) |"
                )
    return lines


COST = ("suite_seconds", "call_cpu_seconds", "suite_lines")  # lower is cheaper
EQUAL_P = 0.05  # branch coverage counts as equal when the rank-sum test finds no difference


def verdict(rows: list[dict], base: tuple[str, str] = ("dynamosa", "smart")) -> list[str]:
    """The issue's aim per subject: branch points lost against ``base`` (medians), whether
    branch coverage is equal (rank-sum p >= 0.05, the paper's rule for which classes it
    profiles), and where it is, whether the median cost is lower, per cost measure."""
    rows = complete_totals([r for r in rows if r["status"] == "ok"])
    header = " | ".join(f"{c}: variant vs base (p, A12)" for c in COST)
    lines = ["", f"# Against {base[0]} ({base[1]}): branch loss, and cost where branch is equal"]
    lines += [
        "",
        "Loss: the baseline's median branch % minus the variant's (the aim: at most 2 points). "
        "Equal: branch rank-sum p >= 0.05. A12 < 0.5: the variant's cost tends to be lower.",
        "",
        f"| variant | subject | loss (points) | branch p | equal | {header} |",
        "|---|---|---|---|---|" + "---|" * len(COST),
    ]
    totals: list[str] = []
    for variant in (("adynamosa", "smart"), ("adynamosa-nonadaptive", "smart")):
        equal_subjects, cheaper = 0, dict.fromkeys(COST, 0)
        for subject in dict.fromkeys(row["subject"] for row in rows):
            ok = [r for r in rows if r["subject"] == subject]
            mine, theirs = _runs(ok, variant), _runs(ok, base)
            if not mine or not theirs:
                continue
            a, b = metric_values(mine, "branch"), metric_values(theirs, "branch")
            loss, p = statistics.median(b) - statistics.median(a), stats.rank_sum(a, b)
            equal = p >= EQUAL_P
            equal_subjects += equal
            cells = [variant[0], subject, f"{loss:+.1f}", f"{p:.3f}", "yes" if equal else "no"]
            for cost in COST:
                x, y = metric_values(mine, cost), metric_values(theirs, cost)
                if not x or not y:
                    cells.append("")
                    continue
                cheaper[cost] += equal and statistics.median(x) < statistics.median(y)
                cells.append(
                    f"{statistics.median(x):.4g} vs {statistics.median(y):.4g} "
                    f"({stats.rank_sum(x, y):.3f}, {stats.a12(x, y):.2f})"
                )
            lines.append("| " + " | ".join(cells) + " |")
        shares = ", ".join(f"{c} {cheaper[c]}/{equal_subjects}" for c in COST)
        totals.append(f"- {variant[0]}: cheaper on the equal-branch subjects by {shares}.")
    return [*lines, "", *totals]


def _runs(rows: list[dict], config: tuple[str, str]) -> list[dict]:
    return [r for r in rows if (r["algorithm"], r["criteria"]) == config]


def metric_values(runs: list[dict], metric: str) -> list[float]:
    """One value per run: percent covered for a criterion (goals found for exceptions)."""
    if metric in CRITERIA:
        values = []
        for run in runs:
            covered, total = int(run[f"{metric}_covered"] or 0), int(run[f"{metric}_total"] or 0)
            if metric == "exception":
                values.append(float(covered))
            else:
                values.append(100.0 * covered / total if total else 100.0)
        return values
    return [float(r[metric]) for r in runs if r.get(metric) not in (None, "")]


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


def plot(rows: list[dict], path: Path) -> None:
    """Box plots per subject: branch coverage, output coverage and suite runtime per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = complete_totals([r for r in rows if r["status"] == "ok"])
    subjects = list(dict.fromkeys(r["subject"] for r in rows))
    if not subjects:
        return
    metrics = (("branch", "branch %"), ("output", "output %"), ("suite_seconds", "suite s"))
    figure, axes = plt.subplots(
        len(subjects), len(metrics), figsize=(15, 3.6 * len(subjects)), squeeze=False
    )
    for row_axes, subject in zip(axes, subjects, strict=True):
        chosen = [r for r in rows if r["subject"] == subject]
        configs = list(dict.fromkeys((r["algorithm"], r["criteria"]) for r in chosen))
        labels = [f"{a}\n({c})" for a, c in configs]
        for axis, (metric, name) in zip(row_axes, metrics, strict=True):
            data = [metric_values(_runs(chosen, config), metric) for config in configs]
            axis.boxplot(data, tick_labels=labels)
            axis.set_title(f"{subject}: {name}", fontsize=9)
            axis.tick_params(axis="x", labelsize=6, labelrotation=30)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


if __name__ == "__main__":
    sys.exit(main())
