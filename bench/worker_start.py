"""A job's worker started for the job, or started ahead (a spare): how soon the job shows.

Run: ``.venv/bin/python -m bench.worker_start [--runs 5] [--budget 2] [--gap 4]``.
Runs the language server's job for one unit of a big module (default: argparse's HelpFormatter,
2,632 lines) through the supervisor, taking turns between three ways: a worker launched when the
job is handed over (the CLI's way), a spare launched ``--gap`` seconds before (the language
server's way since issue 14: ``host.spare``), and a spare that was also given the module's
text (``Spares.prepare``, as the server does once typing pauses or a file is saved) and had
analysed it. Measured from the hand-over: the module analysed and imported (the worker's
``Loaded``), the first progress with covered goals (what the editor shows first), the job's end.
Every way waits ``--gap`` seconds before its run, so that they see the same machine. Writes
bench/results/worker_start.md (or ``--out``) with medians and their ratios to the first way, and
the load average: on a shared machine the ratios say more than the seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from miogen.common.project import locate
from miogen.common.records import Event, Loaded, Progress, UnitJob
from miogen.host.config import Options
from miogen.host.spare import Spares
from miogen.run.job import job_spec, run

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "worker_start.md"
SUBJECT = HERE / "subjects" / "stdlib_argparse.py"
UNIT = "HelpFormatter"
WAYS = ("started for the job", "started ahead", "started ahead, text analysed ahead")


@dataclass
class Run:
    loaded: float = float("nan")
    first_coverage: float = float("nan")
    end: float = float("nan")


@dataclass
class Runs:
    way: str
    runs: list[Run] = field(default_factory=list)

    def median(self, name: str) -> float:
        values = [getattr(r, name) for r in self.runs if getattr(r, name) == getattr(r, name)]
        return statistics.median(values) if values else float("nan")


def one_job(path: Path, budget: float, spares: Spares | None) -> Run:
    location = locate(path, str(path.parent))
    spec = job_spec(location, [UnitJob(UNIT)], Options(budget))
    measured = Run()
    started = time.monotonic()

    def on_event(event: Event) -> None:
        now = time.monotonic() - started
        if isinstance(event, Loaded) and measured.loaded != measured.loaded:
            measured.loaded = now
        covered = isinstance(event, Progress) and event.covered
        if covered and measured.first_coverage != measured.first_coverage:
            measured.first_coverage = now

    source = spares.keyed("bench") if spares is not None else None
    outcome = run(spec, on_event, None, source)
    measured.end = time.monotonic() - started
    if outcome.workers and outcome.workers[0].spare != (spares is not None):
        raise SystemExit(f"the job did not run as intended: {outcome.workers}")
    return measured


def prepared(spares: Spares, path: Path) -> Spares:
    """``spares``, its waiting spare given the module's text (as the language server does)."""
    location = locate(path, str(path.parent))
    spares.prepare(str(location.path), location.module_name, path.read_text("utf-8"))
    return spares


def measure(folder: Path, runs: int, budget: float, gap: float) -> list[Runs]:
    path = folder / SUBJECT.name
    path.write_text(SUBJECT.read_text("utf-8"), "utf-8")
    results = [Runs(way) for way in WAYS]
    spares = Spares()
    try:
        for _ in range(runs):
            time.sleep(gap)
            results[0].runs.append(one_job(path, budget, None))
            spares.refill("bench")
            time.sleep(gap)
            results[1].runs.append(one_job(path, budget, spares))
            spares.refill("bench")
            prepared(spares, path)
            time.sleep(gap)
            results[2].runs.append(one_job(path, budget, spares))
    finally:
        spares.close()
    return results


def report(results: list[Runs], command: str, loads: tuple[float, float], budget: float) -> str:
    names = [("loaded", "module loaded"), ("first_coverage", "first coverage"), ("end", "job end")]
    rows = []
    for name, label in names:
        fresh, *others = (r.median(name) for r in results)
        cells = " | ".join(f"{other:.2f} s ({other / fresh:.2f})" for other in others)
        rows.append(f"| {label} | {fresh:.2f} s | {cells} |")
    each = "\n".join(
        f"| {r.way} | "
        + " | ".join(
            f"{run.loaded:.2f} / {run.first_coverage:.2f} / {run.end:.2f}" for run in r.runs
        )
        + " |"  # fmt: skip
        for r in results
    )
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""# A job's worker: started for the job, or started ahead (with its text analysed ahead)

Command: `{command}` ({when}; load average (1 min) {loads[0]:.2f} before, {loads[1]:.2f} after,
2 shared cores: the seconds are this run's, the ratio is what carries over).
Job: the language server's job for `{UNIT}` of argparse (bench/subjects/stdlib_argparse.py,
2,632 lines), budget {budget:g} s, measured from the hand-over to the supervisor (median of
{len(results[0].runs)} runs each, the ways taking turns; in brackets the ratio to the first).

| from the hand-over to | {" | ".join(WAYS)} (ratio) |
|---|---|---|---|
{chr(10).join(rows)}

Each run (module loaded / first coverage / job end, seconds):

| way | runs |
|---|---|
{each}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.worker_start", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=float, default=2.0)
    parser.add_argument("--gap", type=float, default=4.0, help="seconds between runs")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    command = " ".join(
        [".venv/bin/python -m bench.worker_start", *(argv if argv is not None else sys.argv[1:])]
    )
    before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="miogen-bench-start-") as folder:
        results = measure(Path(folder), args.runs, args.budget, args.gap)
    text = report(results, command, (before, os.getloadavg()[0]), args.budget)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
