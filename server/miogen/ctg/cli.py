"""`miogen ctg`: continuous test generation over a project, for CI (see ctg/runner.py)."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from miogen.criteria import criteria_option
from miogen.errors import MiogenError
from miogen.records import Algorithm

if TYPE_CHECKING:
    from miogen.ctg.runner import CtgConfig


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
        "--budget", type=float, required=True,
        help="b: search seconds per job slot; the run shares jobs*b seconds, at most b per unit",
    )  # fmt: skip
    ctg.add_argument("--jobs", "-j", type=int, default=1, help="k: jobs at once (default 1)")
    ctg.add_argument("--report", type=Path, help="write a JSON report here")
    ctg.add_argument(
        "--fail-under", type=float, metavar="PCT", help="exit 1 when the pooled coverage is lower"
    )
    ctg.add_argument("--executor", choices=("local", "dask"), default="local")
    ctg.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="dask scheduler (tcp://host:8786); without it, a LocalCluster of --jobs workers",
    )  # fmt: skip
    ctg.add_argument("--history", type=Path, help="history file (default: .miogen/history.sqlite)")
    ctg.add_argument("--project-root", help="the project's root (default: found from PATH)")
    ctg.add_argument(
        "--strategy", choices=("ctg", "simple"), default="ctg",
        help="simple: an equal split with no history, the paper's baseline",
    )  # fmt: skip
    ctg.add_argument("--minimum", type=float, default=1.0, help="seconds a unit gets at least")
    ctg.add_argument(
        "--input-seeding", type=float, default=0.0, metavar="P",
        help="objects from other units' tests as inputs with probability P (<= 0.5; default off)",
    )  # fmt: skip
    ctg.add_argument("--seed", type=int, default=0)
    ctg.add_argument("--algorithm", type=Algorithm, choices=list(Algorithm), default=Algorithm.MIO)
    ctg.add_argument(
        "--criteria", type=criteria_option, default="smart",
        help="goals besides branches: smart (default), all, branch, or a comma list",
    )  # fmt: skip
    ctg.add_argument(
        "--performance", action="store_true",
        help="keep the cheaper test per covered goal (aDynaMOSA's performance score) under MIO",
    )  # fmt: skip
    ctg.add_argument("--test-timeout", type=float, default=1.0, help="seconds per test execution")
    ctg.add_argument(
        "--verify-runs", type=int, default=3, metavar="N",
        help="pytest runs of the new tests before they are merged, the later ones shuffled; "
        "a test that fails in any run is dropped (default 3)",
    )  # fmt: skip
    ctg.add_argument("--quiet", "-q", action="store_true", help="no per-job lines on stderr")
    ctg.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from miogen.ctg import report as reporting
    from miogen.ctg.jobs import dask_pool
    from miogen.ctg.runner import run_ctg

    _check(args)
    config = config_of(args)
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    with ExitStack() as stack:
        pool = None
        if args.executor == "dask":
            pool = stack.enter_context(dask_pool(args.scheduler, args.jobs))
        report = run_ctg(
            args.paths, config, root=args.project_root, history=args.history, pool=pool, log=log
        )
    for warning in report.warnings:
        print(f"miogen: warning: {warning}", file=sys.stderr)
    print("\n".join(reporting.table(report) + reporting.summary(report)))
    data = reporting.to_json(report, args.fail_under)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if args.fail_under is not None and data["exit_code"] and not report.failed:
        print(
            f"miogen: pooled coverage {report.pooled:.1f}% is under --fail-under {args.fail_under:g}%",
            file=sys.stderr,
        )
    code: int = data["exit_code"]
    return code


def config_of(args: argparse.Namespace) -> CtgConfig:
    """The run's configuration from the parsed ``miogen ctg`` arguments."""
    from miogen.ctg.runner import CtgConfig

    return CtgConfig(
        budget=args.budget, jobs=args.jobs, strategy=args.strategy, minimum=args.minimum,
        input_seeding=args.input_seeding, seed=args.seed, test_timeout=args.test_timeout,
        verify_runs=args.verify_runs,
        job_options={"algorithm": args.algorithm, "criteria": args.criteria,
                     "performance": args.performance},
    )  # fmt: skip


def _check(args: argparse.Namespace) -> None:
    if args.budget <= 0:
        raise MiogenError("--budget must be positive")
    if args.verify_runs < 1:
        raise MiogenError("--verify-runs must be at least 1")
    if args.jobs < 1:
        raise MiogenError("--jobs must be at least 1")
    if not 0.0 <= args.input_seeding <= 0.5:
        raise MiogenError("--input-seeding is a probability between 0 and 0.5")
    if args.scheduler and args.executor != "dask":
        raise MiogenError("--scheduler goes with --executor dask")
