"""`miogen ctg`: continuous test generation over a project, for CI (see ctg/runner.py)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miogen.common.atomic import write_atomically
from miogen.common.errors import MiogenError
from miogen.common.records import Algorithm
from miogen.host.config import CTG_KEYS, DEFAULTS, command_line, flag, options
from miogen.host.interpreter import project_interpreter
from miogen.run.check import VERIFY_RUNS

if TYPE_CHECKING:
    from miogen.ctg.runner import CtgConfig, CtgReport


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Adds the ``ctg`` subcommand to the ``miogen`` parser's subcommands."""
    ctg = commands.add_parser(
        "ctg",
        help="generate tests for a whole project within one budget (continuous test generation)",
        description="Discover the units under PATHs, share the budget among them (changed units "
        "first), run the jobs seeded from the history, merge the tests into the test files, "
        "and report the pooled branch coverage measured by coverage.py.",
    )
    ctg.add_argument("paths", nargs="*", type=Path, help="files or folders (default: .)")
    ctg.add_argument(
        "--budget", type=flag("budget", CTG_KEYS), metavar="SECONDS",
        help="b: search seconds per job slot; the run shares jobs*b seconds, at most b per unit "
        "(required here or as budget in [tool.miogen.ctg])",
    )  # fmt: skip
    ctg.add_argument(
        "--jobs", "-j", type=flag("jobs", CTG_KEYS), help="k: jobs at once (default 1)"
    )
    ctg.add_argument("--report", type=Path, help="write a JSON report here")
    ctg.add_argument("--json", action="store_true", help="print the JSON report, not the table")
    ctg.add_argument(
        "--fail-under", type=flag("failUnder", CTG_KEYS), metavar="PCT",
        help="exit 1 when the pooled coverage is lower",
    )  # fmt: skip
    ctg.add_argument("--executor", choices=("local", "dask"), default="local")
    ctg.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="dask scheduler (tcp://host:8786); without it, a LocalCluster of --jobs workers",
    )  # fmt: skip
    ctg.add_argument(
        "--history", type=Path,
        help="history file (default: .miogen/history.sqlite); cache it between CI runs",
    )  # fmt: skip
    ctg.add_argument(
        "--changed-since", metavar="REF",
        help="only the units changed since the git ref REF (its merge base with HEAD), "
        "uncommitted changes included",
    )  # fmt: skip
    ctg.add_argument(
        "--summary-md", type=Path, metavar="FILE", help="write a Markdown summary (a PR comment)"
    )
    ctg.add_argument(
        "--junit-xml", type=Path, metavar="FILE",
        help="run the written test files once more and write pytest's JUnit XML",
    )  # fmt: skip
    ctg.add_argument(
        "--coverage-xml", type=Path, metavar="FILE",
        help="coverage.py's XML report (branches) of the written test files alone",
    )  # fmt: skip
    ctg.add_argument("--project-root", help="the project's root (default: found from PATH)")
    ctg.add_argument(
        "--python",
        metavar="PATH",
        help="the project's interpreter, where its code and tests run (default: the active "
        "virtual environment, else the project's .venv, venv or env, else miogen's own)",
    )
    ctg.add_argument(
        "--strategy", choices=("ctg", "simple"), default="ctg",
        help="simple: an equal split with no history, the paper's baseline",
    )  # fmt: skip
    ctg.add_argument("--minimum", type=float, default=1.0, help="seconds a unit gets at least")
    ctg.add_argument(
        "--input-seeding", type=float, default=0.0, metavar="P",
        help="objects from other units' tests as inputs with probability P (<= 0.5; default off)",
    )  # fmt: skip
    ctg.add_argument("--seed", type=flag("seed"), help="of the searches (default 0)")
    ctg.add_argument(
        "--algorithm", type=flag("algorithm"), choices=list(Algorithm), help="(default mio)"
    )
    ctg.add_argument(
        "--criteria", type=flag("criteria"),
        help="goals besides branches: smart (default), all, branch, or a comma list",
    )  # fmt: skip
    ctg.add_argument(
        "--evaluations", type=flag("evaluations"),
        help="budget in fitness evaluations per unit instead of the allocation's seconds "
        "(reproducible runs; --budget still chooses which units run, and in which order)",
    )  # fmt: skip
    ctg.add_argument(
        "--join-tests", action="store_const", const=True,
        help="join kept tests into fewer that each do several things (default: one behaviour "
        "per test)",
    )  # fmt: skip
    ctg.add_argument(
        "--performance", action="store_const", const=True,
        help="keep the cheaper test per covered goal (aDynaMOSA's performance score) under MIO",
    )  # fmt: skip
    ctg.add_argument(
        "--test-timeout", type=flag("testTimeout"), help="seconds per test execution (default 1)"
    )
    ctg.add_argument(
        "--tests-directory", type=flag("testsDirectory"), metavar="FOLDER",
        help="where the test files go, relative to the project root (default: tests-directory "
        "in [tool.miogen], else pytest's testpaths, tests/ or test/)",
    )  # fmt: skip
    ctg.add_argument(
        "--test-file-pattern", type=flag("testFilePattern"), metavar="PATTERN",
        help="the generated test file's name, {module} replaced (default test_{module}_miogen.py)",
    )  # fmt: skip
    ctg.add_argument(
        "--mutation-share", type=flag("mutationShare"), metavar="SHARE",
        help="share of a job's budget kept for tests that kill mutants (default 0.2)",
    )  # fmt: skip
    ctg.add_argument(
        "--verify-runs", type=flag("verifyRuns", CTG_KEYS), metavar="N",
        help="pytest runs of the new tests before they are merged, the later ones shuffled; "
        f"a test that fails in any run is dropped (default {VERIFY_RUNS})",
    )  # fmt: skip
    ctg.add_argument("--quiet", "-q", action="store_true", help="no per-job lines on stderr")
    ctg.add_argument(
        "--no-baseline", action="store_true",
        help="do not run the project's own tests: only the module's test file counts as covered",
    )  # fmt: skip
    ctg.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from miogen.ctg import report as reporting
    from miogen.ctg.ci import changed_since
    from miogen.ctg.discovery import project_root
    from miogen.ctg.jobs import dask_pool
    from miogen.ctg.runner import run_ctg

    _check(args)
    root = project_root([Path(p) for p in args.paths], args.project_root)
    values = command_line(root, args)
    config = _config(args, values)
    config = dataclasses.replace(config, interpreter=project_interpreter(root, args.python))
    changes = changed_since(root, args.changed_since) if args.changed_since else None
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    with ExitStack() as stack:
        pool = None
        if args.executor == "dask":
            pool = stack.enter_context(dask_pool(args.scheduler, config.jobs))
        report = run_ctg(
            args.paths, config, root=root, history=args.history, pool=pool, log=log,
            changes=changes,
        )  # fmt: skip
    for warning in report.warnings:
        print(f"miogen: warning: {warning}", file=sys.stderr)
    fail_under: float | None = values.get("fail_under")
    data = reporting.to_json(report, fail_under)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print("\n".join(reporting.table(report) + reporting.summary(report)))
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        # Whole or not at all, also when the command is cancelled while it writes.
        write_atomically(args.report, json.dumps(data, indent=2) + "\n")
    if args.summary_md:
        args.summary_md.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(args.summary_md, reporting.markdown(report, fail_under))
    _xml_reports(args, report)
    if fail_under is not None and data["exit_code"] == 1 and not report.failed:
        print(
            f"miogen: pooled coverage {report.pooled:.1f}% is under --fail-under {fail_under:g}%",
            file=sys.stderr,
        )
    code: int = data["exit_code"]
    return code


