"""`miogen generate | serve | ctg | bench`: the command line over the engine."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from miogen.analysis.targets import CodeMap, parse_code
from miogen.config import command_line, flag, options
from miogen.criteria.summary import criteria_summary, describe, line_coverage
from miogen.ctg.cli import add_parser as _add_ctg_parser
from miogen.errors import MiogenError
from miogen.execution.early import EarlyWorker
from miogen.pipeline import Dropped, GenerationReport, UnitReport, Verification, generate_module
from miogen.platform_support import require_sandbox
from miogen.project import locate
from miogen.records import Algorithm, ErrorKind, Event, Progress, Uncovered, to_json

SANDBOXED_COMMANDS = ("generate", "serve", "ctg")  # they run user code in sandboxed workers


def main(argv: list[str] | None = None, worker: EarlyWorker | None = None) -> int:
    """The command in ``argv``; ``worker``: one launched for its job at the process's start
    (``python -m miogen``), stopped here if the job does not take it."""
    try:
        parser = _parser()
        args = parser.parse_args(argv)
        args.worker = worker
        if args.command in SANDBOXED_COMMANDS:
            require_sandbox(args.command)
        code: int = args.run(args)
        return code
    except MiogenError as error:
        print(f"miogen: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        if worker is not None:
            worker.close()


def version() -> str:
    """The installed distribution's version (``miogen --version``)."""
    try:
        return metadata.version("miogen")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="miogen",
        description=__doc__,
        epilog="Settings not given as options come from [tool.miogen] in the project's "
        "pyproject.toml, else the defaults (see README, Configuration).",
    )
    parser.add_argument("--version", action="version", version=f"miogen {version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser(
        "generate", help="generate tests for a module, class or function"
    )
    generate.add_argument("target", help="path/to/module.py or path/to/module.py::Unit")
    generate.add_argument(
        "--budget",
        dest="budget_seconds",
        type=flag("budgetSeconds"),
        metavar="SECONDS",
        help="seconds for the whole module, shared by its units (default 5)",
    )
    generate.add_argument(
        "--evaluations",
        type=flag("evaluations"),
        help="budget in fitness evaluations per unit instead",
    )
    generate.add_argument(
        "--output",
        "-o",
        type=Path,
        help="test file (default: tests-directory/test-file-pattern, tests/test_<module>.py)",
    )
    generate.add_argument("--json", action="store_true", help="print one machine-readable summary")
    generate.add_argument("--seed", type=flag("seed"), help="of the search (default 0)")
    generate.add_argument(
        "--algorithm", type=flag("algorithm"), choices=list(Algorithm), help="(default mio)"
    )
    generate.add_argument(
        "--criteria",
        type=flag("criteria"),
        help="goals besides branches: smart (default), all, branch, or a list of "
        "branch,direct-branch,line,weak-mutation,method,method-no-exception,exception,output",
    )
    generate.add_argument(
        "--performance",
        action="store_const",
        const=True,
        help="keep the cheaper test per covered goal (aDynaMOSA's performance score) under MIO",
    )
    generate.add_argument("--project-root", help="how imports in the emitted tests are written")
    generate.add_argument(
        "--test-timeout", type=flag("testTimeout"), help="seconds per test execution (default 1)"
    )
    generate.add_argument(
        "--raw", action="store_true", help="no shrinking and no mutation-based assertion selection"
    )
    generate.add_argument(
        "--mutation-share",
        type=flag("mutationShare"),
        help="budget share kept for killing mutants once coverage stalls (0: coverage only; "
        "default 0.2)",
    )
    generate.set_defaults(run=run_generate)
    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", action="store_true")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=2087)
    serve.set_defaults(run=run_serve)
    _add_ctg_parser(commands)
    return parser


def run_serve(args: argparse.Namespace) -> int:
    from miogen.lsp.server import serve

    return serve(tcp=args.tcp, host=args.host, port=args.port)


