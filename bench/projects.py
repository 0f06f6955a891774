"""`python -m bench projects`: miogen in real projects that have suites of their own.

Each project is a source distribution from PyPI, pinned by version and sha256 (fetched with
``pip download --no-deps --no-binary :all:`` into bench/results/tmp/projects-cache/, a folder
git ignores), unpacked into a fresh folder. There, per module, ``miogen generate`` writes a file
of its own beside the project's tests (marked as generated). Then the project's plain
``pytest`` runs twice from its root under coverage.py (branch): without the generated files
(the human suite) and with them (combined). Per project it reports the human suite's branch %,
the combined %, the branches added, the human files modified (by content hash), the generated
tests failing in the project's own run, and the wall time. The generated files then run twice
more alone under the project's pytest: a generated test failing in all three runs is failing,
in some of them flaky.

Pynguin (bench/pynguin.py, its own venv) runs per module at 30 s (``--pynguin-budget``;
``--no-pynguin`` skips it); its files go where miogen's went (miogen's set aside) and the
project's pytest measures the human suite plus Pynguin's tests the same way. With
``--mutation``, cosmic-ray (bench/mutation.py's venv) lists and applies the mutants of the
modules a project names in ``mutation``; the baseline is the project's whole suite, per mutant
the tests of it that run the mutated lines (coverage.py's per-test contexts of one measured run
of the suite; a mutant no test runs is alive with no run), as miogen's own baseline is the
whole suite; each survivor is applied again with the generated file alone: the mutants the
human suite leaves alive that miogen's tests kill. ``--mutation-check N`` runs N mutants per
module against the whole suite too, to check the lines' verdicts. Beside it, miogen's own count
("+N mutants killed over your suite": its mutants, which its tests kill and the project's tests
do not), from what ``miogen generate`` printed.

Every figure is coverage.py's (``coverage json``'s covered_branches / num_branches of the
modules generated for), measured by the project's own pytest run, not miogen's report. Of the
branches the human suite misses, those no test can take on the running Python are counted apart
(``unreachable``, by bench/py2_branches.py's rules: the sides of version guards only Python 2
takes, of feature checks for a builtin this Python has, and the bodies of ``if __name__ ==
"__main__":``), so that what miogen adds can be
judged against the reachable ones too; the branches the combined run still misses are kept per
module (``still_missed``) to be studied one by one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / "results" / "tmp" / "projects-cache"
RESULTS = BENCH / "results" / "projects"


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    sha256: str  # of the sdist
    modules: tuple[str, ...]  # relative to the unpacked root
    tests: str  # folder (relative) where the generated files go, beside the project's tests
    # (module, the project's test file for it): mutants measured with --mutation
    mutation: tuple[tuple[str, str], ...] = ()
    # What its suite needs, every package pinned (installed with --no-deps): when given, the
    # project gets a virtual environment of its own (``environment``) where its pytest and
    # miogen's worker run (``miogen generate --python``); else miogen's own interpreter.
    requires: tuple[str, ...] = ()
    # The folder (relative) its package is imported from, put on that environment's path as an
    # editable install would: "src" for a src layout.
    path: str = ""

    @property
    def archive(self) -> str:
        return f"{self.name}-{self.version}.tar.gz"


PROJECTS = (
    Project(
        "inflection", "0.5.1",
        "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
        ("inflection/__init__.py",), ".",
    ),
    Project(
        "toolz", "0.12.1",
        "ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d",
        ("toolz/dicttoolz.py", "toolz/recipes.py"), "toolz/tests",
        (("toolz/dicttoolz.py", "toolz/tests/test_dicttoolz.py"),
         ("toolz/recipes.py", "toolz/tests/test_recipes.py")),
    ),
    Project(
        "more-itertools", "10.2.0",
        "8fccb480c43d3e99a00087634c06dd02b0d50fbf088b380de5a41a015ec239e1",
        ("more_itertools/recipes.py",), "tests",
    ),
    # boltons (24.0.0, 25.0.0) was tried: its conftest's pytest_ignore_collect(path) hook stops
    # pytest 8 from collecting its suite at all, so it had no human figure.
    Project(
        "six", "1.16.0",
        "1e61c37477a1626458e36f7b1d82aa5c9b094fa4802892072e49de9c60c4c926",
        ("six.py",), ".",
    ),
    Project(
        "parse", "1.20.1",
        "09002ca350ad42e76629995f71f7b518670bcf93548bdde3684fd55d2be51975",
        ("parse.py",), "tests",
    ),
    Project(
        "idna", "3.6",
        "9ecdbbd083b06798ae1e86adcbfe8ab1479cf864e4ee30fe4e46a003d12491ca",
        ("idna/core.py", "idna/intranges.py"), "tests",
        (("idna/intranges.py", "tests/test_intranges.py"),),
    ),
    # src layouts whose suites need packages of their own: each runs in a venv of its own.
    # sortedcontainers was tried: its sdist ships no tests. dateutil's setup.cfg turns warnings
    # into errors, and pytest 9 deprecates a generator in its parametrize: pytest 8.1.
    Project(
        "marshmallow", "3.21.1",
        "4e65e9e0d80fc9e609574b9983cf32579f305c718afb30d7233ab818571768c3",
        ("src/marshmallow/utils.py", "src/marshmallow/orderedset.py"), "tests",
        # orderedset.py has no test file of its own: the fields' tests import it, and every
        # Schema keeps its fields in one (its set_class).
        (("src/marshmallow/utils.py", "tests/test_utils.py"),
         ("src/marshmallow/orderedset.py", "tests/test_fields.py tests/test_schema.py")),
        requires=("pytest==9.2.0", "coverage==7.17.5", "iniconfig==2.3.1", "packaging==26.4",
                  "pluggy==1.7.0", "Pygments==2.21.0", "pytz==2026.6", "simplejson==4.3.0"),
        path="src",
    ),
    Project(
        "python-dateutil", "2.9.0.post0",
        "37dd54208da7e1cd875388217d5e00ebd4179249f90fb72437e91a35459a0ad3",
        ("src/dateutil/easter.py", "src/dateutil/parser/_parser.py"), "tests",
        # The parser (1,600 lines, thousands of mutants) is left out of the mutants for time.
        (("src/dateutil/easter.py", "tests/test_easter.py"),),
        requires=("pytest==8.1.1", "pytest-cov==5.0.0", "coverage==7.17.5", "iniconfig==2.3.1",
                  "packaging==26.4", "pluggy==1.7.0", "Pygments==2.21.0", "six==1.17.0",
                  "freezegun==1.5.5", "hypothesis==6.170.17", "sortedcontainers==2.4.0",
                  "tzdata==2026.6"),
        path="src",
    ),
)  # fmt: skip


@dataclass
class ProjectResult:
    project: str
    modules: list[str]
    human_branches: int = 0
    human_covered: int = 0
    combined_covered: int = 0
    human_files_modified: int = 0
    generated_tests: int = 0
    generated_failing: list[str] = field(default_factory=list)
    generated_flaky: list[str] = field(default_factory=list)
    human_failing: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    # miogen's budget: seconds per module, or evaluations per unit (then budget is None)
    budget: float | None = None
    evaluations: int | None = None
    seed: int = 0
    python: str = ""  # the interpreter the project's suite ran in
    pynguin_covered: int | None = None  # human suite + Pynguin's tests; None: not run
    pynguin_status: list[str] = field(default_factory=list)
    pynguin_seconds: float = 0.0
    mutants: list[dict[str, object]] = field(default_factory=list)  # per module, with --mutation
    # of the branches the human suite misses, those no test takes on this Python
    unreachable: int = 0
    still_missed: dict[str, list[list[int]]] = field(default_factory=dict)  # combined run's
    miogen_lines: list[str] = field(default_factory=list)  # what miogen said per module
    # step -> [wall seconds, CPU seconds of its processes]: where the wall time went
    steps: dict[str, list[float]] = field(default_factory=dict)

    @property
    def human_percent(self) -> float:
        return 100.0 * self.human_covered / self.human_branches if self.human_branches else 100.0

    @property
    def combined_percent(self) -> float:
        total = self.human_branches
        return 100.0 * self.combined_covered / total if total else 100.0

    @property
    def added(self) -> int:
        return self.combined_covered - self.human_covered

    @property
    def missed(self) -> int:
        return self.human_branches - self.human_covered

    @property
    def reachable_missed(self) -> int:
        return self.missed - self.unreachable

    @property
    def pynguin_added(self) -> int | None:
        if self.pynguin_covered is None:
            return None
        return self.pynguin_covered - self.human_covered


@contextmanager
def timed(steps: dict[str, list[float]], name: str) -> Iterator[None]:
    """Record the wall seconds of the block and the CPU seconds (user + system) of the
    processes it ran and waited for, in ``steps[name]``: under load the two part."""
    started, cpu = time.monotonic(), _children_cpu()
    try:
        yield
    finally:
        steps[name] = [round(time.monotonic() - started, 2), round(_children_cpu() - cpu, 2)]


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def environment(project: Project, root: Path) -> str:
    """The interpreter the project's suite runs in: miogen's own, or (``requires``) a virtual
    environment of the project's, made once under the cache with exactly those packages, whose
    path file names ``root/path`` (this run's unpacked copy) as an editable install would."""
    if not project.requires:
        return sys.executable
    key = hashlib.sha256("\n".join(project.requires).encode()).hexdigest()[:12]
    venv = CACHE / "venvs" / f"{project.name}-{project.version}-{key}"
    python = venv / "bin" / "python"
    if not (venv / "ready").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--no-deps", *project.requires],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        (venv / "ready").write_text("\n".join(project.requires) + "\n")
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    install_editable(project, root, Path(site))
    return str(python)


def install_editable(project: Project, root: Path, site: Path) -> None:
    """What an editable install of the unpacked project puts in ``site``: a path file naming
    ``root/path``, and the sdist's PKG-INFO as the distribution's metadata (a suite may read
    its version with ``importlib.metadata``)."""
    (site / "bench-project.pth").write_text(f"{root / project.path}\n")
    name = re.sub(r"[-_.]+", "_", project.name)
    for old in site.glob(f"{name}-*.dist-info"):
        shutil.rmtree(old)
    info = site / f"{name}-{project.version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text((root / "PKG-INFO").read_text())


def fetch(project: Project) -> Path:
    """The sdist, downloaded once and checked against its pinned sha256."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / project.archive
    if not path.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             f"{project.name}=={project.version}", "-d", str(CACHE)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != project.sha256:
        raise SystemExit(f"{path}: sha256 {digest}, pinned {project.sha256}")
    return path


def unpack(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    [root] = [p for p in into.iterdir() if p.is_dir()]
    return root


def hashes(root: Path) -> dict[str, str]:
    found = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if path.is_file() and not {".miogen", "__pycache__"} & set(relative.parts):
            found[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def generated_path(project: Project, root: Path, module: str) -> Path:
    stem = Path(module).stem if Path(module).stem != "__init__" else Path(module).parent.name
    return root / project.tests / f"test_{stem}_miogen.py"


def budget_options(budget: float, evaluations: int | None) -> list[str]:
    """miogen's budget: seconds per module, or (``evaluations``) fitness evaluations per unit,
    which the load of the machine does not change.

    >>> budget_options(2.0, None), budget_options(2.0, 300)
    (['--budget', '2.0'], ['--evaluations', '300'])
    """
    return ["--budget", str(budget)] if evaluations is None else ["--evaluations", str(evaluations)]


def generate(
    project: Project,
    root: Path,
    module: str,
    budget: float,
    seed: int,
    evaluations: int | None = None,
    python: str = sys.executable,
) -> list[str]:
    output = generated_path(project, root, module)
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", str(root / module),
         *budget_options(budget, evaluations), "--seed", str(seed), "--output", str(output),
         *(["--python", python] if python != sys.executable else [])],
        cwd=root, capture_output=True, text=True, timeout=3600, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    said = [line for line in done.stdout.splitlines() if "your suite" in line]
    return said + (
        [f"exit {done.returncode}: {done.stderr.strip()[-300:]}"] if done.returncode else []
    )


def measure(
    root: Path, modules: tuple[str, ...], leave_out: list[Path], python: str = sys.executable
) -> dict[str, object]:
    """The project's pytest from its root under coverage.py: branches per module, failures."""
    files, failing = coverage_files(root, modules, leave_out, python)
    summary = {"branches": 0, "covered": 0, "failing": failing, "missing": {}}
    for module in modules:
        entry = files.get(module) or files.get(str(root / module)) or {}
        found = entry.get("summary", {})
        summary["branches"] += found.get("num_branches", 0)  # type: ignore[operator]
        summary["covered"] += found.get("covered_branches", 0)  # type: ignore[operator]
        summary["missing"][module] = entry.get("missing_branches", [])  # type: ignore[index]
    return summary


def unreachable(source: str, missing: list[list[int]]) -> int:
    """How many of the ``missing`` arcs of a module no test takes on the running Python: those
    bench/py2_branches.py counts (only Python 2 takes them, or only a Python without a builtin
    this one has), and those into the body of ``if __name__ == "__main__":`` (no test runs the
    module as a script).
    """
    from bench.py2_branches import builtin_checks, python2_only, script_guards, version_guards

    only = python2_only(missing, version_guards(source, tuple(sys.version_info)))
    rest = [arc for arc in missing if tuple(arc) not in set(only)]
    dead = python2_only(rest, builtin_checks(source) + script_guards(source))
    return len(only) + len(dead)


def coverage_files(
    root: Path, modules: tuple[str, ...], leave_out: list[Path], python: str = sys.executable
) -> tuple[dict[str, Any], list[str]]:
    """``coverage json``'s files of the project's pytest run from its root, and its failing
    tests."""
    with tempfile.TemporaryDirectory(prefix="bench-projects-") as scratch:
        data, junit, report = (os.path.join(scratch, n) for n in ("cov", "junit.xml", "c.json"))
        environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        subprocess.run(
            [python, "-m", "coverage", "run", "--branch", f"--data-file={data}",
             f"--include={','.join(str(root / m) for m in modules)}", "-m", "pytest", "-q",
             "-p", "no:cacheprovider", f"--junit-xml={junit}",
             *(f"--ignore={path}" for path in leave_out)],
            cwd=root, env=environment, capture_output=True, text=True, timeout=3600,
        )  # fmt: skip
        subprocess.run(
            [python, "-m", "coverage", "json", f"--data-file={data}", "-o", report],
            cwd=root, capture_output=True, text=True, check=False,
        )  # fmt: skip
        files = json.loads(Path(report).read_text())["files"] if os.path.exists(report) else {}
        failing = failing_tests(Path(junit))
    return files, failing


def failing_tests(junit: Path) -> list[str]:
    """The ids (classname::name) of the test cases a JUnit XML report marks failed or errored."""
    if not junit.exists():
        return []
    return [
        f"{case.get('classname', '')}::{case.get('name', '')}"
        for case in ElementTree.parse(junit).getroot().iter("testcase")
        if case.find("failure") is not None or case.find("error") is not None
    ]


def passes(
    root: Path, files: list[Path], python: str = sys.executable
) -> tuple[list[str], list[str]]:
    """The project's plain pytest on ``files`` alone, from its root: (all ids, failing ids)."""
    with tempfile.TemporaryDirectory(prefix="bench-projects-") as scratch:
        junit = Path(scratch) / "junit.xml"
        subprocess.run(
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"--junit-xml={junit}", *map(str, files)],
            cwd=root, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
            capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if not junit.exists():
            return [], []
        cases = [
            f"{case.get('classname', '')}::{case.get('name', '')}"
            for case in ElementTree.parse(junit).getroot().iter("testcase")
        ]
        return cases, failing_tests(junit)


def failing_and_flaky(runs: list[list[str]]) -> tuple[list[str], list[str]]:
    """Failing: failed in every run; flaky: failed in some runs, not all.

    >>> failing_and_flaky([["a", "b"], ["a"], ["a", "c"]])
    (['a'], ['b', 'c'])
    """
    seen = sorted({test for run in runs for test in run})
    failing = [t for t in seen if all(t in run for run in runs)]
    return failing, [t for t in seen if t not in failing]


def module_name(module: str, path: str = "") -> str:
    """The dotted name of a module path relative to the project's root, imported from ``path``.

    >>> module_name("inflection/__init__.py"), module_name("toolz/recipes.py")
    ('inflection', 'toolz.recipes')
    >>> module_name("src/dateutil/easter.py", "src")
    'dateutil.easter'
    """
    parts = list(Path(module).relative_to(path or ".").with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def pynguin_files(
    project: Project, root: Path, budget: int, seed: int, scratch: Path
) -> tuple[list[Path], list[str], float]:
    """Pynguin (its own venv) per module at ``budget`` s; its files go beside the project's tests."""
    from bench.pynguin import run_pynguin

    written, said, seconds = [], [], 0.0
    for module in project.modules:
        name = module_name(module, project.path)
        run = run_pynguin(
            root / module, "pynguin-dynamosa", budget, seed, scratch / name,
            project_path=root / project.path, module_name=name,
        )  # fmt: skip
        seconds += run.wall_seconds
        said.append(f"{name}: {run.status} {run.message}".strip())
        if run.test_file is not None:
            stem = generated_path(project, root, module).name.replace("_miogen", "_pynguin")
            target = root / project.tests / stem
            target.write_text(run.test_file.read_text())
            written.append(target)
    return written, said, seconds


@dataclass
class Outcomes:
    """cosmic-ray's outcomes of a session's mutants, each (operator, occurrence, line)."""

    run: int = 0  # mutants whose test run ended (killed, survived or timed out)
    alive: list[tuple[str, int, int]] = field(default_factory=list)
    # cosmic-ray counts a run stopped by its timeout as killed: under load a slow run of the
    # human file is no kill, so these are kept apart (``mutants`` runs each once more)
    timeouts: list[tuple[str, int, int]] = field(default_factory=list)


def survivors(dump: str) -> Outcomes:
    """From ``cosmic-ray dump``: the mutants run, those that survived, those timed out.

    >>> job = lambda op, n, outcome, output="": json.dumps([{"mutations": [{"operator_name": op,
    ...     "occurrence": n, "start_pos": [7, 0]}]}, {"test_outcome": outcome, "output": output}])
    >>> survivors("\\n".join([job("a", 0, "killed"), job("a", 1, "survived"),
    ...     job("a", 2, "killed", "timeout"), job("b", 0, None)]))
    Outcomes(run=3, alive=[('a', 1, 7)], timeouts=[('a', 2, 7)])
    """
    found = Outcomes()
    for line in dump.splitlines():
        if not line.strip():
            continue
        job, result = json.loads(line)
        outcome = (result or {}).get("test_outcome")
        if outcome not in ("killed", "survived"):
            continue
        found.run += 1
        [mutation] = job["mutations"]
        where = (mutation["operator_name"], int(mutation["occurrence"]))
        mutant = (*where, int((mutation.get("start_pos") or [0])[0]))
        if outcome == "survived":
            found.alive.append(mutant)
        elif result.get("output") == "timeout":
            found.timeouts.append(mutant)
    return found


def run_mutant(
    tool: str,
    root: Path,
    module: str,
    mutant: tuple[str, int, int],
    tests: list[str] | None,
    python: str,
    environment: dict[str, str],
    timeout: float,
) -> str:
    """Apply ``mutant`` to ``module`` (``cosmic-ray apply``), run ``tests`` against it with the
    project's ``python`` and pytest from the project's root, and put the module back: "killed",
    "survived", "timeout", "same" (the mutant leaves the text as it was), "incompetent" (it
    does not compile) or, ``tests`` None, "not run" (the mutant only made and put back)."""
    original = (root / module).read_bytes()
    operator, occurrence, _ = mutant
    try:
        subprocess.run(
            [tool, "apply", module, operator, str(occurrence)], cwd=root, check=True,
            capture_output=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if (root / module).read_bytes() == original:
            return "same"
        try:
            compile((root / module).read_bytes(), module, "exec")
        except (SyntaxError, ValueError):
            return "incompetent"  # (cosmic-ray leaves such mutants out)
        if tests is None:
            return "not run"
        done = subprocess.run(
            [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
            cwd=root, env=environment, capture_output=True, timeout=timeout,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        return "killed" if done.returncode != 0 else "survived"
    except subprocess.TimeoutExpired:
        return "timeout"
    finally:
        (root / module).write_bytes(original)


MUTANT_TIMEOUT = 20.0  # seconds of a run against a mutant, at least (cosmic-ray's, CONFIG)
TIMEOUT_FACTOR = 3.0  # ... and at least this many times the original's run of the same tests
RERUN_TIMEOUT = 3 * MUTANT_TIMEOUT  # the one more run a timed-out mutant gets (times as long)

# A pytest plugin the suite's measured run loads (``-p``): one coverage.py context per test,
# its node id (as miogen.plugins.contexts), and the node ids of the tests that fail.
CONTEXTS_PLUGIN = """
import os

import coverage
import pytest


def _switch(context):
    measuring = coverage.Coverage.current()
    if measuring is not None:
        measuring.switch_context(context)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _switch(item.nodeid)
    yield
    _switch("")


def pytest_runtest_logreport(report):
    if report.failed:
        with open(os.environ["BENCH_FAILED"], "a") as failed:
            print(report.nodeid, file=failed)
"""
CONTEXTS_NAME = "bench_test_contexts"


@dataclass
class SuiteLines:
    """The project's whole suite (the generated files left out) on one module: the tests
    (pytest node ids) that run each of its lines, the lines run outside any test (as the
    module was imported, the definitions' lines among them), and the arguments of pytest that
    run the whole suite but its failing tests."""

    by_line: dict[int, set[str]] = field(default_factory=dict)
    outside: set[int] = field(default_factory=set)
    failing: list[str] = field(default_factory=list)
    whole: list[str] = field(default_factory=list)
    seconds: float = 0.0  # the measured run's, of the whole suite

    def tests(self, first: int, last: int) -> list[str] | None:
        """The passing tests that run a line of ``first``..``last``: [] none (the mutant is
        alive with no run), None the lines cannot tell (one ran outside any test, where a test
        may see what it did without running it): the whole suite.

        >>> lines = SuiteLines({3: {"t::a", "t::b"}, 4: {"t::b"}}, {1}, ["t::b"])
        >>> lines.tests(3, 4), lines.tests(5, 5), lines.tests(1, 3)
        (['t::a'], [], None)
        """
        span = range(first, last + 1)
        if any(line in self.outside for line in span):
            return None
        found = {t for line in span for t in self.by_line.get(line, ())}
        return sorted(found - set(self.failing))


def suite_lines(
    root: Path, module: str, leave_out: list[Path], python: str = sys.executable
) -> SuiteLines:
    """The project's plain pytest from its root, the whole suite but ``leave_out``, under
    coverage.py (lines, one context per test: ``CONTEXTS_PLUGIN``) measuring ``module``."""
    found = SuiteLines(whole=[f"--ignore={path}" for path in leave_out])
    with tempfile.TemporaryDirectory(prefix="bench-lines-") as scratch:
        (Path(scratch) / f"{CONTEXTS_NAME}.py").write_text(CONTEXTS_PLUGIN)
        data, report, failed = (os.path.join(scratch, n) for n in ("cov", "c.json", "failed"))
        environment = dict(
            os.environ, PYTHONDONTWRITEBYTECODE="1", BENCH_FAILED=failed,
            PYTHONPATH=os.pathsep.join([scratch, *filter(None, [os.environ.get("PYTHONPATH")])]),
        )  # fmt: skip
        started = time.monotonic()
        subprocess.run(
            [python, "-m", "coverage", "run", f"--data-file={data}",
             f"--include={root / module}", "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "-p", CONTEXTS_NAME, *found.whole],
            cwd=root, env=environment, capture_output=True, text=True, timeout=3600,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        found.seconds = time.monotonic() - started
        subprocess.run(
            [python, "-m", "coverage", "json", "--show-contexts", f"--data-file={data}",
             "-o", report],
            cwd=root, capture_output=True, text=True, check=False,
        )  # fmt: skip
        files = json.loads(Path(report).read_text())["files"] if os.path.exists(report) else {}
        if os.path.exists(failed):
            found.failing = sorted(set(Path(failed).read_text().split("\n")) - {""})
    entry = files.get(module) or files.get(str(root / module)) or {}
    for line, contexts in entry.get("contexts", {}).items():
        tests = {c for c in contexts if c}
        if len(tests) < len(contexts):
            found.outside.add(int(line))
        if tests:
            found.by_line[int(line)] = tests
    found.whole += [f"--deselect={test}" for test in found.failing]
    return found


def mutants(
    root: Path,
    module: str,
    human_tests: str,
    generated: Path,
    scratch: Path,
    python: str = sys.executable,
    sample: int | None = None,
    leave_out: list[Path] | None = None,
    check: int = 0,
) -> dict[str, object]:
    """Mutants of ``module`` the project's whole suite leaves alive, and how many of them the
    generated file kills. cosmic-ray lists the mutants (``sample``: about that many, every
    k-th in source order, ``bench.mutation.keep_sample``: a module of a thousand mutants
    takes hours) and applies each (``cosmic-ray apply``); against each run, with the project's
    interpreter (``python``) and pytest from its root, the suite's tests that run one of the
    mutant's lines (``suite_lines``: the suite but ``leave_out``, the generated files, measured
    once). A mutant on lines no test runs is alive with no run; one on a line run outside any
    test (as the module is imported) runs the whole suite. A run is stopped after
    ``MUTANT_TIMEOUT`` s or ``TIMEOUT_FACTOR`` times the original's, whichever is longer; a
    mutant stopped so runs once more (``RERUN_TIMEOUT``, as many times longer) and, timed out
    again, is counted apart, neither killed nor alive. Each survivor is applied again and the
    generated file run against it alone, with the same one more run when it times out (timed
    out twice, it is no kill either). ``check``: so
    many of the mutants judged by their lines' tests (half of them survivors) run the whole
    suite too, and both verdicts are kept (``checked``)."""
    from bench.mutation import VENV, ensure_cosmic_ray, init_session, session_mutants

    ensure_cosmic_ray()
    tool = str(VENV / "bin" / "cosmic-ray")
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for cache in list(root.rglob("__pycache__")):  # no stale bytecode hides a mutant
        shutil.rmtree(cache)
    started = time.monotonic()
    totals: list[int] = []
    session = init_session(
        root, scratch, module, human_tests, python, env=environment, sample=sample, totals=totals
    )
    lines = suite_lines(root, module, leave_out if leave_out is not None else [generated], python)
    chosen = _Selections(root, python, environment, lines)
    alive: list[tuple[str, int, int]] = []
    killed: list[tuple[str, int, int]] = []
    timed_out: list[tuple[str, int, int]] = []
    by_lines: list[tuple[str, int, int]] = []  # judged by their lines' tests (not the whole)
    uncovered, incompetent, reruns, runs = 0, 0, 0, {"lines": 0, "whole": 0}
    for operator, occurrence, first, last in session_mutants(session):
        mutant = (operator, occurrence, first)
        tests = lines.tests(first, last)
        if tests == []:  # no test of the suite runs its lines: alive if it is a mutant
            made = run_mutant(tool, root, module, mutant, None, python, environment, 0.0)
            uncovered += made == "not run"
            incompetent += made != "not run"
            alive += [mutant] if made == "not run" else []
            continue
        arguments, seconds = chosen.arguments(tests)
        runs["whole" if tests is None else "lines"] += 1
        timeout = max(MUTANT_TIMEOUT, TIMEOUT_FACTOR * seconds)
        verdict = run_mutant(tool, root, module, mutant, arguments, python, environment, timeout)
        if verdict == "timeout":
            reruns += 1
            verdict = run_mutant(
                tool, root, module, mutant, arguments, python, environment,
                timeout * RERUN_TIMEOUT / MUTANT_TIMEOUT,
            )  # fmt: skip
        if verdict in ("same", "incompetent"):
            incompetent += 1
        elif verdict == "timeout":
            timed_out.append(mutant)
        else:
            (alive if verdict == "survived" else killed).append(mutant)
            by_lines += [mutant] if tests is not None else []
    checked = []
    survivors = [m for m in by_lines if m in alive]
    kills = [m for m in by_lines if m in killed]
    halves = _spaced(survivors, check // 2)
    for mutant in halves + _spaced(kills, check - len(halves)):
        timeout = max(MUTANT_TIMEOUT, TIMEOUT_FACTOR * lines.seconds)
        whole = run_mutant(tool, root, module, mutant, lines.whole, python, environment, timeout)
        checked.append([*mutant, "survived" if mutant in alive else "killed", whole])
    generated_kill, generated_timeout, kinds = 0, 0, []
    for mutant in alive if generated.exists() else []:
        # the same one more run as the suite's, so a slow machine is not counted as no kill
        verdict = run_mutant(
            tool, root, module, mutant, [str(generated)], python, environment, MUTANT_TIMEOUT
        )
        if verdict == "timeout":
            verdict = run_mutant(
                tool, root, module, mutant, [str(generated)], python, environment,
                RERUN_TIMEOUT,
            )  # fmt: skip
        generated_kill += verdict == "killed"
        generated_timeout += verdict == "timeout"
        kinds.append([*mutant, verdict])
    judged_count = len(alive) + len(killed) + len(timed_out)
    return {
        "module": module, "human_tests": human_tests,
        "baseline": "the whole suite, per mutant its tests that run the mutated lines",
        "mutants": judged_count,
        "of_mutants": totals[0] if totals else judged_count,  # the sample's left out included
        "incompetent": incompetent, "human_alive": len(alive), "uncovered": uncovered,
        "generated_kill": generated_kill,
        "human_timeout": len(timed_out), "timeouts_rerun": reruns,
        "generated_timeout": generated_timeout, "suite_runs": runs,
        "suite_failing": lines.failing, "checked": checked,
        # each survivor of the suite: operator, occurrence, line, the generated file's verdict
        "alive": kinds or [[*mutant, "not run"] for mutant in alive],
        "seconds": round(time.monotonic() - started, 1),
    }  # fmt: skip


def _spaced(items: list[Any], count: int) -> list[Any]:
    """``count`` of ``items``, evenly spaced (all of them if there are no more).

    >>> _spaced(list(range(10)), 3), _spaced([1, 2], 5), _spaced([1], 0)
    ([0, 3, 6], [1, 2], [])
    """
    if count >= len(items):
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


class _Selections:
    """pytest's arguments for some of the suite's tests, checked on the original once: the
    node ids, or where they do not pass as named (an id pytest cannot select again, a test
    that fails run apart), their files whole, or else the whole suite; and how long the
    original's run of them took."""

    def __init__(
        self, root: Path, python: str, environment: dict[str, str], lines: SuiteLines
    ) -> None:
        self.root, self.python, self.environment, self.lines = root, python, environment, lines
        self.known: dict[tuple[str, ...], tuple[list[str], float]] = {}

    def arguments(self, tests: list[str] | None) -> tuple[list[str], float]:
        if tests is None:
            return self.lines.whole, self.lines.seconds
        key = tuple(tests)
        if key not in self.known:
            files = sorted({test.split("::")[0] for test in tests})
            for arguments in (list(tests), files + self.lines.whole):
                seconds = self.passes(arguments)
                if seconds is not None:
                    self.known[key] = (arguments, seconds)
                    break
            else:
                self.known[key] = (self.lines.whole, self.lines.seconds)
        return self.known[key]

    def passes(self, arguments: list[str]) -> float | None:
        """The seconds of the original's run of ``arguments``, None if it does not pass."""
        started = time.monotonic()
        done = subprocess.run(
            [self.python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *arguments],
            cwd=self.root, env=self.environment, capture_output=True, timeout=3600,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        return time.monotonic() - started if done.returncode == 0 else None


def reported_kills(lines: list[str], module: str) -> int:
    """The mutants miogen said its tests kill beyond the suite in ``module`` (its module line).

    >>> reported_kills(["f: nothing added", "your suite already covers every branch of a.b; "
    ...     "+3 mutants killed over your suite"], "a.b")
    3
    >>> reported_kills(["a.b: +2 branches over your suite (50.0% → 100.0%)"], "a.b")
    0
    """
    for line in lines:
        if (
            line.startswith(f"{module}:")
            or line.endswith(f" of {module}; nothing added")
            or (f" of {module}; +" in line)
        ):
            found = re.search(r"\+(\d+) mutants killed over your suite", line)
            return int(found.group(1)) if found else 0
    return 0


def run_project(
    project: Project,
    budget: float,
    seed: int,
    pynguin_budget: int | None = None,
    mutation: bool = False,
    evaluations: int | None = None,
    mutation_sample: int | None = None,
    mutation_check: int = 0,
) -> ProjectResult:
    """``evaluations``: miogen's budget in evaluations per unit instead of ``budget`` seconds
    per module, so that the counts repeat whatever the load; ``mutation_check``: mutants per
    module whose verdict by their lines' tests is checked by the whole suite (``mutants``)."""
    started = time.monotonic()
    result = ProjectResult(
        project.name, list(project.modules), seed=seed, evaluations=evaluations,
        budget=budget if evaluations is None else None,
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix=f"bench-{project.name}-") as work:
        root = unpack(fetch(project), Path(work))
        with timed(result.steps, "environment"):
            python = environment(project, root)
        result.python = "miogen's own" if python == sys.executable else "the project's venv"
        before = hashes(root)
        for module in project.modules:
            with timed(result.steps, f"generate {module}"):
                result.miogen_lines += generate(
                    project, root, module, budget, seed, evaluations, python
                )
        after = hashes(root)
        outputs = [generated_path(project, root, m) for m in project.modules]
        result.human_files_modified = sum(1 for k, v in before.items() if after.get(k) != v)
        with timed(result.steps, "measure human suite"):
            human = measure(root, project.modules, outputs, python)
        with timed(result.steps, "measure combined"):
            combined = measure(root, project.modules, [], python)
        result.human_branches = int(human["branches"])  # type: ignore[call-overload]
        result.human_covered = int(human["covered"])  # type: ignore[call-overload]
        result.combined_covered = int(combined["covered"])  # type: ignore[call-overload]
        result.unreachable = sum(
            unreachable((root / module).read_text(), missing)
            for module, missing in human["missing"].items()  # type: ignore[attr-defined]
        )
        result.still_missed = dict(combined["missing"])  # type: ignore[call-overload]
        names = {p.name.removesuffix(".py") for p in outputs}
        ours = [
            f
            for f in combined["failing"]  # type: ignore[attr-defined]
            if any(n in f for n in names)
        ]
        # The generated files alone, twice more: a test that fails in one of the three runs
        # and passes in another is flaky; one that fails in all three, failing.
        existing = [p for p in outputs if p.exists()]
        runs = [ours]
        with timed(result.steps, "generated files twice"):
            for _ in range(2):
                runs.append(passes(root, existing, python)[1] if existing else [])
        result.generated_failing, result.generated_flaky = failing_and_flaky(runs)
        result.human_failing = list(human["failing"])  # type: ignore[call-overload]
        result.generated_tests = sum(
            p.read_text().count("\ndef test_") for p in outputs if p.exists()
        )
        result.wall_seconds = time.monotonic() - started
        for module, human_tests in project.mutation if mutation else ():
            output = generated_path(project, root, module)
            name = module_name(module, project.path)
            scratch = Path(work) / "mutation" / name
            found = mutants(
                root, module, human_tests, output, scratch, python, mutation_sample, outputs,
                mutation_check,
            )  # fmt: skip
            found["miogen_reported"] = reported_kills(result.miogen_lines, name)
            result.mutants.append(found)
        if pynguin_budget is not None:
            scratch = Path(work) / "pynguin"
            for p in existing:  # Pynguin is measured against the human suite alone
                p.rename(p.with_suffix(".miogen-aside"))
            written, result.pynguin_status, result.pynguin_seconds = pynguin_files(
                project, root, pynguin_budget, seed, scratch
            )
            with_pynguin = measure(root, project.modules, [], python)
            result.pynguin_covered = int(with_pynguin["covered"])  # type: ignore[call-overload]
    return result


def table(results: list[ProjectResult]) -> list[str]:
    lines = [
        "| project | human suite branch % | missed (unreachable here) | combined % "
        "| branches added | added by Pynguin | human files modified "
        "| generated tests (failing, flaky) | human tests failing | wall s (Pynguin s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        pynguin = "not run" if r.pynguin_added is None else str(r.pynguin_added)
        lines.append(
            f"| {r.project} ({', '.join(r.modules)}) | {r.human_covered}/{r.human_branches} "
            f"{r.human_percent:.1f}% | {r.missed} ({r.unreachable}) | "
            f"{r.combined_covered}/{r.human_branches} "
            f"{r.combined_percent:.1f}% | {r.added} | {pynguin} | {r.human_files_modified} | "
            f"{r.generated_tests} ({len(r.generated_failing)}, {len(r.generated_flaky)}) | "
            f"{len(r.human_failing)} | {r.wall_seconds:.0f} ({r.pynguin_seconds:.0f}) |"
        )
    return lines


def totals(results: list[ProjectResult]) -> str:
    """One line: what the human suites miss, what miogen and Pynguin add, what went wrong."""
    ran = [r.pynguin_added for r in results if r.pynguin_added is not None]
    pynguin = f"{sum(ran)} (on {len(ran)} of {len(results)} projects)" if ran else "not run"
    missed, reachable = sum(r.missed for r in results), sum(r.reachable_missed for r in results)
    added = sum(r.added for r in results)
    return (
        f"Totals: human suites miss {missed} of {sum(r.human_branches for r in results)} "
        f"branches, {reachable} of them reachable on this Python; miogen adds {added} "
        f"({_share(added, missed)} of the missed, {_share(added, reachable)} of the reachable); "
        f"Pynguin adds {pynguin}; human files modified "
        f"{sum(r.human_files_modified for r in results)}; generated tests failing "
        f"{sum(len(r.generated_failing) for r in results)}, flaky "
        f"{sum(len(r.generated_flaky) for r in results)}."
    )


def _share(part: int, whole: int) -> str:
    """
    >>> _share(19, 159), _share(0, 0)
    ('12%', '-')
    """
    return f"{100 * part / whole:.0f}%" if whole else "-"


def mutation_table(results: list[ProjectResult]) -> list[str]:
    """Per measured module: its baseline (the whole suite, per mutant the tests that run its
    lines; a row of a run before it: the module's test file), the mutants it leaves alive (of
    them, those no test runs), those the generated tests kill, the mutants timed out twice
    (neither killed nor alive; "-": a run from before they were counted apart, when cosmic-ray
    counted them killed), and the mutants checked against the whole suite, with how many of
    them it judged alike."""
    rows = [(r.project, m) for r in results for m in r.mutants]
    if not rows:
        return []
    lines = [
        "| project | module | baseline | mutants | alive after the baseline (no test runs them) "
        "| of those killed by the generated tests | timed out (of rerun) "
        "| checked by the whole suite (alike) | miogen's own count | s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for project, m in rows:
        timeouts = f"{m['human_timeout']} ({m['timeouts_rerun']})" if "human_timeout" in m else "-"
        of = m.get("of_mutants", m["mutants"])
        run = f"{m['mutants']}" if of == m["mutants"] else f"{m['mutants']} (of {of})"
        suite = "baseline" in m
        baseline = "whole suite, tests of the lines" if suite else f"file {m['human_tests']}"
        alive = f"{m['human_alive']} ({m.get('uncovered', 0)})" if suite else f"{m['human_alive']}"
        checked = m.get("checked", [])
        alike = f"{len(checked)} ({sum(1 for c in checked if c[3] == c[4])})" if suite else "-"
        lines.append(
            f"| {project} | {m['module']} | {baseline} | {run} | {alive} | "
            f"{m['generated_kill']} | {timeouts} | {alike} | "
            f"{m.get('miogen_reported', '')} | {m['seconds']} |"
        )
    return lines


def write_rows(results: list[ProjectResult], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [dict(asdict(r), added=r.added, human_percent=r.human_percent,
                 combined_percent=r.combined_percent, pynguin_added=r.pynguin_added,
                 reachable_missed=r.reachable_missed)
            for r in results]  # fmt: skip
    path.write_text(json.dumps(rows, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench projects")
    parser.add_argument(
        "--budget", type=float, default=2.0, help="seconds per module, shared by its units"
    )
    parser.add_argument(
        "--evaluations", type=int, help="evaluations per unit instead (counts repeat under load)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--projects", nargs="*", help="names (default: all)")
    parser.add_argument("--pynguin-budget", type=int, default=30, help="seconds per module")
    parser.add_argument("--no-pynguin", action="store_true", help="skip the Pynguin column")
    parser.add_argument(
        "--mutation", action="store_true", help="mutants (cosmic-ray) on the chosen modules"
    )
    parser.add_argument(
        "--mutation-sample", type=int, help="about this many mutants per module (every k-th)"
    )
    parser.add_argument(
        "--mutation-check", type=int, default=0,
        help="per module, so many mutants also run against the whole suite, to check",
    )  # fmt: skip
    parser.add_argument("--output", default="results", help="name of the JSON file written")
    args = parser.parse_args(argv)
    chosen = [p for p in PROJECTS if not args.projects or p.name in args.projects]
    unknown = set(args.projects or ()) - {p.name for p in PROJECTS}
    if unknown:
        parser.error(f"unknown projects: {', '.join(sorted(unknown))}")
    pynguin_budget = None if args.no_pynguin else args.pynguin_budget
    if pynguin_budget is not None:
        from bench.pynguin import ensure_pynguin

        ensure_pynguin()
    results = []
    for p in chosen:
        results.append(
            run_project(
                p,
                args.budget,
                args.seed,
                pynguin_budget,
                args.mutation,
                args.evaluations,
                args.mutation_sample,
                args.mutation_check,
            )  # fmt: skip
        )
        print("\n".join(table(results[-1:])[2:]), flush=True)
        # after each project: a long run stopped part way keeps the projects it finished
        write_rows(results, RESULTS / f"{args.output}.json")
    print("\n".join(table(results)))
    print(totals(results))
    print("\n".join(mutation_table(results)))
    for r in results:
        for line in r.miogen_lines:
            print(f"{r.project}: {line}")
        for line in r.pynguin_status:
            print(f"{r.project}: pynguin {line}")
        for test in r.generated_failing + r.generated_flaky:
            print(f"{r.project}: generated test failing or flaky: {test}")
        for step, (wall, cpu) in r.steps.items():
            print(f"{r.project}: {step}: {wall:.1f} s wall, {cpu:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
