"""The language server on one very big module: how long its analysis takes, whether another
file waits for it, and how soon the server is gone when told to stop while it analyses.

Run: ``.venv/bin/python -m bench.big_file [--functions 10000] [--runs 1]``. Writes
bench/results/big_file.md (or ``--out``). The module is generated (``module_text``): functions,
private helpers, dataclasses with methods and async functions with ``match``, in equal shares.
Measured:

* the analysis itself (``analyse_text``, what the server's analysis process runs when a file
  is opened or saved, here in this process) of a quarter, a half and all of the functions (its
  work is linear: the function calls are; the time per function grows somewhat with the heap,
  and with the machine's load). A text this long is outlined (units, lines, fingerprints);
* the targets of one unit, the module's last, when the server asks for them (``detail_text``:
  before a job runs for it, or before its result is shown): coverage.py's parse of that unit's
  lines and its helpers' (the others left out; its target ids are made from its arcs, not
  counted over the units before it), that unit's targets made;
* in ``miogen serve`` over stdio: didOpen of the big module -> its ``miogen/coverage`` with its
  units (the server's analysis, pickling and presenting included); a small module opened once
  the big one's analysis process has been busy for a CPU second -> its ``miogen/coverage``;
* with the big module being analysed (its analysis process busy for a second): shutdown + exit,
  and the end of the server's input, -> the server process gone.

The machine's load average is recorded with the figures: the machine is shared. The medians of
the runs are set against issue 28's aims: a 10,000-function module analysed in under 2 s (the
wall-clock time and the CPU time, which is what it costs on an idle machine), the server gone
within 1 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.lsp_client import RawClient

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "big_file.md"
SMALL = "def sign(x: int) -> int:\n    if x < 0:\n        return -1\n    return 1\n"


def module_text(functions: int) -> str:
    """A module of ``functions`` top-level definitions (every fifth a class with a method)."""
    parts = ['"""A generated module."""\n\nimport math\nfrom dataclasses import dataclass\n\n']
    parts.append("LIMIT = 10\n")
    for i in range(functions):
        parts.append(_DEFINITIONS[i % len(_DEFINITIONS)].format(i=i, previous=i - 1))
    return "".join(parts)


_DEFINITIONS = (
    """
def _helper_{i}(value: int) -> int:
    if value > {i}:
        return value - {i}
    return value
""",
    '''
def compute_{i}(value: int, scale: float = 1.5) -> float:
    """Scale value ({i})."""
    if value < 0:
        raise ValueError("negative")
    for step in range(value % 3):
        value += _helper_{previous}(step)
    return value * scale
''',
    """
def describe_{i}(name: str, items: list[int]) -> str:
    while items and items[-1] == 0:
        items = items[:-1]
    if name.startswith("x") and len(items) > LIMIT:
        return name.upper()
    return name + ": " + str(len(items))
""",
    """
@dataclass
class Point{i}:
    x: int
    y: int

    def norm(self) -> float:
        if self.x == 0 and self.y == 0:
            return 0.0
        return math.hypot(self.x, self.y)
""",
    """
async def fetch_{i}(key: str, table: dict[str, int]) -> int | None:
    match key:
        case "a":
            return table.get("a")
        case _:
            return None