def run_generate(args: argparse.Namespace) -> int:
    path, _, unit = args.target.partition("::")
    if not Path(path).is_file():
        print(f"miogen: no such file: {path}", file=sys.stderr)
        return 2
    location = locate(path, args.project_root)
    settings = options(command_line(location.project_root, args))
    output = args.output or settings.test_path(location)
    budget = settings.budget_seconds
    progress = _ProgressLine(budget, enabled=not args.json and sys.stderr.isatty())
    report = generate_module(
        path,
        [unit] if unit else None,
        budget,
        output,
        project_root=args.project_root,
        on_event=progress,
        raw=args.raw,
        spares=getattr(args, "worker", None),
        **settings.job_options(),
    )
    progress.done()
    summary = summarize(report)
    summary["settings"] = to_json(settings)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_summary(summary)
    code: int = summary["exit_code"]
    return code


class _ProgressLine:
    """A live line on a terminal: elapsed/budget, covered/total, executions per second."""

    def __init__(self, budget: float, enabled: bool) -> None:
        self.budget = budget
        self.enabled = enabled
        self.last = 0.0

    def __call__(self, event: Event) -> None:
        if not self.enabled or not isinstance(event, Progress):
            return
        now = time.monotonic()
        if now - self.last < 0.1:
            return
        self.last = now
        line = (
            f"\r{event.unit}: {event.elapsed:.1f}s of {self.budget:g}s  "
            f"{len(event.covered)}/{event.total} targets  {event.rate:.0f} exec/s"
        )
        sys.stderr.write(line.ljust(70))
        sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 70 + "\r")


def _unit_summary(report: UnitReport, executed_lines: list[int], code: CodeMap) -> dict[str, Any]:
    result = report.outcome.result
    measured = report.measured if report.measured is not None else []
    lines = line_coverage(executed_lines if report.tests else [], report.unit, code)
    branches = (len(measured), len(report.unit.targets))
    worker = to_json(result.criteria) if result else {}
    entry: dict[str, Any] = {
        "name": report.unit.name,
        "kind": report.unit.kind,
        "status": report.outcome.status,
        "stop_reason": report.outcome.stop_reason,
        "targets_total": len(report.unit.targets),
        "targets_covered": len(report.claimed),
        "measured_covered": len(measured),
        "tests": len(report.tests),
        "executions": result.executions if result else 0,
        "search_executions": result.search_executions if result else 0,
        "evaluations": result.evaluations if result else 0,
        "executions_per_second": round(result.rate, 1) if result else 0.0,
        "search_seconds": round(result.search_seconds, 3) if result else 0.0,
        "seconds": round(sum(result.phases.values()), 3) if result else 0.0,
        "crashes": [c.reason for c in report.outcome.crashes],
        "refusals": dict(result.refusals) if result else {},
        "dropped_in_worker": to_json(result.dropped) if result else {},
        "uncovered": [_uncovered(report, item) for item in (result.uncovered if result else ())],
        "criteria": criteria_summary(worker, branches, lines),
    }
    if set(measured) != set(report.claimed) and report.tests:
        entry["mismatch"] = {"claimed_only": sorted(set(report.claimed) - set(measured)),
                             "measured_only": sorted(set(measured) - set(report.claimed))}  # fmt: skip
    if report.outcome.status != "ok":
        entry["message"] = report.outcome.message
    return entry


def _uncovered(report: UnitReport, item: Uncovered) -> dict[str, Any]:
    target = next(t for t in report.unit.targets if t.id == item.id)
    return {
        "line": target.line,
        "arc": target.arc,
        "description": target.short,
        "closest": item.closest,
    }


def summarize(report: GenerationReport) -> dict[str, Any]:
    """The ``--json`` summary (and what the human one prints)."""
    verification = report.verification
    measurement = verification.measurement if verification else None
    executed = measurement.executed_lines if measurement else []
    code = parse_code(report.model.source)
    units = [_unit_summary(r, executed, code) for r in report.units]
    total = sum(u["targets_total"] for u in units)
    measured_count = sum(u["measured_covered"] for u in units)
    # A unit whose worker kept dying and that produced nothing counts as failed.
    failed = [u for u in units if u["status"] != "ok" or (u["crashes"] and not u["tests"])]
    error = report.job.error if report.job else None
    input_error = error is not None and error.kind in (ErrorKind.IMPORT, ErrorKind.SYNTAX)
    dropped = verification.dropped if verification else Dropped()
    return {
        "module": report.location.module_name,
        "path": str(report.location.path),
        "output": str(report.output) if report.output else None,
        "units": units,
        "measured": {
            "tool": "coverage.py (branch=True) on the emitted tests",
            "covered": measured_count,
            "total": total,
            # Of nothing, no percentage.
            "percent": round(100.0 * measured_count / total, 1) if total else None,
            "tests_passed": measurement.passed if measurement else 0,
            "tests_failed": measurement.failed + measurement.errors if measurement else 0,
        },
        "dropped_failing_tests": dropped.failing,
        "dropped_unstable_tests": dropped.unstable,
        "dropped_sandbox_tests": dropped.sandbox,
        "dropped": _dropped_counts(units, dropped),
        "stability_runs": verification.runs if verification else 0,
        # a rerun had the clock five years ahead (needs libfaketime: Debian's faketime)
        "clock_ahead": verification.clock_ahead if verification else False,
        # one per worker process the job ran in; spare: started before the job (and its spec)
        "workers": to_json(report.job.workers) if report.job else [],
        "seconds": {step: round(value, 3) for step, value in _seconds(report).items()},
        # the kept tests' own run time under pytest without coverage.py (median of the reruns)
        "suite_seconds": _suite_seconds(verification),
        "added": [n for n in report.merge.added if n.startswith("test")] if report.merge else [],
        "exit_code": 2 if input_error else (1 if failed else 0),
    }


