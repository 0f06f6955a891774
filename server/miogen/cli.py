"""`miogen generate | serve | ctg | bench`: the command line over the engine."""

from __future__ import annotations

import argparse
import json
import signal
import socket
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from miogen.analysis.targets import CodeMap, parse_code
from miogen.common.errors import MiogenError
from miogen.common.platform_support import require_sandbox
from miogen.common.project import locate
from miogen.common.records import Algorithm, ErrorKind, Event, Progress, Uncovered, to_json
from miogen.criteria.summary import criteria_summary, describe, line_coverage
from miogen.ctg.cli import add_parser as _add_ctg_parser
from miogen.host.config import command_line, flag, options
from miogen.host.early import EarlyWorker
from miogen.host.interpreter import project_interpreter
from miogen.host.runs import stop_runs
from miogen.host.suite_kills import SuiteKills
from miogen.run.generate import generate_module
from miogen.run.report import Coverage, Report, UnitEntry, report_json
from miogen.run.result import Dropped, ModuleRun, UnitRun, Verification
from miogen.run.write import output_for

SANDBOXED_COMMANDS = ("generate", "serve", "ctg")  # they run user code in sandboxed workers
CANCELLABLE_COMMANDS = ("generate", "ctg")  # SIGINT/SIGTERM stop their processes and exit


