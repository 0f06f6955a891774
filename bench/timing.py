"""`python -m bench analysis`: how long miogen's static analysis of one module takes.

Each repetition analyses the module from its source text in this process (no cache, no import),
as the CLI, a worker and the language server do; the median of the repetitions is printed and
written to bench/results/analysis.json with the module's size and number of units.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
LARGEST = BENCH / "subjects" / "stdlib_argparse.py"  # 2,600 lines: the corpus' largest module
RESULT = BENCH / "results" / "analysis.json"


def time_analysis(path: Path, repeat: int) -> dict:
    """Per repetition: the analysis as the language server takes it (units, targets, lines; the
    signatures are left lazy) and the whole model as the CLI and a worker use it (signatures
    with inferred types and constants too: the first read of ``model.classes`` completes it)."""
    from miogen.analysis import module
    from miogen.analysis.targets import parse_code

    source = path.read_text(encoding="utf-8")
    units, units_cpu, seconds, cpu = [], [], [], []
    for _ in range(repeat):
        for cached in (parse_code, getattr(module, "_analyze", None)):
            getattr(cached, "cache_clear", lambda: None)()  # each repetition from scratch
        start, start_cpu = time.perf_counter(), time.process_time()
        model = module.analyze_source(source, str(path), path.stem)
        units.append(time.perf_counter() - start)
        units_cpu.append(time.process_time() - start_cpu)
        model.classes  # noqa: B018 - the first read completes the model (older engines: no-op)
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return {
        "module": path.name,
        "lines": source.count("\n") + 1,
        "units": len(model.units),
        "targets": sum(len(unit.targets) for unit in model.units),
        "repeat": repeat,
        # The whole model (units, targets, signatures, inferred types, constants).
        "median_seconds": round(statistics.median(seconds), 4),
        "min_seconds": round(min(seconds), 4),
        # CPU seconds of this process: what the analysis costs, less the waiting for a core
        # that a shared machine adds to the wall time.
        "median_cpu_seconds": round(statistics.median(cpu), 4),
        # What the language server pays: units, targets and lines, signatures left lazy.
        "median_units_seconds": round(statistics.median(units), 4),
        "median_units_cpu_seconds": round(statistics.median(units_cpu), 4),
        "load_average": round(os.getloadavg()[0], 2),
    }


def main(path: Path, repeat: int) -> int:
    """Time the analysis; ``MIOGEN_BENCH_ENGINE``-style comparisons run it again with another
    checkout's server/ first on PYTHONPATH (the engine measured is printed)."""
    result = time_analysis(path, repeat)
    result["engine"] = _engine()
    result["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(
        f"[{result['engine']}] {result['module']}: {result['lines']} lines, {result['units']} units, "
        f"{result['targets']} targets; analysis median {result['median_seconds']:.3f} s "
        f"(min {result['min_seconds']:.3f} s; CPU {result['median_cpu_seconds']:.3f} s), of "
        f"which units and targets (the server's part) {result['median_units_seconds']:.3f} s "
        f"(CPU {result['median_units_cpu_seconds']:.3f} s) over {repeat} runs, load average "
        f"{result['load_average']} -> {RESULT}"
    )
    return 0


def _engine() -> str:
    from bench.real import _miogen_commit

    return _miogen_commit()
