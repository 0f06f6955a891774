"""`python -m bench ctg --scale`: `miogen ctg` on a project of 100 modules, 1 and 2 workers.

The subject is a copy of the running interpreter's pure-Python standard library, made at bench
time in a temporary folder (never committed): the top-level modules of ``sysconfig``'s stdlib
folder, in name order, without the private ones (``_*``), those that drive a terminal, a GUI,
processes, the network or the file system (``UNSAFE``), those larger than ``MAX_BYTES``, those
that do not import, and those without a unit that has something to cover; the first ``modules``
of them go into the package ``stdcopy/`` (a package, so that a copy never shadows the real
module that miogen itself imports). The project is a git repository, committed once.

Rows, each a full ``run_ctg`` (the code behind ``miogen ctg``) on a fresh copy without tests or
history, unless said otherwise:

- *local, 1 worker* and *local, 2 workers*: ctg's own executor (a thread per job slot, each
  supervising one worker process);
- *dask LocalCluster, 2 workers* (``--executor dask``);
- *dask scheduler, 2 workers*: ``dask scheduler`` and two ``dask worker`` processes started by the
  bench, each worker in a folder of its own outside the project (``--scheduler ADDRESS``); the
  project's path is on no worker's ``sys.path`` or ``PYTHONPATH``. Today a job still carries the
  module's absolute path, which the workers can read because they run on this machine; once jobs
  carry their sources (issue 27 part 1) the same row runs unchanged with nothing shared;
- *after a one-line change*: the 2-worker local copy again, with its tests and history, after one
  function of one module was edited, run as a CI job would (``--changed-since HEAD``: only the
  units the diff touches take part).

Budgets: the run shares ``seconds_per_unit * units`` seconds of search, whatever the number of
workers (so every row does the same work): ctg's *Budget* allocation gives each unit
``minimum`` and a share of the rest in proportion to its branches; ``--budget`` (b, seconds per
job slot) is that total divided by the workers, so the cap b never binds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from miogen.analysis.module import analyze_file
from miogen.common.records import JobSpec
from miogen.ctg.ci import Changes, changed_since
from miogen.ctg.jobs import Pool, dask_pool, local_pool
from miogen.ctg.runner import CtgConfig, CtgReport, run_ctg
from miogen.host.config import Options

BENCH = Path(__file__).resolve().parents[1]
OUT = BENCH / "results" / "ctg_scale.md"
DATA = BENCH / "results" / "ctg_scale.json"
RESULTS = BENCH / "RESULTS.md"
PACKAGE = "stdcopy"
MAX_BYTES = 40_000
# Packages copied whole (their modules import one another), in name order with the modules.
PACKAGES = ("email", "html", "json", "tomllib", "wsgiref", "xml", "zoneinfo")
# Modules whose functions drive a terminal, a GUI, a debugger, processes, signals, the network or
# the file system, or change the interpreter's state (import hooks, warnings, site): the worker's
# sandbox would refuse most of what they do, so their runs would measure the refusals.
UNSAFE = frozenset(
    {
        "antigravity", "this", "webbrowser", "turtle", "pdb", "bdb", "code", "codeop", "cmd",
        "getpass", "pty", "tty", "subprocess", "socket", "socketserver", "smtplib", "ftplib",
        "poplib", "imaplib", "nntplib", "telnetlib", "ssl", "selectors", "threading", "shutil",
        "tempfile", "os", "site", "sitecustomize", "runpy", "pydoc", "profile", "cProfile",
        "trace", "timeit", "tracemalloc", "crypt", "platform", "signal", "zipapp", "compileall",
        "py_compile", "filecmp", "fileinput", "glob", "mailbox", "shelve", "warnings", "abc",
        "io", "types", "typing", "copyreg", "uuid", "sched", "mailcap", "imp", "pkgutil",
        "modulefinder", "cgi", "cgitb", "pipes", "sre_compile", "sre_parse", "sre_constants",
        "linecache", "tabnanny", "pyclbr", "smtpd", "asynchat", "asyncore", "queue", "genericpath",
        "posixpath", "ntpath", "netrc", "zipimport", "opcode", "dis", "inspect", "rlcompleter",
        "wsgiref.simple_server",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Settings:
    modules: int = 100
    seconds_per_unit: float = 0.25  # the run's search seconds: this times the units
    minimum: float = 0.1  # every unit gets at least this (ctg's --minimum)
    seed: int = 0
    verify_runs: int = 3  # ctg's default
    evaluations: int | None = None  # per unit, instead of seconds (the fast test)
    names: tuple[str, ...] = ()  # these stdlib modules instead of the selection


@dataclass
class Row:
    name: str
    executor: str
    workers: int
    modules: int
    units: int  # units that took part
    ran: int  # units whose job ran
    failed: int
    tests_written: int
    covered: int
    targets: int
    pooled: float  # coverage.py's mu(P), percent
    wall_seconds: float
    generation_seconds: float  # the jobs' wall seconds, summed
    jobs_span_seconds: float  # first job submitted to last job done
    budget_seconds: float  # search seconds allocated
    load_before: float
    load_after: float
    job_seconds: dict[str, float] = field(default_factory=dict)  # module -> its job's wall s
    note: str = ""

    @property
    def client_seconds(self) -> float:
        """The run outside its jobs: discovery, coverage before, verification, merge, history."""
        return max(0.0, self.wall_seconds - self.jobs_span_seconds)


# --- the subject ---------------------------------------------------------------------------


def stdlib_folder() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def candidates(stdlib: Path) -> list[str]:
    """What to copy, in name order: top-level modules worth a run (``NAME``) and whole packages
    (``NAME/``), not yet import-checked. A top-level module qualifies when it is public, not in
    ``UNSAFE``, at most ``MAX_BYTES``, and has a unit with something to cover."""
    names = [f"{name}/" for name in PACKAGES if (stdlib / name / "__init__.py").exists()]
    for path in sorted(stdlib.glob("*.py")):
        name = path.stem
        if name.startswith("_") or name in UNSAFE or path.stat().st_size > MAX_BYTES:
            continue
        try:
            model = analyze_file(path, f"{PACKAGE}.{name}")
        except Exception:  # noqa: BLE001 - a module miogen cannot read is not a subject
            continue
        if any(unit.targets for unit in model.units):
            names.append(name)
    return sorted(names, key=lambda name: name.rstrip("/"))


def _copy(stdlib: Path, name: str, package: Path) -> list[Path]:
    """Copies module ``NAME`` or package ``NAME/`` (every module but ``UNSAFE``'s); the files."""
    if not name.endswith("/"):
        target = package / f"{name}.py"
        shutil.copyfile(stdlib / f"{name}.py", target)
        return [target]
    copied = []
    for path in sorted((stdlib / name).rglob("*.py")):
        relative = path.relative_to(stdlib)
        dotted = ".".join(relative.with_suffix("").parts)
        if dotted in UNSAFE or "__pycache__" in relative.parts:
            continue
        target = package / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        copied.append(target)
    return copied


def module_names(package: Path) -> list[str]:
    """The dotted names (without ``stdcopy.``) of the modules under ``package``, sorted."""
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package).with_suffix("").parts)
        if parts == ["__init__"]:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def importable(folder: Path, names: list[str]) -> list[str]:
    """Those of ``names`` that import as ``stdcopy.NAME`` from ``folder``, in one subprocess."""
    script = (
        "import importlib, json, sys, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "ok = []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        f"        importlib.import_module('{PACKAGE}.' + name)\n"
        "    except BaseException:\n"
        "        continue\n"
        "    ok.append(name)\n"
        "print('\\n' + json.dumps(ok))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script, *names], cwd=folder, capture_output=True, text=True,
        timeout=300, stdin=subprocess.DEVNULL, env=_clean_env(),
    )  # fmt: skip
    ok = set(json.loads(found.stdout.strip().splitlines()[-1])) if found.returncode == 0 else set()
    return [name for name in names if name in ok]


