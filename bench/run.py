"""The benchmark run: subjects x tools x budgets x seeds, each suite measured by coverage.py.

One job = one tool on one subject with one budget and seed, in its own folder under
``<out>/runs/``: the subject is copied there, the tool writes its test file there, and
``bench.measure`` runs that file under pytest + coverage.py. Rows go to ``<out>/runs.csv`` as
jobs finish, so an interrupted run keeps what it did and ``--resume`` skips those jobs.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import mutation, pynguin
from bench.measure import SuiteMeasure, measure_suite
from bench.process import run_group
from bench.subjects import CLASSIC_SUBJECTS, REPO, SUBJECTS, Subject

OURS = ["mio", "random", "wts", "mio-nofds"]
# Diagnostic variant: MIO with pytest's plugin autoload off in miogen's verification runs, to
# show what the dev venv's plugins cost in wall time (same search, same emitted tests).
LEAN = "mio-lean"
PEERS = list(pynguin.ALGORITHMS)
TOOLS = OURS + PEERS
REFERENCE = Path(__file__).resolve().parent / "reference" / "triangle_reference.py"

COLUMNS = [
    "subject", "tool", "budget_kind", "budget", "seed", "status", "message",
    "wall_seconds", "search_seconds", "executions", "executions_per_second", "claimed_percent",
    "branches_covered", "branches_total", "branch_percent", "statements_covered",
    "statements_total", "coveragepy_percent", "raw_covered", "targets_covered", "targets_total",
    "targets_percent", "tests", "statements", "tests_passed", "tests_failed", "load_average",
    "test_file",
]  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """What one run does; QUICK and FULL are the two presets of ``python -m bench run``."""

    name: str
    subjects: tuple[str, ...]
    seeds: int  # MIO (ours)
    pynguin_seeds: int
    baseline_seeds: int
    budgets: tuple[int, ...]  # seconds, MIO (ours)
    baseline_budgets: tuple[int, ...]  # seconds, random / WTS / MIO without FDS
    pynguin_budgets: tuple[int, ...]  # seconds, Pynguin MIO and DynaMOSA
    pynguin_subjects: tuple[str, ...] | None
    table1_seeds: int
    peers: tuple[str, ...] = tuple(PEERS)
    table1_tools: tuple[str, ...] = tuple(OURS)
    table1_evaluations: int = 5000
    lean_budgets: tuple[int, ...] = ()  # seconds, the LEAN diagnostic (seed 0 only)
    mutation_suites: tuple[str, ...] = ("miogen",)
    artificial_runs: int = 0  # 0: keep bench/results/artificial as it is

    def jobs(self) -> list[Job]:
        jobs = []
        for subject in self.subjects:
            for seed in range(self.seeds):
                jobs += [Job(subject, "mio", "seconds", b, seed) for b in self.budgets]
                if seed == 0:
                    jobs += [Job(subject, LEAN, "seconds", b, seed) for b in self.lean_budgets]
                jobs += [
                    Job(subject, tool, "seconds", b, seed)
                    for tool in OURS[1:]
                    for b in self.baseline_budgets
                    if seed < self.baseline_seeds
                ]
                jobs += [
                    Job(subject, tool, "seconds", b, seed)
                    for tool in self.peers
                    for b in self.pynguin_budgets
                    if seed < self.pynguin_seeds
                    and (self.pynguin_subjects is None or subject in self.pynguin_subjects)
                ]
        for subject in (s for s in CLASSIC_SUBJECTS if s in self.subjects):
            for seed in range(self.table1_seeds):
                jobs += [
                    Job(subject, tool, "evaluations", self.table1_evaluations, seed)
                    for tool in self.table1_tools
                ]
        return sorted(jobs, key=priority)


QUICK = Plan(
    name="quick",
    subjects=tuple(SUBJECTS),
    seeds=1,
    pynguin_seeds=1,
    baseline_seeds=0,
    budgets=(2,),
    baseline_budgets=(),
    pynguin_budgets=(2,),
    pynguin_subjects=tuple(CLASSIC_SUBJECTS),
    peers=("pynguin-mio",),
    table1_seeds=1,
    table1_tools=("mio", "random"),
)
FULL = Plan(
    name="full",
    subjects=tuple(SUBJECTS),
    seeds=2,
    pynguin_seeds=1,
    baseline_seeds=1,
    budgets=(1, 5, 30),
    baseline_budgets=(5,),
    pynguin_budgets=(5, 30),
    pynguin_subjects=None,
    lean_budgets=(5,),
    table1_seeds=1,
    mutation_suites=("miogen", "reference", "pynguin-mio", "pynguin-dynamosa"),
    artificial_runs=0,
)


def priority(job: Job) -> int:
    """Headline jobs first, so that a run cut short still answers the main questions."""
    if job.budget_kind == "evaluations":
        return 3
    if job.seed > 0:
        return 4
    if (job.tool == "mio" and job.budget == 5) or (job.tool in PEERS and job.budget == 30):
        return 0
    if job.tool == "mio" or job.tool in PEERS:
        return 1
    return 2


@dataclass(frozen=True)
class Job:
    subject: str
    tool: str
    budget_kind: str  # seconds | evaluations
    budget: int
    seed: int

    @property
    def key(self) -> str:
        unit = "s" if self.budget_kind == "seconds" else "ev"
        return f"{self.subject}/{self.tool}-{self.budget}{unit}-seed{self.seed}"


@dataclass
class Outcome:
    """A tool's own report of one job, before coverage.py has its say."""

    status: str = "ok"
    message: str = ""
    wall_seconds: float = 0.0
    search_seconds: float = 0.0
    executions: int = 0
    claimed_percent: float = 0.0
    test_file: Path | None = None
    timeline: list = field(default_factory=list)  # [(seconds, percent claimed)]