""",
)


def _covered(uri: str):
    def matches(message: dict) -> bool:
        params = message.get("params") or {}
        return (
            message.get("method") == "miogen/coverage"
            and params.get("uri") == uri
            and bool(params.get("units"))
        )

    return matches


def _analysing(server: int) -> bool:
    """Whether a child of ``server`` (an analysis process) has used a second of CPU."""
    for entry in os.listdir("/proc"):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(server) and (int(fields[11]) + int(fields[12])) > os.sysconf(
            "SC_CLK_TCK"
        ):
            return True
    return False


def _wait_for_analysis(server: int) -> None:
    deadline = time.perf_counter() + 300
    while not _analysing(server) and time.perf_counter() < deadline:
        time.sleep(0.05)


def analysis_seconds(functions: int) -> tuple[int, int, float, float]:
    """(characters, lines, seconds, CPU seconds) of the analysis of a module of ``functions``
    definitions (the analysis's caches emptied first: each run analyses afresh)."""
    from miogen.analysis.module import forget_analyses
    from miogen.analysis.targets import parse_code
    from miogen.lsp.analyser import analyse_text

    text = module_text(functions)
    forget_analyses()
    parse_code.cache_clear()
    started, cpu = time.perf_counter(), time.process_time()
    analyse_text(text, "big.py", "big")
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return len(text), text.count("\n"), seconds, cpu


def detail_seconds(functions: int) -> tuple[str, float, float]:
    """(unit, seconds, CPU seconds) to find the targets of the last unit of the module of
    ``functions`` definitions once it was analysed (as the analysis process does: the outline
    made, coverage.py's parse not yet)."""
    from miogen.analysis.module import forget_analyses
    from miogen.analysis.targets import parse_code
    from miogen.lsp.analyser import analyse_text, detail_text

    text = module_text(functions)
    forget_analyses()
    parse_code.cache_clear()
    snapshot = analyse_text(text, "big.py", "big")
    assert not isinstance(snapshot, tuple) and hasattr(snapshot, "units")
    unit = list(snapshot.units)[-1]
    started, cpu = time.perf_counter(), time.process_time()
    found = detail_text(text, "big.py", "big", (unit,))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert found.units[unit].detailed
    return unit, seconds, cpu


def server_open(folder: Path, text: str) -> tuple[float, float]:
    """(seconds to the big module's coverage, seconds to that of a small one opened once the
    big one's analysis is under way)."""
    big, small = folder / "big.py", folder / "small.py"
    client = RawClient(folder)
    try:
        started = client.open(big, text)
        _wait_for_analysis(client.server.pid)
        small_started = client.open(small, SMALL)
        small_done = client.wait(_covered(small.as_uri()))
        done = client.wait(_covered(big.as_uri()))
        return done - started, small_done - small_started
    finally:
        client.close()


def server_stop(folder: Path, text: str, ending: str) -> float:
    """Seconds from shutdown + exit (or the end of input) to the server's exit, mid-analysis."""
    client = RawClient(folder)
    try:
        client.open(folder / "big.py", text)
        _wait_for_analysis(client.server.pid)
        assert client.server.stdin is not None
        if ending == "end of input":
            started = time.perf_counter()
            client.server.stdin.close()
        else:
            client.answer(client.request("shutdown", {}))
            started = time.perf_counter()
            client.send("exit", {})
        client.server.wait(timeout=300)
        return time.perf_counter() - started
    finally:
        client.close()


AIM_ANALYSIS = 2.0  # seconds: issue 28's aim for the analysis of 10,000 functions
AIM_STOP = 1.0  # seconds: the server gone after shutdown + exit or the end of its input


def _summary(
    functions: int,
    full: list[tuple[float, float, float]],
    opened: list[tuple[float, float]],
    stops: list[float],
    details: list[tuple[float, float]],
) -> list[str]:
    """The medians of the runs against the aims (wall-clock time depends on the machine's load:
    the CPU time is what the analysis costs; on an idle machine the two are about equal)."""
    seconds = statistics.median(f[0] for f in full)
    cpu = statistics.median(f[1] for f in full)
    loads = ", ".join(f"{f[2]:.1f}" for f in full)
    server = statistics.median(o[0] for o in opened)

    def verdict(value: float, aim: float) -> str:
        return "within" if value < aim else "NOT within"

    return [
        f"Medians over {len(full)} run(s), {functions:,} functions:",
        "",
        f"* analysis: {seconds:.2f} s ({verdict(seconds, AIM_ANALYSIS)} the {AIM_ANALYSIS:g} s "
        f"aim), {cpu:.2f} s of CPU ({verdict(cpu, AIM_ANALYSIS)} the aim); load average "
        f"{loads};",
        f"* the targets of one unit when asked for: {statistics.median(d[0] for d in details):.2f}"
        f" s, {statistics.median(d[1] for d in details):.2f} s of CPU;",
        f"* server: didOpen -> coverage of the big module: {server:.2f} s;",
        f"* server mid-analysis -> process gone: {statistics.median(stops):.2f} s, the longest "
        f"{max(stops):.2f} s ({verdict(max(stops), AIM_STOP)} the {AIM_STOP:g} s aim).",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.big_file",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--functions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    text = module_text(args.functions)
    rows = []
    full: list[tuple[float, float, float]] = []  # (seconds, CPU seconds, load): all functions
    opened: list[tuple[float, float]] = []  # (seconds to the big module's coverage, load)
    stops: list[float] = []
    details: list[tuple[float, float]] = []  # (seconds, CPU seconds): one unit's targets
    for run in range(args.runs):
        for count in (args.functions // 4, args.functions // 2, args.functions):
            load = os.getloadavg()[0]
            characters, lines, seconds, cpu = analysis_seconds(count)
            per = seconds / count * 1000
            rows.append(
                f"| {run + 1} | analysis, {count:,} functions ({characters:,} characters, "
                f"{lines:,} lines) | {seconds:.2f} s ({per:.2f} ms per function), "
                f"{cpu:.2f} s of CPU | {load:.1f} |"
            )
            print(rows[-1], flush=True)
        full.append((seconds, cpu, load))
        load = os.getloadavg()[0]
        unit, seconds, cpu = detail_seconds(args.functions)
        details.append((seconds, cpu))
        rows.append(f"| {run + 1} | targets of one unit ({unit}, the last), asked for once the "
                    f"{args.functions:,} functions were analysed | {seconds:.2f} s, {cpu:.2f} s "
                    f"of CPU | {load:.1f} |")  # fmt: skip
        print(rows[-1], flush=True)
        with tempfile.TemporaryDirectory() as folder:
            load = os.getloadavg()[0]
            big, small = server_open(Path(folder), text)
            opened.append((big, load))
            rows.append(f"| {run + 1} | server: didOpen -> coverage of the big module | "
                        f"{big:.2f} s | {load:.1f} |")  # fmt: skip
            rows.append(f"| {run + 1} | server: a small module opened mid-analysis -> its coverage "
                        f"| {small:.2f} s | {load:.1f} |")  # fmt: skip
            print(*rows[-2:], sep="\n", flush=True)
            for ending in ("shutdown and exit", "end of input"):
                load = os.getloadavg()[0]
                seconds = server_stop(Path(folder), text, ending)
                stops.append(seconds)
                rows.append(f"| {run + 1} | server mid-analysis: {ending} -> process gone | "
                            f"{seconds:.2f} s | {load:.1f} |")  # fmt: skip
                print(rows[-1], flush=True)
    summary = _summary(args.functions, full, opened, stops, details)
    print(*summary, sep="\n")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    report = [
        "# The language server on a very big module",
        "",
        f"`python -m bench.big_file --functions {args.functions} --runs {args.runs}`, {when}, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs (shared: load average "
        "in the last column).",
        "",
        "| run | measured | time | load |",
        "|---|---|---|---|",
        *rows,
        "",
        *summary,
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(report), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