def make_project(folder: Path, settings: Settings, stdlib: Path | None = None) -> list[str]:
    """The copy: ``folder/stdcopy/`` with the first modules and packages of ``candidates`` (or
    ``settings.names``) until it holds ``settings.modules`` modules that import; a
    pyproject.toml; one git commit. Returns the modules' dotted names (without ``stdcopy.``)."""
    stdlib = stdlib or stdlib_folder()
    package = folder / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Copies of standard-library modules."""\n')
    (folder / "pyproject.toml").write_text(f'[project]\nname = "{PACKAGE}"\nversion = "0"\n')
    chosen: list[str] = []
    for name in list(settings.names) or candidates(stdlib):
        if len(chosen) >= settings.modules:
            break
        files = _copy(stdlib, name, package)
        fresh = [n for n in module_names(package) if n not in chosen]
        good = importable(folder, fresh)
        if name.endswith("/") and name.rstrip("/") not in good:
            good = []  # a package that does not import goes whole
        for path in files:
            if _dotted(package, path) not in good and path.exists():
                path.unlink()
        chosen += good
    for folder_path in sorted(package.rglob("*"), reverse=True):
        if folder_path.is_dir() and not any(folder_path.iterdir()):
            folder_path.rmdir()
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(
        folder, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "copy"
    )
    return sorted(chosen)


def _dotted(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def copy_project(source: Path, target: Path) -> None:
    """A fresh copy of the committed subject (git's files only: no tests, no history)."""
    _git(source, "clone", "-q", str(source), str(target))


def edit_one_module(folder: Path) -> str:
    """A one-line change in one unit: the first function of the first module (name order) gets
    a statement that changes its AST, not its behaviour. Returns ``module::function``."""
    for path in sorted((folder / PACKAGE).glob("*.py")):
        if path.name == "__init__.py":
            continue
        model = analyze_file(path, f"{PACKAGE}.{path.stem}")
        function = next((u for u in model.units if u.kind == "function" and u.targets), None)
        if function is None:
            continue
        lines = path.read_text().splitlines(keepends=True)
        body = _first_body_line(lines, function.line)
        indent = lines[body][: len(lines[body]) - len(lines[body].lstrip())]
        lines.insert(body, f"{indent}_bench_edit = 1  # the bench's one-line change\n")
        path.write_text("".join(lines))
        return f"{path.relative_to(folder).as_posix()}::{function.name}"
    raise ValueError("no module with a function to edit")


def _first_body_line(lines: list[str], line: int) -> int:
    """Index of the first statement line after the ``def`` header (and docstring) at ``line``."""
    import ast

    source = "".join(lines)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == line:
            first = node.body[0]
            is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            statement = node.body[1] if is_doc and len(node.body) > 1 else first
            if is_doc and len(node.body) == 1:
                return first.end_lineno or first.lineno  # after the docstring
            return statement.lineno - 1
    raise ValueError(f"no function at line {line}")


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                   stdin=subprocess.DEVNULL)  # fmt: skip


