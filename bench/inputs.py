"""Coverage of the inputs work's subjects: `python -m bench.inputs [--evaluations N | --budget S]`.

Runs the whole CLI pipeline (``generate_module``: search, reduction, emission, coverage.py on the
emitted file) on the small units built for issue 13 (corpus/inputs) and on the stdlib modules
copied into bench/subjects, and prints coverage.py's figure per module and per unit. With
``--evaluations`` every unit gets that many fitness evaluations (deterministic for a seed); with
``--budget`` a module gets that many seconds in total, split evenly over its units.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNITS = [
    "corpus/inputs/money.py",
    "corpus/inputs/immutable_list.py",
    "corpus/inputs/untyped.py",
    "corpus/inputs/codes.py",
    "corpus/inputs/calendar_tools.py",
    "corpus/inputs/shop/pricing.py",
    "corpus/inputs/options.py",
]
STDLIB = [  # copies of CPython 3.11.7 modules (stdlib_fractions and stdlib_shlex are held out)
    "bench/subjects/stdlib_fractions.py",
    "bench/subjects/stdlib_calendar.py",
    "bench/subjects/stdlib_email_utils.py",
    "bench/subjects/stdlib_shlex.py",
    "bench/subjects/stdlib_textwrap.py",
    "bench/subjects/stdlib_normaldist.py",
]


def measure(path: Path, seed: int, evaluations: int | None, budget: float) -> dict:
    """One module through the CLI pipeline; coverage.py's figures per unit and in total."""
    from miogen.analysis.module import analyze_file
    from miogen.common.project import locate
    from miogen.host.config import Options
    from miogen.run.generate import generate_module

    root = ROOT / "corpus" / "inputs" if "inputs" in path.parts else path.parent
    location = locate(path, root)
    units = analyze_file(location.path, location.module_name).units
    share = max(1, len(units))
    start = time.monotonic()
    report = generate_module(
        path, None, None,
        Options(budget / share, seed=seed, evaluations=evaluations, mutation_share=0.0),
        project_root=str(location.project_root), baseline=False,
    )  # fmt: skip
    per_unit = {r.unit.name: [len(r.measured or []), len(r.unit.targets)] for r in report.units}
    covered = sum(c for c, _ in per_unit.values())
    total = sum(t for _, t in per_unit.values())
    return {
        "module": str(path.relative_to(ROOT)),
        "seed": seed,
        "percent": round(100.0 * covered / total, 1) if total else 100.0,
        "covered": covered,
        "total": total,
        "units": per_unit,
        "dropped_failing": len(report.verification.dropped.failing) if report.verification else 0,
        "wall": round(time.monotonic() - start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inputs")
    parser.add_argument("--evaluations", type=int, help="fitness evaluations per unit")
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per module (total)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--set", choices=["units", "stdlib", "all"], default="all")
    parser.add_argument("--only", nargs="*", default=[], help="modules whose path contains this")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    paths = {"units": UNITS, "stdlib": STDLIB, "all": UNITS + STDLIB}[args.set]
    paths = [p for p in paths if not args.only or any(o in p for o in args.only)]
    rows = []
    for relative in paths:
        runs = [measure(ROOT / relative, s, args.evaluations, args.budget) for s in args.seeds]
        rows += runs
        percents = [r["percent"] for r in runs]
        units = {name: [r["units"][name][0] for r in runs] for name in runs[0]["units"]}
        print(
            f"{relative}: median {statistics.median(percents)}% {percents} "
            f"of {runs[0]['total']} targets; per unit covered {units}; "
            f"dropped failing {[r['dropped_failing'] for r in runs]}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