def run_job(job: Job, folder: Path) -> tuple[dict, list]:
    """Run one job in a fresh ``folder``; return its CSV row and its coverage timeline."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    subject = SUBJECTS[job.subject]
    module_path = subject.install(folder / "proj")
    load = os.getloadavg()[0]
    runner = run_ours if job.tool in (*OURS, LEAN) else run_peer
    outcome = runner(job, subject, module_path, folder)
    measured = measure_suite(outcome.test_file, module_path)
    row = make_row(job, outcome, measured, folder)
    row["load_average"] = round(load, 2)
    return row, outcome.timeline


def run_ours(job: Job, subject: Subject, module_path: Path, folder: Path) -> Outcome:
    output = folder / f"test_{subject.module}_miogen.py"
    summary_path = folder / "summary.json"
    amount = ["--budget", str(job.budget)]
    if job.budget_kind == "evaluations":
        amount = ["--evaluations", str(job.budget)]
    command = [
        sys.executable, "-m", "bench.ours", str(module_path), *amount, "--seed", str(job.seed),
        "--algorithm", "mio" if job.tool == LEAN else job.tool, "--output", str(output),
        "--summary", str(summary_path),
    ]  # fmt: skip
    environment = dict(os.environ)
    if job.tool == LEAN:
        environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    limit = 10 * job.budget + 600 if job.budget_kind == "seconds" else 900
    log = folder / "miogen.log"
    with log.open("w") as sink:
        code, wall = run_group(
            command, limit, cwd=REPO, env=environment, stdout=sink, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    if code is None:
        return Outcome("timeout", f"killed after {limit} s", wall)
    if code != 0 or not summary_path.exists():
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        return Outcome("failed", " | ".join(tail)[-400:], wall)
    return ours_outcome(json.loads(summary_path.read_text()), wall, output)


def ours_outcome(summary: dict, wall: float, output: Path) -> Outcome:
    """Totals over the module's units from a `miogen generate --json` summary."""
    units = summary["units"]
    failed = [f"{u['name']}: {u['status']}" for u in units if u["status"] != "ok"]
    total = sum(u["coverage"]["total"] for u in units)
    claimed = sum(u["targets_covered"] for u in units)
    return Outcome(
        status="ok" if not failed else "unit-failed",
        message="; ".join(failed)[:400],
        wall_seconds=wall,
        search_seconds=sum(u["search_seconds"] for u in units),
        # Executions of the search only (the mutants' included), not of post-processing.
        executions=sum(u.get("search_executions", u["executions"]) for u in units),
        claimed_percent=100.0 * claimed / total if total else 100.0,
        test_file=output if output.exists() else None,
        timeline=[
            (t, 100.0 * c / summary["timeline_total"] if summary["timeline_total"] else 100.0)
            for t, c in summary.get("timeline", [])
        ],
    )