def _clean_env() -> dict[str, str]:
    """The environment without PYTHONPATH: nothing points at the project."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


# --- the runs ------------------------------------------------------------------------------


class TimedPool(Pool):
    """ctg's pool, noting each job's wall seconds (module's path -> seconds) and the jobs' span."""

    def __init__(self, pool: Pool) -> None:
        super().__init__(pool.executor, pool.parallel, pool.cancel, pool.name)
        self.job_seconds: dict[str, float] = {}
        self.first = self.last = 0.0

    def submit(self, spec: JobSpec) -> Future[dict[str, Any]]:
        self.first = self.first or time.monotonic()
        future = super().submit(spec)
        future.add_done_callback(lambda done: self._done(spec.path, done))
        return future

    def _done(self, path: str, future: Future[dict[str, Any]]) -> None:
        self.last = time.monotonic()
        if not future.cancelled() and future.exception() is None:
            self.job_seconds[path] = float(future.result().get("wall_seconds", 0.0))

    @property
    def span(self) -> float:
        return max(0.0, self.last - self.first)


def config_for(settings: Settings, units: int, workers: int) -> CtgConfig:
    """The same search seconds in total for any number of workers (see the module docstring)."""
    total = max(settings.minimum * units, settings.seconds_per_unit * units)
    options = Options(seed=settings.seed, evaluations=settings.evaluations)
    return CtgConfig(
        budget=total / workers, jobs=workers, minimum=settings.minimum,
        verify_runs=settings.verify_runs, options=options,
    )  # fmt: skip


def count_units(project: Path, changes: Changes | None = None) -> int:
    """Units with something to cover in the copy (those ``changes`` touch, if given)."""
    package = project / PACKAGE
    return sum(
        1
        for path in sorted(package.rglob("*.py"))
        for unit in analyze_file(path, f"{PACKAGE}.{_dotted(package, path)}").units
        if unit.targets and (changes is None or changes.touches(path, unit))
    )


def run_row(
    name: str,
    project: Path,
    settings: Settings,
    workers: int,
    executor: str = "local",
    scheduler: str | None = None,
    changed_ref: str | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[Row, CtgReport]:
    """One full ctg run on ``project``, timed from the executor's start to the history's write."""
    changes = changed_since(project, changed_ref) if changed_ref else None
    # The same seconds per unit as a full run: the budget follows the units taking part.
    config = config_for(settings, count_units(project, changes), workers)
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    with ExitStack() as stack:
        if executor == "dask":
            base = stack.enter_context(dask_pool(scheduler, workers))
        else:
            base = stack.enter_context(local_pool(workers))
        pool = TimedPool(base)
        report = run_ctg([project], config, root=project, pool=pool, log=log, changes=changes)
    wall = time.monotonic() - started
    row = Row(
        name=name, executor=_executor(executor, scheduler), workers=workers,
        modules=len({u.module.relative for u in report.units}), units=len(report.units),
        ran=sum(1 for u in report.units if u.outcome is not None),
        failed=sum(1 for u in report.units if u.status == "failed"),
        tests_written=sum(u.added for u in report.units), covered=report.covered,
        targets=report.branches, pooled=round(report.pooled, 2), wall_seconds=round(wall, 1),
        generation_seconds=round(report.generation_seconds, 1),
        jobs_span_seconds=round(pool.span, 1), budget_seconds=round(
            sum(u.allocation.seconds for u in report.units if u.allocation), 1),
        load_before=round(load_before, 2), load_after=round(os.getloadavg()[0], 2),
        job_seconds={_relative(k, project): round(v, 2) for k, v in sorted(pool.job_seconds.items())},
    )  # fmt: skip
    return row, report


def _relative(path: str, project: Path) -> str:
    return Path(path).resolve().relative_to(project.resolve()).as_posix()


def _executor(executor: str, scheduler: str | None) -> str:
    if executor != "dask":
        return "local"
    return "dask scheduler + workers" if scheduler else "dask LocalCluster"


@contextmanager
def external_cluster(workers: int, folder: Path, timeout: float = 120.0) -> Iterator[str]:
    """``dask scheduler`` and ``workers`` x ``dask worker`` (one process, one thread each), each
    worker started in a folder of its own under ``folder``; yields the scheduler's address."""
    from distributed import Client

    folder.mkdir(parents=True, exist_ok=True)
    scheduler_file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    processes = []
    env = _clean_env()
    try:
        processes.append(_start(
            [*dask, "--scheduler-file", str(scheduler_file), "--port", "0",
             "--dashboard-address", ":0", "--no-show"], folder, env, "scheduler"))  # fmt: skip
        deadline = time.monotonic() + timeout
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        for number in range(workers):
            home = folder / f"worker-{number}"
            home.mkdir()
            processes.append(_start(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                 "--nthreads", "1", "--local-directory", str(home), "--no-dashboard"],
                home, env, f"worker-{number}"))  # fmt: skip
        with Client(address, timeout=timeout) as client:
            client.wait_for_workers(workers, timeout=timeout)
        yield address
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _start(
    command: list[str], cwd: Path, env: dict[str, str], name: str
) -> subprocess.Popen[bytes]:
    log = (cwd / f"{name}.log").open("wb")
    return subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)  # fmt: skip


