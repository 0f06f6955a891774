"""`miogen generate | serve | ctg | bench`: the command line over the engine."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from miogen.analysis.targets import CodeMap, parse_code
from miogen.criteria import parse_criteria
from miogen.criteria.summary import criteria_summary, describe, line_coverage
from miogen.ctg.cli import add_parser as _add_ctg_parser
from miogen.errors import MiogenError
from miogen.generate import GenerationReport, UnitReport, generate_module
from miogen.platform_support import require_sandbox
from miogen.project import default_test_path, locate

SANDBOXED_COMMANDS = ("generate", "serve", "ctg")  # they run user code in sandboxed workers


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command in SANDBOXED_COMMANDS:
            require_sandbox(args.command)
        return args.run(args)
    except MiogenError as error:
        print(f"miogen: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="miogen", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser(
        "generate", help="generate tests for a module, class or function"
    )
    generate.add_argument("target", help="path/to/module.py or path/to/module.py::Unit")
    generate.add_argument(
        "--budget", type=float, default=5.0, help="search seconds per unit (default 5)"
    )
    generate.add_argument("--evaluations", type=int, help="budget in fitness evaluations instead")
    generate.add_argument(
        "--output", "-o", type=Path, help="test file (default: tests/test_<module>.py)"
    )
    generate.add_argument("--json", action="store_true", help="print one machine-readable summary")
    generate.add_argument("--seed", type=int, default=0)
    generate.add_argument("--algorithm", choices=ALGORITHMS, default="mio")
    generate.add_argument(
        "--criteria",
        type=_criteria,
        default="smart",
        help="goals besides branches: smart (default), all, branch, or a list of "
        "branch,direct-branch,line,weak-mutation,method,method-no-exception,exception,output",
    )
    generate.add_argument(
        "--performance",
        action="store_true",
        help="keep the cheaper test per covered goal (aDynaMOSA's performance score) under MIO",
    )
    generate.add_argument("--project-root", help="how imports in the emitted tests are written")
    generate.add_argument(
        "--test-timeout", type=float, default=1.0, help="seconds per test execution"
    )
    generate.add_argument(
        "--raw", action="store_true", help="no shrinking and no mutation-based assertion selection"
    )
    generate.add_argument(
        "--mutation-share",
        type=_share,
        default=0.2,
        help="budget share kept for killing mutants once coverage stalls (0: coverage only)",
    )
    generate.set_defaults(run=run_generate)
    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", action="store_true")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=2087)
    serve.set_defaults(run=run_serve)
    _add_ctg_parser(commands)
    return parser


ALGORITHMS = (
    "mio", "dynamosa", "adynamosa", "adynamosa-nonadaptive", "wts", "random", "mio-nofds",
)  # fmt: skip


def _criteria(text: str) -> str:
    try:
        parse_criteria(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"a share is in [0, 1): {text}")
    return value


def run_serve(args: argparse.Namespace) -> int:
    from miogen.lsp.server import serve

    return serve(tcp=args.tcp, host=args.host, port=args.port)


def run_generate(args: argparse.Namespace) -> int:
    path, _, unit = args.target.partition("::")
    if not Path(path).is_file():
        print(f"miogen: no such file: {path}", file=sys.stderr)
        return 2
    location = locate(path, args.project_root)
    output = args.output or default_test_path(location)
    progress = _ProgressLine(args.budget, enabled=not args.json and sys.stderr.isatty())
    report = generate_module(
        path,
        [unit] if unit else None,
        args.budget,
        output,
        project_root=args.project_root,
        on_event=progress,
        seed=args.seed,
        algorithm=args.algorithm,
        evaluations=args.evaluations,
        test_timeout=args.test_timeout,
        careful=args.raw,
        mutation_share=args.mutation_share,
        criteria=args.criteria,
        performance=args.performance,
    )
    progress.done()
    summary = summarize(report)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_summary(summary)
    return summary["exit_code"]


class _ProgressLine:
    """A live line on a terminal: elapsed/budget, covered/total, executions per second."""

    def __init__(self, budget: float, enabled: bool) -> None:
        self.budget = budget
        self.enabled = enabled
        self.last = 0.0

    def __call__(self, unit: str, message: dict) -> None:
        if not self.enabled or message.get("event") != "progress":
            return
        now = time.monotonic()
        if now - self.last < 0.1:
            return
        self.last = now
        line = (
            f"\r{unit}: {message['elapsed']:.1f}/{self.budget:g}s  "
            f"{len(message['covered'])}/{message['total']} targets  {message['rate']:.0f} exec/s"
        )
        sys.stderr.write(line.ljust(70))
        sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 70 + "\r")


def _unit_summary(report: UnitReport, executed_lines: list[int], code: CodeMap) -> dict:
    result = report.outcome.result or {}
    measured = report.measured if report.measured is not None else []
    lines = line_coverage(executed_lines if report.tests else [], report.unit, code)
    branches = (len(measured), len(report.unit.targets))
    entry = {
        "name": report.unit.name,
        "kind": report.unit.kind,
        "status": report.outcome.status,
        "targets_total": len(report.unit.targets),
        "targets_covered": len(report.claimed),
        "measured_covered": len(measured),
        "tests": len(report.tests),
        "executions": result.get("executions", 0),
        "search_executions": result.get("search_executions", 0),
        "evaluations": result.get("evaluations", 0),
        "executions_per_second": round(result.get("rate", 0.0), 1),
        "search_seconds": round(result.get("search_seconds", 0.0), 3),
        "wall_seconds": round(report.outcome.wall_seconds, 3),
        "crashes": [c["reason"] for c in report.outcome.crashes],
        "refusals": result.get("refusals", {}),
        "uncovered": [_uncovered(report, item) for item in result.get("uncovered", [])],
        "criteria": criteria_summary(result.get("criteria", {}), branches, lines),
    }
    if set(measured) != set(report.claimed) and report.tests:
        entry["mismatch"] = {"claimed_only": sorted(set(report.claimed) - set(measured)),
                             "measured_only": sorted(set(measured) - set(report.claimed))}  # fmt: skip
    if report.outcome.status != "ok":
        entry["message"] = report.outcome.message
    return entry


def _uncovered(report: UnitReport, item: dict) -> dict:
    target = next(t for t in report.unit.targets if t.id == item["id"])
    return {
        "line": target.line,
        "arc": target.arc,
        "description": target.short,
        "closest": item["closest"],
    }


def summarize(report: GenerationReport) -> dict:
    verification = report.verification
    executed = verification.executed_lines if verification else []
    code = parse_code(report.model.source)
    units = [_unit_summary(r, executed, code) for r in report.units]
    total = sum(u["targets_total"] for u in units)
    measured = sum(u["measured_covered"] for u in units)
    # A unit whose worker kept dying and that produced nothing counts as failed.
    failed = [u for u in units if u["status"] != "ok" or (u["crashes"] and not u["tests"])]
    input_error = any(
        r.outcome.error and r.outcome.error.get("kind") in ("import", "syntax")
        for r in report.units
    )
    return {
        "module": report.location.module_name,
        "path": str(report.location.path),
        "output": str(report.output) if report.output else None,
        "units": units,
        "measured": {
            "tool": "coverage.py (branch=True) on the emitted tests",
            "covered": measured,
            "total": total,
            "percent": round(100.0 * measured / total, 1) if total else 100.0,
            "tests_passed": verification.passed if verification else 0,
            "tests_failed": verification.failed + verification.errors if verification else 0,
        },
        "dropped_failing_tests": report.dropped_failing,
        "dropped_unstable_tests": report.dropped_unstable,
        "stability_runs": 1 + report.stability_runs,
        # the kept tests' own run time under pytest without coverage.py (median of the reruns)
        "suite_seconds": round(statistics.median(report.runtimes), 4) if report.runtimes else None,
        "added": [n for n in report.merge.added if n.startswith("test")] if report.merge else [],
        "exit_code": 2 if input_error else (1 if failed else 0),
    }


def _print_summary(summary: dict) -> None:
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
    print(
        f"coverage.py: {measured['covered']}/{measured['total']} targets ({measured['percent']}%); "
        f"tests {measured['tests_passed']} passed, {measured['tests_failed']} failed"
    )
    if summary["suite_seconds"] is not None:
        print(f"suite runtime: {summary['suite_seconds']:.3f}s (pytest, median of the reruns)")
    if summary["dropped_failing_tests"]:
        print(f"dropped failing tests: {', '.join(summary['dropped_failing_tests'])}")
    if summary["dropped_unstable_tests"]:
        print(f"dropped unstable tests: {', '.join(summary['dropped_unstable_tests'])}")
    if summary["output"]:
        print(f"wrote {len(summary['added'])} tests to {summary['output']}")


if __name__ == "__main__":
    sys.exit(main())
