"""`python -m bench real`: miogen at 5 s and Pynguin DynaMOSA at 30 s per module of the real corpus.

One job = one tool on one module, in its own folder under ``<out>/runs/<module>/<tool>/``; the
tool writes its test file there and ``bench.measure`` runs it under pytest + coverage.py
(branch) with the module's import root on PYTHONPATH, the same for both tools. Rows go to
``<out>/runs.csv`` as jobs finish (``--resume`` keeps finished ones); the table is
``bench/REAL.md`` (see bench/realreport.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import pynguin
from bench import run as suite_run
from bench.measure import SuiteMeasure, measure_suite
from bench.process import run_group
from bench.realcorpus import RealModule, ensure_venv
from bench.run import _git_version, read_rows

REPO = Path(__file__).resolve().parent.parent
OURS, PEER, LONGER, DYNAMOSA = "miogen", "pynguin-dynamosa", "miogen-30s", "miogen-dynamosa"
# LONGER: miogen at the peer's budget (--longer); DYNAMOSA: miogen's DynaMOSA instead of MIO
BUDGETS = {OURS: 5, PEER: 30, LONGER: 30, DYNAMOSA: 5}
ALGORITHMS = {OURS: "mio", LONGER: "mio", DYNAMOSA: "dynamosa"}

COLUMNS = [
    "module", "tool", "seed", "budget", "held_out", "status", "message", "wall_seconds",
    "search_seconds", "branches_covered", "branches_total", "branch_percent",
    "coveragepy_percent", "statements_total", "tests", "tests_passed", "tests_failed", "units",
    "units_failed", "dropped_failing", "dropped_unstable", "dropped_no_assertion",
    "refused_runs", "load_average", "test_file",
]  # fmt: skip


@dataclass
class ToolRun:
    """What a tool said about one module, before coverage.py has its say."""

    status: str = "ok"  # ok | load-failed | unit-failed | failed | timeout | no-tests
    message: str = ""
    wall_seconds: float = 0.0
    search_seconds: float = 0.0
    test_file: Path | None = None
    counts: dict[str, int] = field(default_factory=dict)  # units, drops per cause, refusals


def run_ours(
    path: Path,
    root: Path,
    folder: Path,
    budget: float,
    algorithm: str = "mio",
    seed: int = 0,
    evaluations: int | None = None,
) -> ToolRun:
    """``bench.ours`` (the CLI's generate_module, timed as a whole process) on one module;
    ``evaluations``: a budget in fitness evaluations instead of ``budget`` seconds (the same
    tests whatever the machine's load)."""
    output, summary_path = folder / "test_miogen.py", folder / "summary.json"
    command = [
        sys.executable, "-m", "bench.ours", str(path), "--budget", str(budget),
        "--algorithm", algorithm, "--seed", str(seed),
        "--project-root", str(root), "--output", str(output), "--summary", str(summary_path),
    ]  # fmt: skip
    if evaluations is not None:
        command += ["--evaluations", str(evaluations)]
    limit = 20 * budget + 900 if evaluations is None else 3600
    with (folder / "miogen.log").open("w") as sink:
        code, wall = run_group(
            command, limit, cwd=REPO, stdout=sink, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    if code is None:
        return ToolRun("timeout", f"killed after {limit:.0f} s", wall)
    if code != 0 or not summary_path.exists():
        return ToolRun("failed", _tail(folder / "miogen.log"), wall)
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    return ours_run(summary, wall, output if output.exists() else None)


def ours_run(summary: dict, wall: float, test_file: Path | None) -> ToolRun:
    """Status, messages and counts from a `miogen generate --json` summary (bench.ours's)."""
    units = summary.get("units", [])
    broken = [u for u in units if u.get("status") != "ok"]
    messages = sorted({f"{u['name']}: {u.get('message') or u['status']}" for u in broken})
    if summary.get("exit_code") == 2:
        status = "load-failed"
    elif broken:
        status = "unit-failed"
    else:
        status = "ok" if test_file else "no-tests"
    counts = {
        "units": len(units),
        "units_failed": len(broken),
        "dropped_failing": len(summary.get("dropped_failing_tests", [])),
        "dropped_unstable": len(summary.get("dropped_unstable_tests", [])),
        "dropped_no_assertion": summary.get("dropped_without_assertion", 0),
        "refused_runs": sum(sum(u.get("refusals", {}).values()) for u in units),
    }
    return ToolRun(
        status=status,
        message=" | ".join(_first_line(m) for m in messages)[:600],
        wall_seconds=wall,
        search_seconds=sum(u.get("search_seconds", 0.0) for u in units),
        test_file=test_file,
        counts=counts,
    )


def run_peer(path: Path, root: Path, module: str, folder: Path, budget: int) -> ToolRun:
    result = pynguin.run_pynguin(
        path, PEER, budget, 0, folder, project_path=root, module_name=module
    )
    return ToolRun(
        result.status, result.message, result.wall_seconds, result.search_seconds, result.test_file
    )


def job_folder(out: Path, module: RealModule, tool: str, seed: int) -> Path:
    """``runs/<module>/<tool>`` for seed 0 (the single-seed layout), ``<tool>-seed<N>`` else."""
    return out / "runs" / module.name / (tool if seed == 0 else f"{tool}-seed{seed}")


def run_job(module: RealModule, tool: str, site: Path, out: Path, seed: int = 0) -> dict:
    """One tool on one module in a fresh folder; the row with coverage.py's measurement."""
    folder = job_folder(out, module, tool, seed)
    if folder.exists():
        subprocess.run(["rm", "-rf", str(folder)], check=True)
    folder.mkdir(parents=True)
    path, root = module.locate(site, folder / "proj")
    load = os.getloadavg()[0]
    budget = BUDGETS[tool]
    if tool in ALGORITHMS:
        run = run_ours(path, root, folder, budget, ALGORITHMS[tool], seed)
    else:
        run = run_peer(path, root, module.module if not module.copy else path.stem, folder, budget)
    name = module.module if not module.copy else path.stem
    measured = measure_suite(run.test_file, path, import_root=root, module_name=name)
    return make_row(module, tool, run, measured, out, load, seed)


def make_row(
    module: RealModule,
    tool: str,
    run: ToolRun,
    measured: SuiteMeasure,
    out: Path,
    load: float,
    seed: int = 0,
) -> dict:
    row: dict[str, object] = {
        "module": module.name,
        "tool": tool,
        "seed": seed,
        "budget": BUDGETS[tool],
        "held_out": int(module.held_out),
        "status": run.status,
        "message": run.message,
        "wall_seconds": round(run.wall_seconds, 2),
        "search_seconds": round(run.search_seconds, 2),
        "load_average": round(load, 2),
        "test_file": os.path.relpath(run.test_file, out) if run.test_file else "",
    }
    row.update({k: v for k, v in measured.row().items() if k in COLUMNS})
    row.update(run.counts)
    return {column: row.get(column, "") for column in COLUMNS}


def plan_jobs(
    modules: list[RealModule], tools: list[str], seeds: int, done: set[tuple[str, str, int]]
) -> list[tuple[int, RealModule, str]]:
    """Seed by seed, module by module, every tool back to back: the tools compared on one module
    and seed run minutes apart at most, so they see the same load (budgets are wall-clock). The
    tools' order alternates between modules and seeds, so neither always runs first."""
    jobs = []
    for seed in range(seeds):
        for index, module in enumerate(modules):
            order = tools if (seed + index) % 2 == 0 else tools[::-1]
            jobs += [(seed, module, t) for t in order if (module.name, t, seed) not in done]
    return jobs


def execute(
    modules: list[RealModule],
    out: Path,
    tools: list[str],
    resume: bool = False,
    log=print,
    seeds: int = 1,
) -> None:
    """Every tool on every module (``seeds`` times, seeds 0..N-1) into ``out``; rows appended
    as jobs finish."""
    out.mkdir(parents=True, exist_ok=True)
    site = ensure_venv(log=log)
    started = time.monotonic()
    machine = record_machine(out, modules, tools)
    machine["seeds"] = seeds
    rows = read_rows(out / "runs.csv") if resume else []
    done = {(r["module"], r["tool"], int(r.get("seed") or 0)) for r in rows}
    write_rows(out / "runs.csv", rows)
    jobs = plan_jobs(modules, tools, seeds, done)
    for index, (seed, module, tool) in enumerate(jobs, 1):
        row = run_job(module, tool, site, out, seed)
        append_row(out / "runs.csv", row)
        log(
            f"[{index}/{len(jobs)} {time.monotonic() - started:5.0f}s] seed {seed} "
            f"{module.name} {tool}: "
            f"{row['status']}, branches {row['branches_covered']}/{row['branches_total']}, "
            f"tests {row['tests_passed']} passed {row['tests_failed']} failed, "
            f"wall {row['wall_seconds']} s {row['message'][:120]}"
        )
    machine["seconds"] = round(time.monotonic() - started, 1)
    (out / "machine.json").write_text(json.dumps(machine, indent=1), encoding="utf-8")


def record_machine(out: Path, modules: list[RealModule], tools: list[str]) -> dict:
    info = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "miogen": _miogen_commit(),
        "modules": [m.name for m in modules],
        "tools": {tool: f"{BUDGETS[tool]} s per module" for tool in tools},
        "pynguin": pynguin.ensure_pynguin() if PEER in tools else "not run",
        "cores": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }
    (out / "machine.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    return info


def _miogen_commit() -> str:
    """The engine measured: this checkout's commit, or the one named by MIOGEN_BENCH_ENGINE
    (a checkout of another commit whose server/ is first on PYTHONPATH)."""
    import miogen

    engine = Path(miogen.__file__).resolve().parents[2]
    if engine == REPO:
        return _git_version()
    completed = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=engine, capture_output=True, text=True
    )
    return f"{completed.stdout.strip() or 'unknown'} (engine from {engine})"


def write_rows(path: Path, rows: list[dict]) -> None:
    suite_run.write_rows(path, rows, COLUMNS)


def append_row(path: Path, row: dict) -> None:
    suite_run.append_row(path, row, COLUMNS)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _tail(log: Path, lines: int = 3) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:])[-400:]
