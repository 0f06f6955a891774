"""What the criteria report's counted copy costs a job: compiled once, run again per unit, or
made per unit (``objectives.Objectives.measured_copy``).

Run: ``.venv/bin/python -m bench.report_copy [stem ...]`` (default: urllib.parse, posixpath,
textwrap from bench/subjects). Per module, the medians of: instrumenting and compiling the
counted code of all its units once; running that code again for a fresh copy (what each unit
after the first costs in a module with module-level state); and a copy per unit (before the job
shared one). Prints one line per module and the load average; no file is written.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.common.records import JobSpec, UnitJob
from miogen.criteria.measurement import counted_code, measured_copy
from miogen.worker import phases
from miogen.worker.objectives import Objectives

SUBJECTS = Path(__file__).parent / "subjects"
DEFAULT = ("stdlib_urllib_parse", "stdlib_posixpath", "stdlib_textwrap")


def median_seconds(step: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(stem: str) -> str:
    path = SUBJECTS / f"{stem}.py"
    sys.modules.pop(stem, None)
    model = analyze_file(path, stem)
    spec = JobSpec(
        path=str(path), module_name=stem, import_root=str(SUBJECTS),
        units=tuple(UnitJob(unit.name) for unit in model.units), scratch=tempfile.mkdtemp(),
    )  # fmt: skip
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    units, source, file = objectives.units, model.source, str(path)
    base = None if model.has_module_state else module
    once = median_seconds(lambda: counted_code(source, file, units, stem, base), 5)
    again = median_seconds(counted_code(source, file, units, stem, base).copy, 20)

    def per_unit() -> None:
        for unit in units:
            measured_copy(source, file, [unit], stem, base, objectives.bases[unit.name])

    each = median_seconds(per_unit, 2)
    shared = once + (len(units) - 1) * again if model.has_module_state else once
    return (
        f"{stem}: module state {model.has_module_state}, {len(units)} units: compiled once "
        f"{once:.3f} s, run again {again * 1000:.2f} ms per unit -> the job's reports "
        f"{shared:.3f} s; a copy per unit {each:.3f} s"
    )


def main(stems: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.2f}")
    for stem in stems or DEFAULT:
        print(measure(stem))


if __name__ == "__main__":
    main(sys.argv[1:])
