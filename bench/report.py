"""Tables and plots from a run's raw data (runs.csv, timelines.json, mutation.csv, machine.json).

Every coverage figure in the tables is coverage.py's measurement of the emitted test file;
the tools' own claims appear only in the column that says so and in the dotted curves.
"""

from __future__ import annotations

import csv
import json
import statistics
from collections import defaultdict
from pathlib import Path

from bench.run import PEERS, read_rows
from bench.subjects import CLASSIC_SUBJECTS, SUBJECTS

LABELS = {
    "mio": "miogen MIO",
    "random": "miogen random",
    "wts": "miogen WTS",
    "mio-nofds": "miogen MIO-noFDS",
    "mio-lean": "miogen MIO, pytest plugins off",
    "pynguin-mio": "Pynguin MIO",
    "pynguin-dynamosa": "Pynguin DynaMOSA",
}
# MIO paper, Table 1: raw covered statements + branches, mean of 100 runs at 5,000 evaluations.
PAPER_TABLE1 = {
    "expint": {"MIO": 63.7, "WTS": 62.5, "MOSA": 63.2, "RAND": 38.7},
    "gammq": {"MIO": 69.1, "WTS": 67.2, "MOSA": 65.9, "RAND": 32.0},
    "triangle": {"MIO": 38.9, "WTS": 35.7, "MOSA": 37.8, "RAND": 31.7},
}
NUMERIC = [
    "wall_seconds", "search_seconds", "executions", "executions_per_second", "claimed_percent",
    "branches_covered", "branches_total", "branch_percent", "statements_covered",
    "statements_total", "coveragepy_percent", "raw_covered", "targets_covered", "targets_total",
    "targets_percent", "tests", "statements", "tests_passed", "tests_failed",
]  # fmt: skip
AIM_SPEEDUP = 20.0
AIM_WALL_SLACK = 1.0
AIM_RATE = 3000.0


# ---- aggregation ---------------------------------------------------------------------------


def aggregate(rows: list[dict]) -> dict[tuple, dict]:
    """Mean of every numeric column per (subject, tool, budget_kind, budget), with the spread."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["subject"], row["tool"], row["budget_kind"], int(row["budget"])].append(row)
    result = {}
    for key, members in groups.items():
        values = {c: [float(m[c]) for m in members if m[c] not in ("", None)] for c in NUMERIC}
        cell = {c: statistics.fmean(v) if v else 0.0 for c, v in values.items()}
        branch = values["branch_percent"] or [0.0]
        cell.update(
            runs=len(members),
            failed_runs=sum(m["status"] != "ok" for m in members),
            branch_min=min(branch),
            branch_max=max(branch),
            wall_max=max(values["wall_seconds"] or [0.0]),
            messages=sorted({m["message"] for m in members if m["message"]}),
        )
        result[key] = cell
    return result


def rate(rows: list[dict], subject: str, tools: list[str], kinds=("seconds",)) -> float:
    """Executions per second of search: all executions over all search seconds."""
    chosen = [
        r for r in rows
        if r["subject"] == subject and r["tool"] in tools and r["budget_kind"] in kinds
    ]  # fmt: skip
    seconds = sum(float(r["search_seconds"] or 0) for r in chosen)
    return sum(float(r["executions"] or 0) for r in chosen) / seconds if seconds else 0.0


def budgets_of(cells: dict, tool: str, kind: str = "seconds") -> list[int]:
    return sorted({b for (_, t, k, b) in cells if t == tool and k == kind})


def pick(cells: dict, subject: str, tool: str, budget: int) -> dict | None:
    return cells.get((subject, tool, "seconds", budget))


def peer_best(cells: dict, subject: str, budget: int) -> tuple[str, dict] | None:
    """Pynguin's better algorithm (by mean branch coverage) at ``budget``."""
    found = [(t, pick(cells, subject, t, budget)) for t in PEERS]
    found = [(t, c) for t, c in found if c]
    return max(found, key=lambda item: item[1]["branch_percent"], default=None)


# ---- markdown ------------------------------------------------------------------------------


def fmt(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}"


def table(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in body]
    return "\n".join(lines)


