"""`python -m bench.test_cost`: what one emitted test costs besides its production code.

The cost-aware minimisation (server/miogen/minimize/cost.py) weighs a test as a fixed cost plus
the production statements it executes (aDynaMOSA's proxy I5). Both must be in one unit, so this
measures, on this machine, in CPU seconds (less sensitive to other processes than wall time):

- **per test**: pytest's own work for one more test (collection, setup, call wrapper, teardown,
  reporting). Fresh ``pytest -q`` processes on files of 1 and of N small tests in the shape
  miogen emits (build an object, call, assert); the median CPU difference divided by N - 1.
- **per production statement**: production functions of the corpus (classic subjects with
  loops, stdlib modules) run in-process without tracing; their executed statements counted in a
  separate traced run (line events of the corpus files); CPU per statement, median over them.

The ratio (statements per test) is the fixed cost in statement units; ``--json`` writes all.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLASSIC = REPO / "corpus" / "classic"
SUBJECTS = REPO / "bench" / "subjects"

SMALL_MODULE = """
class Box:
    def __init__(self, value):
        self.value = value

    def grow(self, step):
        return self.value + step
"""


def small_tests(count: int) -> str:
    """``count`` tests shaped like miogen's: an object, a call, an assertion."""
    lines = ["from box import Box", ""]
    for index in range(count):
        lines += [
            "",
            f"def test_grow_{index}():",
            f"    box = Box({index})",
            f"    assert box.grow(2) == {index + 2}",
            "",
        ]
    return "\n".join(lines)


def pytest_cpu(folder: Path, name: str) -> float:
    """CPU seconds (user + system) of one fresh pytest process on ``name``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def per_test_seconds(count: int, runs: int) -> tuple[float, list[float], list[float]]:
    """Median CPU of pytest on ``count`` tests minus on 1 test, per extra test."""
    with tempfile.TemporaryDirectory(prefix="miogen-test-cost-") as name:
        folder = Path(name)
        (folder / "box.py").write_text(SMALL_MODULE)
        (folder / "test_one.py").write_text(small_tests(1))
        (folder / "test_many.py").write_text(small_tests(count))
        one, many = [], []
        for _ in range(runs):  # alternated, so drifting load falls on both
            one.append(pytest_cpu(folder, "test_one.py"))
            many.append(pytest_cpu(folder, "test_many.py"))
    return (statistics.median(many) - statistics.median(one)) / (count - 1), one, many


def workloads() -> dict[str, Callable[[], object]]:
    """Production functions of the corpus with loops whose work depends on the input."""
    sys.path[:0] = [str(CLASSIC), str(SUBJECTS)]
    import expint
    import gammq
    import stdlib_shlex
    import stdlib_statistics

    data = [float((i * 37) % 101) for i in range(300)]
    text = " ".join(f"word{i} 'quoted {i}' \"x{i}\"" for i in range(40))
    return {
        "expint series": lambda: expint.expint(3, 0.5),
        "expint continued fraction": lambda: expint.expint(3, 4.0),
        "gammq series": lambda: gammq.gammq(5.0, 2.0),
        "gammq continued fraction": lambda: gammq.gammq(2.0, 7.0),
        "statistics.variance": lambda: stdlib_statistics.variance(data),
        "statistics.median_grouped": lambda: stdlib_statistics.median_grouped(data),
        "shlex.split": lambda: stdlib_shlex.split(text),
    }


def executed_statements(function: Callable[[], object]) -> int:
    """Line events in corpus files during one call (statements the production code executed)."""
    roots = (str(CLASSIC), str(SUBJECTS))
    count = 0

    def local(frame, event, arg):  # noqa: ANN001, ANN202 - sys.settrace's signature
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202
        return local if frame.f_code.co_filename.startswith(roots) else None

    sys.settrace(tracer)
    try:
        function()
    finally:
        sys.settrace(None)
    return count


def per_statement_seconds(repeat: int) -> dict[str, dict[str, float]]:
    """CPU per executed statement of each workload (best of 5 batches of ``repeat`` calls)."""
    found = {}
    for name, function in workloads().items():
        statements = executed_statements(function)
        batches = []
        for _ in range(5):
            started = time.process_time()
            for _ in range(repeat):
                function()
            batches.append((time.process_time() - started) / repeat)
        found[name] = {"statements": statements, "seconds_per_statement": min(batches) / statements}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=201, help="tests in the large file")
    parser.add_argument("--runs", type=int, default=9, help="fresh pytest runs per file")
    parser.add_argument("--repeat", type=int, default=2000, help="calls per timed batch")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args(argv)
    fixed, one, many = per_test_seconds(args.tests, args.runs)
    statements = per_statement_seconds(args.repeat)
    per_statement = statistics.median(s["seconds_per_statement"] for s in statements.values())
    for name, found in statements.items():
        print(
            f"{name}: {found['statements']} statements, {found['seconds_per_statement'] * 1e9:.0f} ns each"
        )
    print(
        f"pytest per test: {fixed * 1e3:.2f} ms CPU ({args.runs} runs of 1 and {args.tests} tests)"
    )
    print(f"production statement: {per_statement * 1e9:.0f} ns CPU (median of {len(statements)})")
    print(f"fixed cost of a test: {fixed / per_statement:.0f} production statements")
    print(f"load average: {os.getloadavg()[0]:.2f}")
    if args.json:
        record = {
            "per_test_seconds": fixed, "per_statement_seconds": per_statement,
            "statements_per_test": fixed / per_statement, "pytest_one": one, "pytest_many": many,
            "workloads": statements, "load_average": os.getloadavg(),
            "python": sys.version.split()[0], "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        }  # fmt: skip
        args.json.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