def main(argv: list[str] | None = None, worker: EarlyWorker | None = None) -> int:
    """The command in ``argv``; ``worker``: one launched for its job at the process's start
    (``python -m miogen``), stopped here if the job does not take it."""
    try:
        parser = _parser()
        args = parser.parse_args(argv)
        args.worker = worker
        if args.command in SANDBOXED_COMMANDS:
            require_sandbox(args.command)
        with _cancellable(args.command in CANCELLABLE_COMMANDS):
            code: int = args.run(args)
        return code
    except MiogenError as error:
        print(f"miogen: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or Cancelled (SIGINT, SIGTERM)
        print("miogen: cancelled", file=sys.stderr)
        return 128 + (stop.signum if isinstance(stop, Cancelled) else signal.SIGINT)
    finally:
        if worker is not None:
            worker.close()


class Cancelled(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived: raised in the main thread, it unwinds the command, whose
    ``finally`` and ``except BaseException`` blocks stop the workers (``cancel`` flags) and
    close the pytest processes; the exit status is 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _cancellable(wanted: bool) -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Cancelled`` while the command runs (SIGTERM's default would
    end this process at once and leave its workers, each in a session of its own, running).

    Python runs the handler in the main thread, but the kernel may deliver the signal to any
    thread: the main thread, blocked on a lock (``job.result()``), would then not wake until
    the job ends. The signal's byte on the wakeup descriptor makes a relay thread send it to
    the main thread itself.
    """
    if not wanted or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    receiving, sending = socket.socketpair()
    sending.setblocking(False)
    previous_fd = signal.set_wakeup_fd(sending.fileno(), warn_on_full_buffer=False)
    relay = threading.Thread(
        target=_relay, args=(receiving, threading.main_thread().ident), daemon=True
    )
    for number in previous:
        signal.signal(number, _cancel)
    relay.start()
    cancelled = False
    try:
        yield
    except Cancelled:
        cancelled = True  # the handlers stay SIG_IGN: the command is ending, no second stop
        raise
    finally:
        signal.set_wakeup_fd(previous_fd)
        sending.close()  # the relay reads the end of the stream and closes its side
        if not cancelled:
            for number, handler in previous.items():
                signal.signal(number, handler)


def _relay(receiving: socket.socket, main: int | None) -> None:
    with receiving:
        while received := receiving.recv(16):
            for number in received:
                if number in STOP_SIGNALS and main is not None:
                    signal.pthread_kill(main, number)


def _cancel(signum: int, frame: object) -> None:
    # Once: a second Ctrl-C must not interrupt the clean-up the first one started.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    stop_runs()  # the verification's pytest processes: the threads waiting for them return
    raise Cancelled(signum)


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
        help="test file (default: a file of miogen's own under the project's test folder, "
        "mirroring the package: tests/pkg/test_<module>_miogen.py)",
    )
    generate.add_argument("--json", action="store_true", help="print one machine-readable summary")
    generate.add_argument(
        "--no-baseline", action="store_true",
        help="keep every verified test, whether or not the project's own tests cover the same",
    )  # fmt: skip
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
    generate.add_argument(
        "--join-tests",
        action="store_const",
        const=True,
        help="join kept tests into fewer that each do several things (default: one behaviour "
        "per test)",
    )
    generate.add_argument("--project-root", help="how imports in the emitted tests are written")
    generate.add_argument(
        "--python",
        metavar="PATH",
        help="the project's interpreter, where its code and tests run (default: the active "
        "virtual environment, else the project's .venv, venv or env, else miogen's own)",
    )
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
    serve = commands.add_parser(
        "serve",
        help="run the language server (stdio by default)",
        description="Run the language server over stdio (the default), TCP on the loopback "
        "interface (the client's first line must be the token), or a Unix socket of mode 0600. "
        "One client at a time.",
    )
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument(
        "--tcp",
        action="store_true",
        help="listen on --host:--port; the token is $MIOGEN_TOKEN if set, else a random one "
        "written to --token-file (or a new temporary file) whose path is printed",
    )
    transport.add_argument(
        "--socket", type=Path, metavar="PATH", help="listen on a Unix socket (mode 0600) at PATH"
    )
    serve.add_argument("--host", default="127.0.0.1", help="a loopback address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2087, help="0: any free port (printed)")
    serve.add_argument(
        "--token-file", type=Path, metavar="PATH", help="where to write the token (a new file)"
    )
    serve.set_defaults(run=run_serve)
    _add_ctg_parser(commands)
    return parser


def run_serve(args: argparse.Namespace) -> int:
    from miogen.lsp.server import serve

    return serve(
        tcp=args.tcp,
        host=args.host,
        port=args.port,
        token_file=args.token_file,
        socket_path=args.socket,
    )


def run_generate(args: argparse.Namespace) -> int:
    path, _, unit = args.target.partition("::")
    if not Path(path).is_file():
        print(f"miogen: no such file: {path}", file=sys.stderr)
        return 2
    # Each decided once, here, and handed down: the module's location, the settings, the
    # output (``run.write.output_for``), the project's interpreter.
    location = locate(path, args.project_root)
    settings = options(command_line(location.project_root, args))
    output = output_for(location, settings, args.output)
    interpreter = project_interpreter(location.project_root, args.python)
    progress = _ProgressLine(settings.budget_seconds, enabled=not args.json and sys.stderr.isatty())
    report = generate_module(
        location,
        [unit] if unit else None,
        output,
        settings,
        on_event=progress,
        raw=args.raw,
        spares=getattr(args, "worker", None) if interpreter.own else None,
        interpreter=interpreter,
        baseline=not args.no_baseline,
    )
    progress.done()
    summary = summarize(report)
    summary["settings"] = to_json(settings)
    summary["python"] = {"executable": interpreter.executable, "origin": interpreter.origin}
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


def _unit_entry(report: UnitRun, module: str) -> UnitEntry:
    """The unit's fields in every ``--json`` report (``run.report``)."""
    message = report.outcome.message if report.outcome.status != "ok" else ""
    status: str = report.outcome.status
    if report.skipped:  # no search: the project's suite covers the unit completely
        status, message = "skipped", report.skipped
    return UnitEntry(
        module, report.unit.name, report.unit.kind, status,
        Coverage.of(report.numbers), len(report.tests), message,
    )  # fmt: skip


def _unit_summary(report: UnitRun, executed_lines: list[int], code: CodeMap) -> dict[str, Any]:
    """The unit's fields of ``generate`` alone."""
    result = report.outcome.result
    measured = report.measured
    lines = line_coverage(executed_lines if report.tests else [], report.unit, code)
    branches = (len(measured), len(report.unit.targets))
    worker = to_json(result.criteria) if result else {}
    entry: dict[str, Any] = {
        "stop_reason": report.outcome.stop_reason,
        "targets_covered": len(report.claimed),
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
    return entry


def _uncovered(report: UnitRun, item: Uncovered) -> dict[str, Any]:
    target = next(t for t in report.unit.targets if t.id == item.id)
    return {
        "line": target.line,
        "arc": target.arc,
        "description": target.short,
        "closest": item.closest,
    }


def summarize(report: ModuleRun) -> dict[str, Any]:
    """The ``--json`` report (``run.report``, and what the human summary prints)."""
    verification = report.verification
    measurement = verification.measurement if verification else None
    executed = measurement.executed_lines if measurement else []
    code = parse_code(report.model.source)
    module = report.location.module_name
    entries = [_unit_entry(r, module) for r in report.units]
    units = [_unit_summary(r, executed, code) for r in report.units]
    # A unit whose worker kept dying and that produced nothing counts as failed.
    failed = [
        entry for entry, unit in zip(entries, units, strict=True)
        if entry.status not in ("ok", "skipped") or (unit["crashes"] and not entry.tests)
    ]  # fmt: skip
    error = report.job.error if report.job else None
    input_error = error is not None and error.kind in (ErrorKind.IMPORT, ErrorKind.SYNTAX)
    dropped = verification.dropped if verification else Dropped()
    added = [n for n in report.merge.added if n.startswith("test")] if report.merge else []
    kept = len(report.tests)
    # Nothing kept is no success (a run that writes no test says so and fails), unless the
    # project's suite already covers what the tests found cover: that is a result.
    nothing = not kept and not _suite_complete(dropped) and not _all_covered(report)
    exit_code = 2 if input_error else 1 if failed or nothing or dropped.unimportable else 0
    summary = Report(
        "generate", str(report.location.project_root), Coverage.of(report.numbers), entries,
        _notes(report, kept), exit_code,
    )  # fmt: skip
    own = {
        "module": module,
        "path": str(report.location.path),
        "output": str(report.output) if report.output else None,
        "measured": {  # coverage.py's run of the emitted tests
            # coverage.py's own figure for the module file (its report's total, branch=True)
            "module_percent": _rounded(measurement.module_percent if measurement else None),
            "tests_passed": measurement.passed if measurement else 0,
            "tests_failed": measurement.failed + measurement.errors if measurement else 0,
        },
        "dropped_failing_tests": dropped.failing,
        "dropped_unstable_tests": dropped.unstable,
        "dropped_sandbox_tests": dropped.sandbox,
        "test_file_error": dropped.unimportable or None,
        "dropped": _dropped_counts(units, dropped),
        "stability_runs": verification.runs if verification else 0,
        # a rerun had the clock five years ahead (needs libfaketime: Debian's faketime)
        "clock_ahead": verification.clock_ahead if verification else False,
        # one per worker process the job ran in; spare: started before the job (and its spec)
        "workers": to_json(report.job.workers) if report.job else [],
        "seconds": {step: round(value, 3) for step, value in _seconds(report).items()},
        # the kept tests' own run time under pytest without coverage.py (median of the reruns)
        "suite_seconds": _suite_seconds(verification),
        "added": added,
        "suite": _suite_summary(report),
    }
    return report_json(summary, own, units)


def _notes(report: ModuleRun, kept: int) -> list[str]:
    """What a reader of the summary must know besides the numbers."""
    notes = list(report.notes)
    if report.model.only_private and len(report.units) == len(report.model.private_units):
        names = ", ".join(r.unit.name for r in report.units)
        notes.append(f"the module has no public class or function: tests are for {names}")
    if _all_covered(report):
        notes.append("no search: your suite covers every branch of the module's units")
    elif not kept:
        notes.append("no tests written: " + _why_nothing(report))
    elif report.merge is not None and not report.merge.added:
        notes.append(f"no new tests: {report.output} holds them all already")
    return notes


def _all_covered(report: ModuleRun) -> bool:
    """Whether the project's suite covers every unit completely, so that none was searched."""
    return bool(report.units) and all(unit.skipped for unit in report.units)


def _suite_complete(dropped: Dropped) -> bool:
    """Whether every test found passed and was left out only for adding nothing to the suite."""
    return bool(dropped.adds_nothing) and not (
        dropped.failing or dropped.unstable or dropped.sandbox
    )


def _why_nothing(report: ModuleRun) -> str:
    found = sum(len(r.outcome.result.tests) for r in report.units if r.outcome.result)
    if not found:
        return "the search kept no test"
    verification = report.verification
    dropped = verification.dropped if verification else Dropped()
    if dropped.unimportable:
        return dropped.unimportable
    if _suite_complete(dropped):
        killing = any(t.killed for r in report.units if r.outcome.result
                      for t in r.outcome.result.tests)  # fmt: skip
        kills = " and kills every mutant they kill" if killing else ""
        return f"your suite already covers all that the {found} tests found cover{kills}"
    causes = {"failing": dropped.failing, "unstable": dropped.unstable, "sandbox": dropped.sandbox,
              "adding nothing to your suite": dropped.adds_nothing}  # fmt: skip
    counts = ", ".join(f"{len(names)} {cause}" for cause, names in causes.items() if names)
    return f"the verification dropped all {found} found ({counts or 'none passed'})"


def _rounded(value: float | None) -> float | None:
    return round(value, 1) if value is not None else None


def _suite_summary(report: ModuleRun) -> dict[str, Any] | None:
    """What the kept tests add to the project's own suite (coverage.py, per unit and module)."""
    if report.suite is None:
        return None
    gains = [*report.gains.values()]
    return {
        "ran": report.suite.ran, "cached": report.suite.cached, "error": report.suite.error,
        "failing": dict(report.suite.failures),
        "units": {g.name: {"suite": len(g.suite), "combined": len(g.combined), "added": g.added,
                           "total": g.total, "branches": g.branches,
                           "lines_added": g.lines_added, "mutants_added": g.mutants} for g in gains},
        "lines": [g.describe() for g in gains] + ([report.gain.describe()] if gains else []),
        "mutant_runs": _mutant_runs(report.suite_kills),
    }  # fmt: skip


def _mutant_runs(verdict: SuiteKills | None) -> dict[str, Any] | None:
    """The project's suite run against the mutants the tests kill (``host.suite_kills``): its
    pytest runs, their seconds, and the mutants it kills, leaves alive and did not judge (past
    its cap of runs) (None: not asked)."""
    if verdict is None or verdict.seconds is None:
        return None
    return {
        "runs": verdict.runs, "seconds": round(verdict.seconds, 3),
        "cpu_seconds": round(verdict.cpu_seconds, 3),
        "killed": [f"{unit}#{index}" for unit, index in sorted(verdict.killed)],
        "alive": [f"{unit}#{index}" for unit, index in sorted(verdict.alive)],
        "unjudged": [f"{unit}#{index}" for unit, index in sorted(verdict.unjudged)],
    }  # fmt: skip


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


def _seconds(report: ModuleRun) -> dict[str, float]:
    """Wall seconds: the whole run, and each step before and after the units' budget."""
    seconds = dict(report.seconds)
    if report.job is not None:
        for phase, value in report.job.phases.items():
            seconds[f"worker_{phase}"] = value
    return seconds


def _print_summary(summary: dict[str, Any]) -> None:
    for unit in summary["units"]:
        line = (
            f"{unit['name']}: {unit['coverage']['covered']}/{unit['coverage']['total']} targets "
            f"(coverage.py), {unit['tests']} tests, {unit['executions']} executions "
            f"({unit['executions_per_second']:.0f}/s), {unit['search_seconds']:.1f}s search"
        )
        if unit["status"] == "skipped":
            total = unit["coverage"]["total"]
            line = f"{unit['name']}: {unit['message']} (all {total} targets), no search"
        elif unit["status"] != "ok":
            line = f"{unit['name']}: {unit['status']}: {unit['message']}"
        print(line)
        if unit["status"] == "ok" and unit["criteria"]:
            print(f"  criteria: {describe(unit['criteria'])}")
        for crash in unit["crashes"]:
            print(f"  worker crash: {crash}")
        for item in unit["uncovered"][:10]:
            closest = f" — closest: {item['closest']}" if item["closest"] else ""
            print(f"  line {item['line']}: {item['description']}{closest}")
    measured, coverage = summary["measured"], summary["coverage"]
    # The one percentage shown is coverage.py's own (`coverage report --branch` on the module).
    module = measured["module_percent"]
    share = (
        f"; the module at {module}% by coverage.py"
        if module is not None and coverage["total"]
        else ""
    )
    print(
        f"coverage.py: {coverage['covered']}/{coverage['total']} targets{share}; "
        f"tests {measured['tests_passed']} passed, {measured['tests_failed']} failed"
    )
    if summary["suite_seconds"] is not None:
        print(f"suite runtime: {summary['suite_seconds']:.3f}s (pytest, median of the reruns)")
    if summary["test_file_error"]:
        print(f"the test file could not be imported: {summary['test_file_error']}; no test kept")
    if summary["dropped_failing_tests"]:
        print(f"dropped failing tests: {', '.join(summary['dropped_failing_tests'])}")
    if summary["dropped_unstable_tests"]:
        print(f"dropped unstable tests: {', '.join(summary['dropped_unstable_tests'])}")
    if summary["stability_runs"] > 1 and not summary["clock_ahead"]:
        print("not checked with the clock ahead: libfaketime not found (apt-get install faketime)")
    _print_suite(summary["suite"])
    if summary["output"]:
        print(f"wrote {len(summary['added'])} tests to {summary['output']}")
    for note in summary["warnings"]:
        print(f"note: {note}")


def _print_suite(suite: dict[str, Any] | None) -> None:
    if suite is None:
        return
    for test, line in sorted(suite["failing"].items())[:10]:
        print(f"your suite: {test} fails: {line}")
    if suite["error"] and suite["ran"]:
        print(f"your suite: {suite['error']}")
    for line in suite["lines"]:
        print(line)
    runs = suite["mutant_runs"]
    if runs is not None and runs["runs"]:
        mutants = len(runs["killed"]) + len(runs["alive"])
        unjudged = f", {len(runs['unjudged'])} not judged" if runs["unjudged"] else ""
        print(
            f"your suite against {mutants} mutants{unjudged}: {runs['runs']} pytest runs, "
            f"{runs['seconds']:.1f}s ({runs['cpu_seconds']:.1f}s CPU)"
        )


if __name__ == "__main__":
    sys.exit(main())