# --- the figures ---------------------------------------------------------------------------


def makespan(seconds: list[float], workers: int) -> float:
    """Longest-first greedy schedule of jobs on ``workers`` (what ctg's dispatch does).

    >>> makespan([4, 3, 3, 2], 2)
    6.0
    >>> makespan([4, 3, 3, 2], 64)
    4.0
    """
    slots = [0.0] * workers
    for job in sorted(seconds, reverse=True):
        slots[slots.index(min(slots))] += job
    return float(max(slots)) if seconds else 0.0


def projection(one: Row, two: Row | None, workers: int = 64) -> dict[str, float]:
    """What ``workers`` workers would take, Amdahl-style, from the 1-worker row's job times and
    the client's part of the rows (see ``notes``)."""
    jobs = list(one.job_seconds.values())
    client = two.client_seconds if two is not None else one.client_seconds
    return {
        "workers": workers,
        "jobs_serial": round(one.generation_seconds, 1),  # ctg's own sum of the jobs' wall s
        "longest_job": round(max(jobs, default=0.0), 1),
        "jobs_makespan": round(makespan(jobs, workers), 1),
        "client_1": round(one.client_seconds, 1),
        "client_2": round(two.client_seconds, 1) if two is not None else 0.0,
        "estimate": round(client + makespan(jobs, workers), 1),
        "client_share": round(one.client_seconds / one.wall_seconds, 3) if one.wall_seconds else 0,
    } | _fit(one, two, workers)