def run_peer(job: Job, subject: Subject, module_path: Path, folder: Path) -> Outcome:
    result = pynguin.run_pynguin(module_path, job.tool, job.budget, job.seed, folder)
    return Outcome(
        status=result.status,
        message=result.message,
        wall_seconds=result.wall_seconds,
        search_seconds=result.search_seconds,
        executions=result.executions,
        claimed_percent=result.claimed_percent,
        test_file=result.test_file,
        timeline=result.timeline(),
    )


def make_row(job: Job, outcome: Outcome, measured: SuiteMeasure, folder: Path) -> dict:
    row = {
        "subject": job.subject,
        "tool": job.tool,
        "budget_kind": job.budget_kind,
        "budget": job.budget,
        "seed": job.seed,
        "status": outcome.status,
        "message": outcome.message,
        "wall_seconds": round(outcome.wall_seconds, 3),
        "search_seconds": round(outcome.search_seconds, 3),
        "executions": outcome.executions,
        "executions_per_second": round(
            outcome.executions / outcome.search_seconds if outcome.search_seconds else 0.0, 1
        ),
        "claimed_percent": round(outcome.claimed_percent, 2),
        "test_file": os.path.relpath(outcome.test_file, folder.parents[2])
        if outcome.test_file
        else "",
    }
    row.update({k: v for k, v in measured.row().items() if k in COLUMNS})
    return {column: row.get(column, "") for column in COLUMNS}


# ---- the whole run -------------------------------------------------------------------------


def execute(plan: Plan, out: Path, resume: bool = False, log=print) -> None:
    """Run every job of ``plan`` into ``out``, then the mutation scores; write the raw data."""
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    versions = record_machine(out, plan)
    log(f"bench {plan.name}: miogen {versions['miogen']}, pynguin {versions['pynguin']}")
    rows, timelines = load_previous(out) if resume else ([], {})
    done = {_row_key(row) for row in rows}
    jobs = plan.jobs()
    write_rows(out / "runs.csv", rows)
    for index, job in enumerate(jobs, 1):
        if job.key in done:
            continue
        row, timeline = run_job(job, out / "runs" / job.key)
        rows.append(row)
        timelines[job.key] = timeline
        append_row(out / "runs.csv", row)
        (out / "timelines.json").write_text(json.dumps(timelines), encoding="utf-8")
        log(
            f"[{index}/{len(jobs)} {time.monotonic() - started:6.0f}s] {job.key}: "
            f"{row['status']}, branches {row['branches_covered']}/{row['branches_total']} "
            f"(coverage.py), {row['tests']} tests, wall {row['wall_seconds']}s, "
            f"{row['executions_per_second']} exec/s"
        )
    if "triangle" in plan.subjects:
        score_mutants(plan, out, rows, log, resume=resume)
    if plan.artificial_runs:
        log(f"artificial problems, {plan.artificial_runs} runs per point")
        subprocess.run(
            [sys.executable, "-m", "bench.artificial", "--runs", str(plan.artificial_runs)],
            cwd=REPO, check=True,
        )  # fmt: skip
    versions["seconds"] = round(time.monotonic() - started, 1)
    (out / "machine.json").write_text(json.dumps(versions, indent=1), encoding="utf-8")


