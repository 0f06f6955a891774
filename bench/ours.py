"""Run miogen on one subject in a fresh process: `miogen generate --json` plus a coverage timeline.

The harness starts ``python -m bench.ours ...`` and times the whole process, so the wall time
includes interpreter start-up, imports, every unit's worker, verification and writing the file,
exactly like the CLI (whose worker, as here, starts before the engine's imports). The module's budget (seconds or evaluations) is split evenly over its
units while miogen's budget is per unit, because Pynguin gets the same number for the whole
module; ``BUDGET_PER_UNIT`` turns the split off once ``--budget`` means the whole module.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# miogen's --budget is the whole module's since one run per module (issue 12 part 5): the
# module's budget goes to miogen as it is.
BUDGET_PER_UNIT = False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ours")
    parser.add_argument("path", type=Path)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds for the whole module")
    parser.add_argument("--evaluations", type=int, help="evaluations for the whole module")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--algorithm", default="mio")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--summary", type=Path, required=True)
    parser.add_argument("--project-root", type=Path, help="default: the module's folder")
    args = parser.parse_args(argv)
    start = time.monotonic()
    # As `miogen generate` does: the job's worker starts before the engine's imports.
    from miogen.host.early import EarlyWorker

    worker = EarlyWorker()
    try:
        summary = _generate(args, start, worker)
    finally:
        worker.close()
    summary["wall_inside"] = time.monotonic() - start
    args.summary.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


def _generate(args: argparse.Namespace, start: float, worker: object) -> dict:
    from miogen.analysis.module import analyze_file
    from miogen.cli import summarize
    from miogen.common.records import Algorithm
    from miogen.host.config import Options
    from miogen.run.generate import generate_module
    from miogen.run.write import Output

    model = analyze_file(args.path, args.path.stem)
    units = model.units
    names = None
    if not units:
        # A module with no public unit: the CLI refuses it and lists the private ones to name
        # (exit 2); the harness does what that message tells a user, naming them all.
        units = model.private_units
        names = [unit.name for unit in units] or None
    share = max(1, len(units)) if BUDGET_PER_UNIT else 1
    timeline = Timeline(start)
    report = generate_module(
        args.path,
        names,
        Output(args.output, args.output.parent),  # the bench's own results folder
        Options(
            args.budget / share,
            seed=args.seed,
            algorithm=Algorithm(args.algorithm),
            evaluations=max(1, args.evaluations // share) if args.evaluations else None,
        ),
        project_root=str(args.project_root or args.path.parent),
        on_event=timeline,
        spares=worker,
        baseline=False,  # a module against other tools', not in a project with a suite
    )
    summary = summarize(report)
    summary["timeline"] = timeline.points
    summary["timeline_total"] = sum(len(unit.unit.targets) for unit in report.units)
    summary["per_unit_budget"] = args.budget / share
    summary["dropped_without_assertion"] = summary["dropped"]["without_assertion"]
    return summary


class Timeline:
    """Targets the search claims against seconds of search, units laid end to end.

    Each progress event carries the unit's own search seconds; a unit's clock starts where the
    previous units' clocks stopped, so the curve is in the same unit as Pynguin's timeline.
    """

    def __init__(self, start: float) -> None:
        self.start = start
        self.latest: dict[str, int] = {}
        self.elapsed: dict[str, float] = {}
        self.offsets: dict[str, float] = {}
        self.points: list[tuple[float, int]] = []

    def __call__(self, event: object) -> None:
        if getattr(event, "event", None) != "progress":
            return
        unit, elapsed = event.unit, event.elapsed  # type: ignore[attr-defined]
        if unit not in self.offsets:
            self.offsets[unit] = sum(self.elapsed.values())
        self.elapsed[unit] = elapsed
        self.latest[unit] = len(event.covered)  # type: ignore[attr-defined]
        seconds = self.offsets[unit] + elapsed
        self.points.append((round(seconds, 3), sum(self.latest.values())))


if __name__ == "__main__":
    sys.exit(main())