def _fit(one: Row, two: Row | None, workers: int) -> dict[str, float]:
    """The part outside jobs as S + V/k from k = 1 and 2 ({} when the two points do not allow
    it: no 2-worker row, or noise that makes S or V negative).

    >>> row = lambda k, client: Row("r", "local", k, 1, 1, 1, 0, 0, 0, 1, 0.0, client + 10.0,
    ...                            10.0, 10.0, 1.0, 0.0, 0.0, {"m.py": 10.0})
    >>> _fit(row(1, 100.0), row(2, 60.0), 64)["serial"]
    20.0
    >>> _fit(row(1, 100.0), row(2, 110.0), 64)
    {}
    """
    if two is None:
        return {}
    parallel = 2 * (one.client_seconds - two.client_seconds)
    serial = one.client_seconds - parallel
    if parallel <= 0 or serial <= 0:
        return {}
    jobs = makespan(list(one.job_seconds.values()), workers)
    return {
        "serial": round(serial, 1),
        "parallel": round(parallel, 1),
        "estimate_verified_on_workers": round(serial + parallel / workers + jobs, 1),
    }


HEADER = (
    "| run | executor | workers | modules | units run / taking part | tests written "
    "| coverage (mu(P)) | wall s | jobs span s | jobs summed s | outside jobs s | load 1 min |"
)


def table(rows: list[Row]) -> list[str]:
    lines = [HEADER, "|" + "---|" * (HEADER.count("|") - 1)]
    for row in rows:
        lines.append(
            f"| {row.name} | {row.executor} | {row.workers} | {row.modules} "
            f"| {row.ran} / {row.units} | {row.tests_written} "
            f"| {row.pooled:.1f}% ({row.covered}/{row.targets}) | {row.wall_seconds:.0f} "
            f"| {row.jobs_span_seconds:.0f} | {row.generation_seconds:.0f} "
            f"| {row.client_seconds:.0f} | {row.load_before:.1f} -> {row.load_after:.1f} |"
        )
    return lines