def _suite_seconds(verification: Verification | None) -> float | None:
    """Median seconds of the kept tests under pytest without coverage.py (the shuffled reruns)."""
    if verification is None or not verification.runtimes:
        return None
    # Microseconds: a cost-aware suite of one joined test runs in tens of them.
    return round(statistics.median(verification.runtimes), 6)


def _dropped_counts(units: list[dict[str, Any]], dropped: Dropped) -> dict[str, int]:
    """Tests found but not emitted, per cause: in the worker, then in the verification."""
    counts = {"refused_on_rerun": 0, "unstable_in_worker": 0, "without_assertion": 0}
    for unit in units:
        worker = unit["dropped_in_worker"]
        counts["refused_on_rerun"] += worker.get("refused_on_rerun", 0)
        counts["unstable_in_worker"] += worker.get("unstable", 0)
        counts["without_assertion"] += worker.get("without_assertion", 0)
    return {**counts, **dropped.counts()}


def _seconds(report: GenerationReport) -> dict[str, float]:
    """Wall seconds: the whole run, and each step before and after the units' budget."""
    seconds = dict(report.seconds)
    if report.job is not None:
        for phase, value in report.job.phases.items():
            seconds[f"worker_{phase}"] = value
    return seconds


def _print_summary(summary: dict[str, Any]) -> None:
    for unit in summary["units"]:
        line = (
            f"{unit['name']}: {unit['measured_covered']}/{unit['targets_total']} targets "
            f"(coverage.py), {unit['tests']} tests, {unit['executions']} executions "
            f"({unit['executions_per_second']:.0f}/s), {unit['search_seconds']:.1f}s search"
        )
        if unit["status"] != "ok":
            line = f"{unit['name']}: {unit['status']}: {unit.get('message', '')}"
        print(line)
        if unit["status"] == "ok" and unit["criteria"]:
            print(f"  criteria: {describe(unit['criteria'])}")
        for crash in unit["crashes"]:
            print(f"  worker crash: {crash}")
        for item in unit["uncovered"][:10]:
            closest = f" — closest: {item['closest']}" if item["closest"] else ""
            print(f"  line {item['line']}: {item['description']}{closest}")
    measured = summary["measured"]
    share = f" ({measured['percent']}%)" if measured["percent"] is not None else ""
    print(
        f"coverage.py: {measured['covered']}/{measured['total']} targets{share}; "
        f"tests {measured['tests_passed']} passed, {measured['tests_failed']} failed"
    )
    if summary["suite_seconds"] is not None:
        print(f"suite runtime: {summary['suite_seconds']:.3f}s (pytest, median of the reruns)")
    if summary["dropped_failing_tests"]:
        print(f"dropped failing tests: {', '.join(summary['dropped_failing_tests'])}")
    if summary["dropped_unstable_tests"]:
        print(f"dropped unstable tests: {', '.join(summary['dropped_unstable_tests'])}")
    if summary["stability_runs"] > 1 and not summary["clock_ahead"]:
        print("not checked with the clock ahead: libfaketime not found (apt-get install faketime)")
    if summary["output"]:
        print(f"wrote {len(summary['added'])} tests to {summary['output']}")


if __name__ == "__main__":
    sys.exit(main())
