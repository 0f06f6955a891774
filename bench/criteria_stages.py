"""Where branch coverage is lost between the search and the emitted suite, per bench.criteria run.

For each subject, configuration and seed of a ``--suites`` folder written by ``bench.criteria``,
three counts of branches from the run's ``summary.json``: the search's archive at its end
(targets minus the uncovered ones), the kept tests' claim after minimisation and verification's
drops, and coverage.py's measure of the emitted file. ``python -m bench.criteria_stages <suites>``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Stages:
    seed: int
    archive: int  # covered by the search's archive when the search ended
    kept: int  # claimed by the tests kept after minimisation and verification
    measured: int  # coverage.py on the emitted tests
    dropped: int  # tests verification dropped (failing or unstable)


def read(summary: Path, seed: int) -> Stages | None:
    """The three counts of one run, or None for a run that wrote no summary."""
    text = summary.read_text(encoding="utf-8") if summary.exists() else ""
    if not text.strip():
        return None
    data = json.loads(text)
    units = data["units"]
    coverage = data.get("coverage") or {}
    return Stages(
        seed,
        sum(unit["coverage"]["total"] - len(unit["uncovered"]) for unit in units),
        sum(unit["targets_covered"] for unit in units),
        int(coverage.get("covered", 0)),
        len(data.get("dropped_failing_tests", [])) + len(data.get("dropped_unstable_tests", [])),
    )


def runs(configuration: Path) -> list[Stages]:
    found = (read(seed / "summary.json", int(seed.name)) for seed in configuration.iterdir())
    return sorted((stages for stages in found if stages is not None), key=lambda s: s.seed)


def table(suites: Path) -> list[str]:
    """One markdown row per subject and configuration: medians, and the goals lost after search."""
    lines = [
        "| subject | configuration | seeds | archive | kept | measured | dropped tests "
        "| seeds measured < archive (goals) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for subject in sorted(path for path in suites.iterdir() if path.is_dir()):
        for configuration in sorted(path for path in subject.iterdir() if path.is_dir()):
            found = runs(configuration)
            if not found:
                continue
            lost = [s.archive - s.measured for s in found if s.measured < s.archive]
            medians = [statistics.median(getattr(s, k) for s in found) for k in STAGES]
            cells = [subject.name, configuration.name, str(len(found))]
            cells += [f"{value:g}" for value in medians]
            cells += [str(sum(s.dropped for s in found)), f"{len(lost)} ({sum(lost)})"]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


STAGES = ("archive", "kept", "measured")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", type=Path, nargs="+", help="bench.criteria --suites folders")
    args = parser.parse_args(argv)
    for suites in args.suites:
        print("\n".join(table(suites)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