def report_text(rows: list[Row], settings: Settings, machine: dict[str, Any], notes: str) -> str:
    by_name = {row.name: row for row in rows}
    one, two = by_name.get(TITLES[ONE]), by_name.get(TITLES[TWO])
    lines = [
        f"## CTG at project scale: {machine['modules']} standard-library modules "
        "(issue 27; `python -m bench ctg --scale`)",
        "",
        f"Subject: {machine['modules']} pure-Python modules of Python {machine['python']}'s "
        f"standard library, copied at bench time into `{PACKAGE}/` of a temporary project "
        f"({machine['units']} units with something to cover; the modules: "
        f"{', '.join(machine['names'])}). Every run shares {settings.seconds_per_unit:g} s of "
        f"search per unit (minimum {settings.minimum:g} s, the rest by branches), whatever the "
        f"workers; verification {settings.verify_runs} pytest runs per module; seed "
        f"{settings.seed}. Machine: {machine['cpus']} cores shared with other work; load average "
        f"(1 min) before and after each run in the last column. *jobs span*: first job "
        "submitted to last job done; *jobs summed*: the jobs' wall seconds added up; "
        "*outside jobs*: wall minus span (discovery, coverage.py before, verification, merge, "
        "history: on the client).",
        "",
        *table(rows),
        "",
    ]
    if one is not None:
        p = projection(one, two)
        lines += [
            "**64 workers, on paper (Amdahl).** "
            f"The 1-worker run spent {p['jobs_serial']:.0f} s in its jobs (one per module with "
            f"something to cover, longest {p['longest_job']:.0f} s) and {p['client_1']:.0f} s outside "
            f"them ({100 * p['client_share']:.0f}% of its wall time"
            + (f"; {p['client_2']:.0f} s with 2 workers" if two is not None else "")
            + "). Scheduled longest first on 64 workers the jobs take "
            f"{p['jobs_makespan']:.0f} s (the longest job bounds it), so a run would take about "
            f"**{p['estimate']:.0f} s**: "
            f"{'the 2-worker' if two is not None else 'the 1-worker'} run's part outside jobs, "
            "unchanged, plus that makespan. Assumptions: workers as fast as this machine's cores "
            "were in the 1-worker run; no cost to ship a job; the client's part (coverage.py "
            "before, verification, merge) stays on the client and does not speed up with more "
            "workers, which makes it the serial part that bounds the speed-up; jobs stay one per "
            "module, so no run can be shorter than its longest module.",
            "",
        ]
        if "serial" in p:
            lines += [
                "If the client's verification ran on the workers too (issue 27 part 1), the part "
                "outside jobs would split: fitted as S + V/k to the 1- and 2-worker runs, "
                f"S = {p['serial']:.0f} s (discovery, the suite baseline, merge, history) and "
                f"V = {p['parallel']:.0f} s that parallelise, so 64 workers would take about "
                f"**{p['estimate_verified_on_workers']:.0f} s** (S + V/64 + the makespan; a fit "
                "of two noisy points on a loaded machine, so a rough figure).",
                "",
            ]
    lines += [notes.strip(), ""] if notes.strip() else []
    return "\n".join(lines)


ONE, TWO, LOCAL_DASK, EXTERNAL, CHANGE = "one", "two", "localcluster", "scheduler", "change"
TITLES = {
    ONE: "full, 1 worker", TWO: "full, 2 workers", LOCAL_DASK: "full, dask LocalCluster",
    EXTERNAL: "full, dask scheduler", CHANGE: "after a one-line change",
}  # fmt: skip
PLANS: dict[str, dict[str, Any]] = {
    ONE: {"workers": 1}, TWO: {"workers": 2}, LOCAL_DASK: {"workers": 2, "executor": "dask"},
    EXTERNAL: {"workers": 2, "executor": "dask", "external": True},
}  # fmt: skip
DEFAULT_ROWS = (ONE, TWO, EXTERNAL, CHANGE)  # the LocalCluster row on request (--rows)


def execute(
    settings: Settings,
    work: Path,
    rows: tuple[str, ...] = DEFAULT_ROWS,
    log: Callable[[str], None] = print,
    save: Callable[[list[Row], dict[str, Any]], None] | None = None,
) -> tuple[list[Row], dict[str, Any]]:
    """The subject, then each of ``rows`` (keys of ``TITLES``) on its own copy, ``save``d after
    each; returns the rows and the machine."""
    subject = work / "subject"
    names = make_project(subject, settings)
    machine = {
        "python": platform.python_version(), "cpus": os.cpu_count(), "modules": len(names),
        "units": count_units(subject), "names": names, "settings": asdict(settings),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }  # fmt: skip
    log(f"subject: {len(names)} modules, {machine['units']} units in {subject}")
    done: list[Row] = []
    projects: dict[str, Path] = {}
    for key in (k for k in rows if k != CHANGE):
        projects[key] = work / key
        copy_project(subject, projects[key])
        plan = dict(PLANS[key])
        with ExitStack() as stack:
            if plan.pop("external", False):
                plan["scheduler"] = stack.enter_context(
                    external_cluster(plan["workers"], work / "cluster")
                )
            row, _ = run_row(TITLES[key], projects[key], settings, **plan)
        done.append(row)
        log(f"{row.name}: {row.wall_seconds:.0f} s, {row.tests_written} tests, {row.pooled:.1f}%")
        if save:
            save(done, machine)
    if CHANGE in rows:
        key = TWO if TWO in projects else next(iter(projects), "")
        if not key:
            raise ValueError("the change row needs a full run before it")
        project = projects[key]
        _git(project, "add", "-A")
        _git(project, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit",
             "-qm", "after the first run")  # fmt: skip
        edited = edit_one_module(project)
        row, _ = run_row(
            TITLES[CHANGE], project, settings, PLANS[key]["workers"], changed_ref="HEAD"
        )
        row.note = f"edited {edited}; --changed-since HEAD, on the copy of {TITLES[key]!r}"
        done.append(row)
        log(f"{row.name}: {row.wall_seconds:.0f} s, {row.ran} units ran ({edited})")
        if save:
            save(done, machine)
    return done, machine