def _xml_reports(args: argparse.Namespace, report: CtgReport) -> None:
    """--junit-xml and --coverage-xml: the written test files run once more (none written: no
    file, and a note)."""
    from miogen.ctg.ci import run_written_tests

    if not (args.junit_xml or args.coverage_xml):
        return
    if not report.written:
        print("miogen: no test file written: no JUnit or coverage XML", file=sys.stderr)
        return
    found = run_written_tests(
        report.written, report.root, args.junit_xml, args.coverage_xml, report.config.interpreter
    )
    if found.exit_code not in (0, 5):
        print(f"miogen: warning: the written tests fail (pytest exit {found.exit_code})",
              file=sys.stderr)  # fmt: skip


def _config(args: argparse.Namespace, values: dict[str, Any]) -> CtgConfig:
    """The run's configuration: flags, then the project's [tool.miogen] tables, then defaults."""
    from miogen.ctg.runner import CtgConfig

    if "budget" not in values:
        raise MiogenError(
            "a budget is needed: --budget SECONDS, or budget in [tool.miogen.ctg] of pyproject.toml"
        )
    engine = options(values)
    given = {name: values[name] for name in ("budget", "jobs", "verify_runs") if name in values}
    # Every engine setting but the budget, which is the allocation's (``evaluations``, when
    # set, replaces each unit's seconds as in ``miogen generate``).
    chosen = dataclasses.replace(engine, budget_seconds=DEFAULTS.budget_seconds)
    return CtgConfig(
        **given, strategy=args.strategy, minimum=args.minimum, input_seeding=args.input_seeding,
        baseline=not args.no_baseline, options=chosen,
    )  # fmt: skip


def _check(args: argparse.Namespace) -> None:
    if not 0.0 <= args.input_seeding <= 0.5:
        raise MiogenError("--input-seeding is a probability between 0 and 0.5")
    if args.scheduler and args.executor != "dask":
        raise MiogenError("--scheduler goes with --executor dask")