def headline(rows: list[dict], cells: dict, wanted: int = 5) -> tuple[str, list[str]]:
    """The issue's aims per subject; returns the table and the list of aims missed.

    Ours at ``wanted`` seconds (or the run's nearest budget) against Pynguin's best algorithm
    at its largest budget.
    """
    ours_budgets = budgets_of(cells, "mio") or [wanted]
    ours_budget = min(ours_budgets, key=lambda b: (abs(b - wanted), b))
    peer_budget = max((b for t in PEERS for b in budgets_of(cells, t)), default=0)
    body, missed = [], []
    subjects = [s for s in SUBJECTS if any(k[0] == s for k in cells)]
    for subject in subjects:
        ours = pick(cells, subject, "mio", ours_budget)
        best = peer_best(cells, subject, peer_budget)
        if ours is None:
            continue
        our_rate, peer_rate = rate(rows, subject, ["mio"]), rate(rows, subject, PEERS)
        ratio = our_rate / peer_rate if peer_rate else float("nan")
        peer_cov = best[1]["branch_percent"] if best else float("nan")
        covered_ok = best is not None and ours["branch_percent"] >= peer_cov - 1e-9
        wall_ok = ours["wall_max"] <= ours_budget + AIM_WALL_SLACK
        if best and not covered_ok:
            missed.append(
                f"{subject}: branch coverage at {ours_budget} s is {fmt(ours['branch_percent'])} %, "
                f"Pynguin's best at {peer_budget} s is {fmt(peer_cov)} % ({LABELS[best[0]]})"
            )
        if peer_rate and ratio < AIM_SPEEDUP:
            missed.append(
                f"{subject}: executions per second {ratio:.1f}x Pynguin's (aim {AIM_SPEEDUP:g}x)"
            )
        if not wall_ok:
            missed.append(
                f"{subject}: wall time at {ours_budget} s up to {fmt(ours['wall_max'])} s "
                f"(aim: at most {ours_budget + AIM_WALL_SLACK:g} s)"
            )
        body.append(
            [
                subject,
                f"{fmt(ours['branch_percent'])} ({fmt(ours['branch_min'], 0)}–{fmt(ours['branch_max'], 0)})",
                f"{fmt(peer_cov)} ({LABELS[best[0]].split()[1]})" if best else "not run",
                ("yes" if covered_ok else "**no**") if best else "–",
                fmt(our_rate, 0),
                fmt(peer_rate, 0) if peer_rate else "–",
                (f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x") if peer_rate else "–",
                f"{fmt(ours['wall_seconds'])} (max {fmt(ours['wall_max'])})",
                f"{fmt(best[1]['wall_seconds'])} (max {fmt(best[1]['wall_max'])})" if best else "–",
            ]
        )
    header = [
        "subject",
        f"miogen MIO @{ours_budget} s: branch % (min–max)",
        f"Pynguin best @{peer_budget} s: branch %",
        "aim ≥ met",
        "miogen exec/s",
        "Pynguin exec/s",
        f"ratio (aim ≥ {AIM_SPEEDUP:g}x)",
        f"miogen wall @{ours_budget} s (aim ≤ {ours_budget + AIM_WALL_SLACK:g})",
        f"Pynguin wall @{peer_budget} s",
    ]
    return table(header, body), missed


def matrix(cells: dict) -> str:
    body = []
    for (subject, tool, kind, budget), c in sorted(
        cells.items(),
        key=lambda kv: (
            list(SUBJECTS).index(kv[0][0]),
            kv[0][2],
            kv[0][3],
            list(LABELS).index(kv[0][1]),
        ),  # fmt: skip
    ):
        if kind != "seconds":
            continue
        notes = []
        if c["failed_runs"]:
            notes.append(f"{c['failed_runs']} run(s) not ok: " + "; ".join(c["messages"])[:160])
        if c["tests_failed"]:
            notes.append(f"{fmt(c['tests_failed'])} failing tests")
        body.append(
            [
                subject, LABELS[tool], f"{budget} s", c["runs"],
                f"{fmt(c['branches_covered'])}/{int(c['branches_total'])}",
                fmt(c["branch_percent"]), fmt(c["coveragepy_percent"]),
                fmt(c["targets_percent"]), fmt(c["claimed_percent"]), fmt(c["tests"]),
                fmt(c["statements"]), fmt(c["executions_per_second"], 0),
                fmt(c["search_seconds"], 2), fmt(c["wall_seconds"]), " ".join(notes),
            ]
        )  # fmt: skip
    header = [
        "subject", "tool", "budget", "runs", "branches (coverage.py)", "branch %",
        "coverage.py total %", "miogen targets %", "tool's own claim %", "tests",
        "test statements", "exec/s", "search s", "wall s", "notes",
    ]  # fmt: skip
    return table(header, body)


def table1(cells: dict) -> str:
    body = []
    order = [("mio", "MIO"), ("wts", "WTS"), ("mio-nofds", None), ("random", "RAND")]
    for subject in CLASSIC_SUBJECTS:
        found = [cells.get((subject, tool, "evaluations", 5000)) for tool, _ in order]
        if not any(found):
            continue
        total = next(
            int(c["statements_total"] + c["branches_total"]) for c in found if c is not None
        )
        ours = [
            f"{fmt(c['raw_covered'])} ({fmt(100 * c['raw_covered'] / total, 0)} %)" if c else "–"
            for c in found
        ]
        paper = PAPER_TABLE1[subject]
        body.append(
            [subject, str(total), *ours, *(fmt(paper[k]) for k in ("MIO", "WTS", "MOSA", "RAND"))]
        )
    header = [
        "function", "statements + branches (Python)", "miogen MIO", "miogen WTS",
        "miogen MIO-noFDS", "miogen RAND", "paper MIO", "paper WTS", "paper MOSA", "paper RAND",
    ]  # fmt: skip
    return table(header, body)


def mutation_table(out: Path) -> tuple[str, list[str]]:
    rows = read_plain(out / "mutation.csv")
    if not rows:
        return "", []
    reference = next((r for r in rows if r["suite"] == "reference"), None)
    body, missed = [], []
    for row in rows:
        tests_ratio = statements_ratio = ""
        if reference and row["suite"] != "reference":
            tests_ratio = fmt(int(row["tests"]) / max(1, int(reference["tests"])), 2)
            statements_ratio = fmt(int(row["statements"]) / max(1, int(reference["statements"])), 2)
        body.append(
            [
                row["suite"], row["tests"], tests_ratio, row["statements"], statements_ratio,
                row["branch_percent"], row["mutants"], row["killed"], row["survived"],
                row["incompetent"], row["score"], row["unit_score"], row["seconds"],
            ]
        )  # fmt: skip
        if row["suite"] == "miogen":
            if row["score"] and float(row["score"]) < 80:
                missed.append(f"triangle mutation score {row['score']} % (aim ≥ 80 %)")
            if tests_ratio and float(tests_ratio) > 1.5:
                missed.append(
                    f"triangle suite has {tests_ratio}x the reference's tests (aim ≤ 1.5x)"
                )
            if statements_ratio and float(statements_ratio) > 2:
                missed.append(
                    f"triangle suite has {statements_ratio}x the reference's statements (aim ≤ 2x)"
                )
    header = [
        "suite", "tests", "tests vs reference", "statements", "statements vs reference",
        "branch %", "mutants", "killed", "survived", "incompetent", "score %",
        "score % (mutants in units)", "seconds",
    ]  # fmt: skip
    return table(header, body), missed


def wall_table(cells: dict) -> str:
    body = []
    for tool in ["mio", "mio-lean", *PEERS]:
        for budget in budgets_of(cells, tool):
            group = [
                c
                for (s, t, k, b), c in cells.items()
                if t == tool and b == budget and k == "seconds"
            ]
            walls = [c["wall_seconds"] for c in group]
            worst = max(c["wall_max"] for c in group)
            body.append(
                [LABELS[tool], f"{budget} s", fmt(statistics.fmean(walls)),
                 fmt(worst), fmt(statistics.fmean(walls) - budget)]
            )  # fmt: skip
    return table(["tool", "budget", "mean wall s", "max wall s", "mean overhead s"], body)


def rate_table(rows: list[dict]) -> tuple[str, list[str]]:
    subjects = [s for s in SUBJECTS if any(r["subject"] == s for r in rows)]
    body, missed = [], []
    for subject in subjects:
        rates = [rate(rows, subject, [tool]) for tool in LABELS]
        by_evaluations = rate(rows, subject, ["mio"], ("evaluations",))
        overall = rate(rows, subject, ["mio"], ("seconds", "evaluations"))
        cells = [fmt(r, 0) if r else "–" for r in (*rates, by_evaluations, overall)]
        body.append([subject, *cells])
        if subject in CLASSIC_SUBJECTS and overall and overall < AIM_RATE:
            missed.append(
                f"{subject}: {fmt(overall, 0)} executions/s with MIO over all its runs "
                f"(issue #2 aim ≥ {AIM_RATE:g} per worker)"
            )
    header = ["subject", *(f"{label} (time budgets)" for label in LABELS.values())]
    header += ["miogen MIO (5,000 evaluations)", "miogen MIO, all runs"]
    return table(header, body), missed


def read_plain(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


# ---- plots ---------------------------------------------------------------------------------

COLOURS = {
    "mio": "tab:blue", "random": "tab:gray", "wts": "tab:green", "mio-nofds": "tab:cyan", "mio-lean": "tab:purple",
    "pynguin-mio": "tab:red", "pynguin-dynamosa": "tab:orange",
}  # fmt: skip


def plot_curves(cells: dict, timelines: dict, out: Path) -> list[Path]:
    """One PNG per subject: coverage.py-measured branch % against the budget, per tool."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for subject in SUBJECTS:
        tools = [
            t
            for t in LABELS
            if budgets_of(cells, t) and pick(cells, subject, t, budgets_of(cells, t)[0])
        ]
        if not tools:
            continue
        figure, axis = plt.subplots(figsize=(9.5, 4.2))
        for tool in tools:
            budgets = [b for b in budgets_of(cells, tool) if pick(cells, subject, tool, b)]
            means = [pick(cells, subject, tool, b)["branch_percent"] for b in budgets]
            lows = [pick(cells, subject, tool, b)["branch_min"] for b in budgets]
            highs = [pick(cells, subject, tool, b)["branch_max"] for b in budgets]
            axis.plot(budgets, means, marker="o", color=COLOURS[tool], label=LABELS[tool])
            if len(budgets) > 1:
                axis.fill_between(budgets, lows, highs, color=COLOURS[tool], alpha=0.12)
            claimed = _longest_timeline(timelines, subject, tool)
            if claimed and tool in ("mio", *PEERS):
                xs, ys = zip(*[(max(t, 0.05), y) for t, y in claimed], strict=True)
                axis.step(xs, ys, where="post", linestyle=":", color=COLOURS[tool], alpha=0.8,
                          label=f"{LABELS[tool]}: own claim during search")  # fmt: skip
        axis.set_xscale("log")
        axis.set_xlabel("budget (s, log scale); dotted: seconds of search")
        axis.set_ylabel("branch coverage %")
        axis.set_ylim(0, 102)
        axis.set_title(f"{subject}: coverage.py-measured branch coverage of the emitted tests")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
        figure.tight_layout()
        path = out / f"curve-{subject}.png"
        figure.savefig(path, dpi=110)
        plt.close(figure)
        written.append(path)
    return written


def _longest_timeline(timelines: dict, subject: str, tool: str) -> list:
    """The seed-0 timeline of the largest seconds budget, in seconds of search."""
    best, best_budget = [], -1
    for key, points in timelines.items():
        subject_part, _, rest = key.partition("/")
        name, _, tail = rest.rpartition("-seed")
        tool_part, _, budget = name.rpartition("-")
        if subject_part == subject and tool_part == tool and tail == "0" and budget.endswith("s"):
            if budget[:-1].isdigit() and int(budget[:-1]) > best_budget and points:
                best, best_budget = points, int(budget[:-1])
    return best


def plot_speed_and_wall(rows: list[dict], cells: dict, out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    subjects = [s for s in SUBJECTS if any(r["subject"] == s for r in rows)]
    tools = [
        t for t in LABELS if any(r["tool"] == t and r["budget_kind"] == "seconds" for r in rows)
    ]
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
    width = 0.8 / max(1, len(tools))
    for index, tool in enumerate(tools):
        values = [rate(rows, s, [tool]) for s in subjects]
        positions = [i + index * width for i in range(len(subjects))]
        left.bar(positions, values, width, color=COLOURS[tool], label=LABELS[tool])
    left.set_yscale("log")
    left.set_xticks([i + 0.4 - width / 2 for i in range(len(subjects))], subjects, fontsize=8)
    left.set_ylabel("test executions per second of search (log)")
    left.set_title("Search speed")
    left.legend(fontsize=7)
    left.grid(alpha=0.3, axis="y")
    for tool in ["mio", *PEERS]:
        budgets = budgets_of(cells, tool)
        if not budgets:
            continue
        groups = [
            [c for (s, t, k, b), c in cells.items() if t == tool and b == x and k == "seconds"]
            for x in budgets
        ]
        means = [statistics.fmean(c["wall_seconds"] for c in g) for g in groups]
        worst = [max(c["wall_max"] for c in g) for g in groups]
        right.plot(budgets, means, marker="o", color=COLOURS[tool], label=f"{LABELS[tool]} mean")
        right.plot(budgets, worst, marker="^", linestyle="--", color=COLOURS[tool], alpha=0.6,
                   label=f"{LABELS[tool]} max")  # fmt: skip
    every = sorted({int(r["budget"]) for r in rows if r["budget_kind"] == "seconds"})
    right.plot(every, [b + AIM_WALL_SLACK for b in every], color="black", linewidth=1,
               label="aim: budget + 1 s")  # fmt: skip
    right.set_xlabel("budget (s)")
    right.set_ylabel("wall seconds, whole process")
    right.set_title("Wall time (start-up, search, post-processing)")
    right.legend(fontsize=7)
    right.grid(alpha=0.3)
    figure.tight_layout()
    path = out / "speed-and-wall.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


# ---- the report ----------------------------------------------------------------------------


def build(out: Path, link_base: str = "") -> tuple[str, list[str]]:
    """Write the PNGs into ``out`` and return the markdown body and the aims missed.

    Image links are ``link_base`` + file name (empty: next to the markdown file in ``out``).
    A hand-written ``notes.md`` in ``out``, if present, goes right after the aims.
    """
    rows = read_rows(out / "runs.csv")
    timelines_path = out / "timelines.json"
    timelines = json.loads(timelines_path.read_text()) if timelines_path.exists() else {}
    machine = read_json(out / "machine.json")
    cells = aggregate(rows)
    curves = plot_curves(cells, timelines, out)
    speed = plot_speed_and_wall(rows, cells, out) if rows else None
    head, missed = headline(rows, cells)
    rates, rate_missed = rate_table(rows)
    mutants, mutation_missed = mutation_table(out)
    missed = missed + rate_missed + mutation_missed
    wall_missed = [
        f"wall time at {b} s: mean {fmt(c['wall_seconds'])} s over subjects"
        for b in budgets_of(cells, "mio")
        for c in [_mean_over_subjects(cells, "mio", b)]
        if c and c["wall_seconds"] > b + AIM_WALL_SLACK
    ]
    missed += wall_missed
    missed += [
        f"run not ok: {r['subject']} {LABELS.get(r['tool'], r['tool'])} {r['budget']}"
        f"{' s' if r['budget_kind'] == 'seconds' else ' evaluations'} seed {r['seed']}: "
        f"{r['status']} ({r['message'][:120]})"
        for r in rows
        if r["status"] != "ok"
    ]
    rel = lambda p: link_base + p.name  # noqa: E731
    notes = out / "notes.md"
    parts = [
        "## Headline: the aims of issue #8",
        head,
        "## Where we are behind",
        "\n".join(f"- {m}" for m in missed) if missed else "- nothing: every aim is met",
        notes.read_text(encoding="utf-8").strip() if notes.exists() else "",
        "## Coverage over time (one plot per subject)",
        "\n".join(f"![{p.stem}]({rel(p)})" for p in curves),
        "## Executions per second of search (all budgets, all seeds)",
        rates,
        f"![speed and wall time]({rel(speed)})" if speed else "",
        "## Wall time per budget (whole process; mean over subjects and seeds)",
        wall_table(cells),
        "## Every configuration (mean over seeds)",
        matrix(cells),
        "## MIO paper, Table 1 style: 5,000 evaluations, raw statements + branches covered",
        table1(cells),
        "## Triangle: mutation score (cosmic-ray) and suite size against the hand-minimised suite",
        mutants or "(not run)",
        "## Machine and versions",
        "```\n" + json.dumps(machine, indent=1) + "\n```",
    ]
    return "\n\n".join(parts) + "\n", missed


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _mean_over_subjects(cells: dict, tool: str, budget: int) -> dict | None:
    group = [c for (s, t, k, b), c in cells.items() if t == tool and b == budget and k == "seconds"]
    if not group:
        return None
    return {"wall_seconds": statistics.fmean(c["wall_seconds"] for c in group)}


def write(out: Path) -> Path:
    body, _ = build(out)
    path = out / "report.md"
    path.write_text(f"# Benchmark report ({out.name})\n\n" + body, encoding="utf-8")
    return path