def save_data(rows: list[Row], machine: dict[str, Any], path: Path) -> None:
    data = {"machine": machine, "rows": [asdict(r) for r in rows]}
    path.write_text(json.dumps(data, indent=2) + "\n")


def load_data(path: Path) -> tuple[list[Row], dict[str, Any]]:
    data = json.loads(path.read_text())
    return [Row(**row) for row in data["rows"]], data["machine"]


def write(rows: list[Row], machine: dict[str, Any], out: Path) -> str:
    """The Markdown report (with ``NAME_notes.md`` beside it appended, if there is one)."""
    settings = Settings(**{**machine["settings"], "names": tuple(machine["settings"]["names"])})
    notes_path = out.with_name(out.stem + "_notes.md")
    notes = notes_path.read_text() if notes_path.exists() else ""
    change = [f"- *{r.name}*: {r.note}." for r in rows if r.note]
    text = report_text(rows, settings, machine, "\n".join(change) + "\n\n" + notes)
    out.write_text(text)
    return text


BEGIN, END = "<!-- ctg-scale: begin -->", "<!-- ctg-scale: end -->"


def splice(page: str, section: str) -> str:
    """``page`` with the scale section replaced (or added at the end), between markers.

    >>> splice("# A\\n", "x")
    '# A\\n\\n<!-- ctg-scale: begin -->\\nx\\n<!-- ctg-scale: end -->\\n'
    >>> splice(splice("# A\\n", "x"), "y").count("ctg-scale: begin")
    1
    """
    block = f"{BEGIN}\n{section.strip()}\n{END}\n"
    if BEGIN in page and END in page:
        head, _, rest = page.partition(BEGIN)
        _, _, tail = rest.partition(END)
        return head + block.rstrip("\n") + tail
    return page.rstrip("\n") + "\n\n" + block


def section(out: Path = OUT) -> str:
    """The latest scale table for bench/RESULTS.md ("" before the first run)."""
    if not out.exists():
        return ""
    source = f"(copied from [results/{out.name}](results/{out.name}))"
    lines = out.read_text().strip().splitlines()
    return "\n".join([lines[0], "", source, *lines[1:]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench ctg --scale", description=__doc__)
    parser.add_argument("--modules", type=int, default=Settings.modules)
    parser.add_argument("--seconds-per-unit", type=float, default=Settings.seconds_per_unit)
    parser.add_argument("--minimum", type=float, default=Settings.minimum)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rows", nargs="+", choices=list(TITLES), default=list(DEFAULT_ROWS),
        help=f"default: {' '.join(DEFAULT_ROWS)}",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=OUT, help=f"default {OUT}")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects")
    parser.add_argument("--report-only", action="store_true", help="redraw from the .json")
    args = parser.parse_args(argv)
    data = args.out.with_suffix(".json")
    if args.report_only:
        rows, machine = load_data(data)
    else:
        settings = Settings(args.modules, args.seconds_per_unit, args.minimum, args.seed)
        work = Path(tempfile.mkdtemp(prefix="miogen-ctg-scale-"))
        try:
            rows, machine = execute(
                settings, work, tuple(r for r in TITLES if r in args.rows),
                save=lambda done, machine: save_data(done, machine, data),
            )  # fmt: skip
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
    text = write(rows, machine, args.out)
    if args.out == OUT:
        RESULTS.write_text(splice(RESULTS.read_text(), section(OUT)))
    print(text)
    return 0
