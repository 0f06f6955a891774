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
    from miogen.analysis import module
    from miogen.analysis.targets import parse_code

    source = path.read_text(encoding="utf-8")
    seconds = []
    for _ in range(repeat):
        parse_code.cache_clear()  # each repetition analyses from scratch
        module._analyze.cache_clear()
        start = time.perf_counter()
        model = module.analyze_source(source, str(path), path.stem)
        seconds.append(time.perf_counter() - start)
    return {
        "module": path.name,
        "lines": source.count("\n") + 1,
        "units": len(model.units),
        "targets": sum(len(unit.targets) for unit in model.units),
        "repeat": repeat,
        "median_seconds": round(statistics.median(seconds), 4),
        "min_seconds": round(min(seconds), 4),
        "load_average": round(os.getloadavg()[0], 2),
    }


def main(path: Path, repeat: int) -> int:
    result = time_analysis(path, repeat)
    result["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(
        f"{result['module']}: {result['lines']} lines, {result['units']} units, "
        f"{result['targets']} targets; analysis median {result['median_seconds']:.3f} s "
        f"(min {result['min_seconds']:.3f} s) over {repeat} runs, load average "
        f"{result['load_average']} -> {RESULT}"
    )
    return 0