def score_mutants(plan: Plan, out: Path, rows: list[dict], log=print, resume: bool = False) -> None:
    """cosmic-ray over triangle with each chosen suite; the reference suite is measured too.

    With ``resume``, a suite whose file was already scored keeps its score; otherwise every
    suite is scored afresh (a new run writes new files under the same names).
    """
    subject = SUBJECTS["triangle"]
    folder = out / "runs" / "triangle" / "reference"
    folder.mkdir(parents=True, exist_ok=True)
    module_path = subject.install(folder)
    reference = folder / "test_triangle_reference.py"
    shutil.copyfile(REFERENCE, reference)
    measured = measure_suite(reference, module_path)
    suites = {"reference": (reference, measured)}
    for tool, budget in (("miogen", 5), ("pynguin-mio", 30), ("pynguin-dynamosa", 30)):
        row = _suite_row(rows, "mio" if tool == "miogen" else tool, budget)
        if row and row["test_file"]:
            suites[tool] = (out / row["test_file"], row)
    unit_names = {u.name for u in _units(module_path)}
    earlier = (
        {r["suite"]: r for r in read_rows(out / "mutation.csv") if r.get("score")} if resume else {}
    )
    results = []
    for name, (test_file, size) in suites.items():
        if name not in plan.mutation_suites:
            results.append(mutation_row(name, test_file, size, None, out))
            continue
        previous = earlier.get(name)
        if previous and previous.get("test_sha") == _sha(test_file):
            results.append(previous)  # the same suite as last time (--resume): keep its score
            continue
        score = mutation.mutation_score(
            module_path, test_file, unit_names, out / "runs" / "triangle" / f"mutants-{name}"
        )
        results.append(mutation_row(name, test_file, size, score, out))
        log(f"mutation {name}: {score.score:.1f}% of {score.total} mutants ({score.seconds:.0f}s)")
    with (out / "mutation.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(MUTATION_COLUMNS))
        writer.writeheader()
        writer.writerows(results)


MUTATION_COLUMNS = (
    "suite", "test_file", "tests", "statements", "branch_percent", "mutants", "killed",
    "survived", "incompetent", "score", "unit_score", "seconds", "test_sha",
)  # fmt: skip


def _sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def mutation_row(name: str, test_file: Path, size, score, out: Path) -> dict:
    sized = size.row() if isinstance(size, SuiteMeasure) else size
    sizes = {
        "suite": name,
        "test_file": os.path.relpath(test_file, out),
        "tests": sized["tests"],
        "statements": sized["statements"],
        "branch_percent": sized["branch_percent"],
    }
    if score is None:  # sized only: cosmic-ray not run for this suite
        return {column: sizes.get(column, "") for column in MUTATION_COLUMNS}
    return {
        "suite": name,
        "test_file": os.path.relpath(test_file, out),
        "tests": sized["tests"],
        "statements": sized["statements"],
        "branch_percent": sized["branch_percent"],
        "mutants": score.total,
        "killed": score.killed,
        "survived": score.survived,
        "incompetent": score.incompetent,
        "score": round(score.score, 1),
        "unit_score": round(score.unit_score, 1),
        "seconds": round(score.seconds, 1),
        "test_sha": _sha(test_file),
    }


def _suite_row(rows: list[dict], tool: str, budget: int) -> dict | None:
    """The seed-0 triangle row of ``tool`` at ``budget`` s, else at its largest budget."""
    candidates = [
        r for r in rows
        if r["subject"] == "triangle" and r["tool"] == tool and r["budget_kind"] == "seconds"
        and int(r["seed"]) == 0 and r["status"] == "ok"
    ]  # fmt: skip
    exact = [r for r in candidates if int(r["budget"]) == budget]
    if exact:
        return exact[0]
    return max(candidates, key=lambda r: int(r["budget"]), default=None)


def _units(module_path: Path):
    from miogen.analysis.module import analyze_file

    return analyze_file(module_path, module_path.stem).units


def _row_key(row: dict) -> str:
    return Job(
        row["subject"], row["tool"], row["budget_kind"], int(row["budget"]), int(row["seed"])
    ).key


def load_previous(out: Path) -> tuple[list[dict], dict]:
    rows = read_rows(out / "runs.csv")
    path = out / "timelines.json"
    timelines = json.loads(path.read_text()) if path.exists() else {}
    return rows, timelines


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def write_rows(path: Path, rows: list[dict], columns: list[str] = COLUMNS) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def append_row(path: Path, row: dict, columns: list[str] = COLUMNS) -> None:
    with path.open("a", newline="") as handle:
        csv.DictWriter(handle, fieldnames=columns).writerow(row)


def record_machine(out: Path, plan: Plan) -> dict:
    """Machine, load and versions, written before the jobs start (updated with the duration)."""
    from importlib.metadata import version

    info = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "plan": plan.name,
        "plan_settings": {k: v for k, v in plan.__dict__.items() if k != "name"},
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "os": platform.platform(),
        "python": platform.python_version(),
        "miogen": _git_version(),
        "coverage": version("coverage"),
        "pytest": version("pytest"),
        "pynguin": pynguin.ensure_pynguin() if plan.pynguin_budgets else "not run",
        "cosmic-ray": mutation.ensure_cosmic_ray() if plan.mutation_suites else "not run",
    }
    (out / "machine.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    return info


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return 0.0


def _git_version() -> str:
    def git(*args: str) -> str:
        completed = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
        return completed.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "server")
    return f"{commit}{' + uncommitted changes in server/' if dirty else ''}"
