"""The verification run: limited like a worker, and stopped whole when it overruns."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from miogen.analysis.module import analyze_file
from miogen.host import runs
from miogen.host.measure import measure, start_ahead

SUBJECT = """
def double(x: int) -> int:
    if x > 0:
        return 2 * x
    return 0
"""


def verify(tmp_path: Path, tests: str, timeout: float = 60.0):
    (tmp_path / "subject.py").write_text(SUBJECT.lstrip(), encoding="utf-8")
    test_file = tmp_path / "test_subject.py"
    test_file.write_text(tests.lstrip(), encoding="utf-8")
    model = analyze_file(tmp_path / "subject.py", "subject")
    return measure(
        test_file, tmp_path / "subject.py", list(model.units), model.source, tmp_path, tmp_path,
        timeout=timeout,
    )  # fmt: skip


def test_coverage_of_a_passing_run_is_measured(tmp_path):
    result = verify(
        tmp_path, "from subject import double\n\ndef test_it():\n    assert double(2) == 4\n"
    )
    assert result.ok and result.passed == 1
    assert len(result.covered["double"]) == 1  # x > 0 true; the false branch is not taken


def test_a_run_that_hangs_is_stopped_with_the_processes_it_started(tmp_path):
    pid_file = tmp_path / "child.pid"
    tests = f"""
import subprocess, time

def test_hangs():
    child = subprocess.Popen(["sleep", "300"])
    open({str(pid_file)!r}, "w").write(str(child.pid))
    time.sleep(300)
"""
    start = time.monotonic()
    result = verify(tmp_path, tests, timeout=8)
    assert result.exit_code == -1 and "did not finish" in result.output
    assert time.monotonic() - start < 30
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), "the test's child outlived the verification"


def test_a_run_gets_the_worker_memory_limit(tmp_path):
    tests = """
def test_takes_too_much():
    block = bytearray(3 * 1024 ** 3)
    assert len(block)
"""
    result = verify(tmp_path, tests)
    assert result.failed == 1 and result.passed == 0
    assert "MemoryError" in result.output


def _alive(pid: int) -> bool:
    """Running (a zombie left for a reaper that never comes counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def test_a_run_started_ahead_measures_what_a_fresh_run_measures(tmp_path):
    from miogen.host.measure import run_shuffled, start_ahead

    tests = "from subject import double\n\ndef test_it():\n    assert double(2) == 4\n"
    fresh = verify(tmp_path, tests)
    ahead, spare = start_ahead(tmp_path, [0]), start_ahead(tmp_path, [1])
    try:
        model = analyze_file(tmp_path / "subject.py", "subject")
        early = measure(
            tmp_path / "test_subject.py", tmp_path / "subject.py", list(model.units),
            model.source, tmp_path, tmp_path, sandbox=True, ahead=ahead[0],
        )  # fmt: skip
        shuffled = run_shuffled(tmp_path / "test_subject.py", tmp_path, tmp_path, 1,
                                sandbox=True, ahead=spare[0])  # fmt: skip
    finally:
        for process in ahead + spare:
            process.close()
    assert ahead[0].process.returncode == 0, "the run happened in the process started ahead"
    assert (early.passed, early.covered, early.arcs) == (fresh.passed, fresh.covered, fresh.arcs)
    assert shuffled.passed == 1 and spare[0].process.returncode == 0


def test_a_process_started_ahead_and_never_used_is_stopped(tmp_path):
    from miogen.host.measure import start_ahead

    [waiting] = start_ahead(tmp_path, [0])
    waiting.close()
    assert waiting.process.returncode is not None
    assert not Path(waiting.scratch).exists()


def test_a_process_started_ahead_closes_though_another_thread_closed_its_pipes(tmp_path):
    """A cancel closes the process while the verification's thread closes it too, or still
    reads its output: the pipes may be gone under it (here closed at the OS level, as another
    thread's close left them). Closing still stops the process and removes its folder."""
    from miogen.host.measure import start_ahead

    [waiting] = start_ahead(tmp_path, [0])
    os.close(waiting.process.stdout.fileno())  # another thread's close, under the file object
    waiting.close()
    assert waiting.process.returncode is not None
    assert not Path(waiting.scratch).exists()


def test_a_process_started_ahead_closed_from_many_threads_at_once_closes_once(tmp_path):
    from miogen.host.measure import start_ahead

    [waiting] = start_ahead(tmp_path, [0])
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def close() -> None:
        barrier.wait()
        try:
            waiting.close()
        except BaseException as error:  # noqa: BLE001 - the test reports any
            errors.append(error)

    threads = [threading.Thread(target=close) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert waiting.process.returncode is not None
    assert not Path(waiting.scratch).exists()


DIRECTORIES = """
import sys

seen = []


def pytest_collect_directory(path, parent):
    seen.append(str(path))


def pytest_unconfigure(config):
    print(f"collected directories: {len(seen)}", file=sys.stderr)
"""


def test_pytest_collects_no_directory_but_the_emitted_files(tmp_path):
    """The emitted file lives outside the project: without a conftest cut, pytest collects
    from the first folder below the paths' common ancestor (all of /tmp for a project in a
    home folder: 3,300 directories, seconds per run)."""
    project, emitted = tmp_path / "project", tmp_path / "emitted" / "run"
    for folder in (project, emitted, *(tmp_path / "emitted" / f"other{i}" for i in range(5))):
        folder.mkdir(parents=True)
    (project / "subject.py").write_text(SUBJECT.lstrip(), encoding="utf-8")
    (project / "directories.py").write_text(DIRECTORIES, encoding="utf-8")
    test_file = emitted / "test_subject.py"
    test_file.write_text(
        "from subject import double\n\ndef test_it():\n    assert double(2) == 4\n"
    )
    model = analyze_file(project / "subject.py", "subject")
    result = measure(
        test_file, project / "subject.py", list(model.units), model.source, project, project,
        sandbox=True, extra_args=("-p", "directories"),
    )  # fmt: skip
    assert result.ok and result.passed == 1, result.output
    assert "collected directories: 1" in result.output, result.output


def test_a_rerun_times_a_suite_faster_than_the_junit_reports_millisecond(tmp_path):
    from miogen.host.measure import run_shuffled

    verify(tmp_path, "from subject import double\n\ndef test_it():\n    assert double(2) == 4\n")
    shuffled = run_shuffled(tmp_path / "test_subject.py", tmp_path, tmp_path, 1, sandbox=True)
    # One call of a one-line function: tens of microseconds, which the report's per-test
    # time writes as 0.000.
    assert shuffled.passed == 1 and 0.0 < shuffled.seconds < 5.0  # not the process's seconds


def test_a_cancelled_command_stops_the_runs_under_way_and_later_ones(tmp_path, monkeypatch):
    """``stop_runs`` (what SIGINT/SIGTERM call in ``miogen generate`` and ``ctg``) kills the
    pytest runs under way at once, and each one started later at its start: the threads that
    wait for them return rather than wait for the timeout."""
    monkeypatch.setattr(runs, "_STOPPED", [False])  # the rest of this process still runs
    monkeypatch.setattr(runs, "_RUNNING", set())  # other tests' runs started ahead stay theirs
    hangs = "import time\n\ndef test_hangs():\n    time.sleep(300)\n"
    found = []
    waiting = threading.Thread(target=lambda: found.append(verify(tmp_path, hangs, timeout=240)))
    waiting.start()
    deadline = time.monotonic() + 60
    while not runs._RUNNING and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runs._RUNNING, "no run started"
    runs.stop_runs()
    waiting.join(60)  # the run's timeout is 240 s
    assert not waiting.is_alive() and not found[0].ok
    [later] = start_ahead(tmp_path, [0])  # started after the stop: killed at once
    assert later.process.wait(timeout=60) != 0
    later.close()
    assert not runs._RUNNING


def project_layout(root: Path, package_folder: Path) -> tuple[Path, Path]:
    """A project whose package ``app`` lies in ``package_folder``, and a test file in tests/."""
    (root / "pyproject.toml").write_text("[project]\nname = 'app'\n", encoding="utf-8")
    (package_folder / "app").mkdir(parents=True)
    (package_folder / "app" / "__init__.py").write_text("", encoding="utf-8")
    module = package_folder / "app" / "subject.py"
    module.write_text(SUBJECT.lstrip(), encoding="utf-8")
    (root / "tests").mkdir()
    test_file = root / "tests" / "test_subject.py"
    test_file.write_text(
        "from app.subject import double\n\ndef test_it():\n    assert double(2) == 4\n",
        encoding="utf-8",
    )
    return module, test_file


def in_project(root: Path, import_root: Path, module: Path, test_file: Path, ahead: bool):
    """The project's run of ``test_file`` (in a process started ahead, with ``import_root`` on
    its PYTHONPATH at start, or a fresh one)."""
    model = analyze_file(module, "app.subject")
    started = start_ahead(import_root, [0]) if ahead else []
    try:
        return measure(
            test_file, module, list(model.units), model.source, import_root, root, sandbox=True,
            ahead=started[0] if started else None, in_project=True,
        )  # fmt: skip
    finally:
        for process in started:
            process.close()


def test_the_projects_run_has_no_import_root_of_miogens_even_started_ahead(tmp_path):
    # src/ layout, no pythonpath setting, not installed: the project's pytest cannot import it.
    module, test_file = project_layout(tmp_path, tmp_path / "src")
    for ahead in (False, True):
        found = in_project(tmp_path, tmp_path / "src", module, test_file, ahead)
        assert "No module named 'app'" in found.collection_error, (ahead, found.output)
    model = analyze_file(module, "app.subject")
    elsewhere = measure(
        test_file, module, list(model.units), model.source, tmp_path / "src", tmp_path,
        sandbox=True,
    )  # fmt: skip
    assert elsewhere.ok and elsewhere.passed == 1, "the run outside the project adds it"


def test_the_projects_run_has_its_root_first_on_sys_path_as_python_m_pytest(tmp_path):
    module, test_file = project_layout(tmp_path, tmp_path)
    for ahead in (False, True):
        found = in_project(tmp_path, tmp_path, module, test_file, ahead)
        assert found.ok and found.passed == 1, (ahead, found.output)
        assert len(found.covered["double"]) == 1


def test_a_process_started_ahead_for_the_projects_run_imports_its_plugins_while_it_waits(
    tmp_path,
):
    """The project's run loads its installed pytest plugins: the process started ahead for it
    imports them before its order comes, as the run will (the project's folder first on the
    path: here a module of the project's stands in for one)."""
    from importlib.metadata import entry_points

    modules = [e.module for e in entry_points(group="pytest11") if "." not in e.module]
    if not modules:
        pytest.skip("no pytest plugin installed")
    marker = tmp_path / "imported"
    (tmp_path / f"{modules[0]}.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    [waiting] = start_ahead(tmp_path, [0], project=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and waiting.process.poll() is None:
            assert time.monotonic() < deadline, "the plugin was not imported while it waited"
            time.sleep(0.1)
        assert marker.exists() and waiting.process.poll() is None, "imported, still waiting"
    finally:
        waiting.close()


EXCLUDED = """
def grade(x: int) -> str:
    if x > 90:
        return "A"
    if x > 50:  # a branch taken one way only
        return "B"
    if x < -1000:  # pragma: no cover
        raise ValueError(x)
    for _ in range(x):
        pass
    return "C"
"""


def test_the_module_percent_is_coverage_pys_report_of_the_same_run(tmp_path):
    """The figure is computed from the parse the arcs were read with, not coverage.py's own
    parse of the file again; it is the total coverage.py's report prints for the same run."""
    (tmp_path / "subject.py").write_text(EXCLUDED.lstrip(), encoding="utf-8")
    tests = "from subject import grade\n\ndef test_it():\n    assert grade(60) == 'B'\n"
    test_file = tmp_path / "test_subject.py"
    test_file.write_text(tests, encoding="utf-8")
    model = analyze_file(tmp_path / "subject.py", "subject")
    found = measure(
        test_file, tmp_path / "subject.py", list(model.units), model.source, tmp_path, tmp_path
    )
    data = tmp_path / "own.dat"
    run = [sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={data}"]
    include = f"--include={tmp_path / 'subject.py'}"
    subprocess.run([*run, include, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
                   cwd=tmp_path, check=True, capture_output=True)  # fmt: skip
    report = subprocess.run(
        [sys.executable, "-m", "coverage", "report", f"--data-file={data}", "--precision=6"],
        cwd=tmp_path, check=True, capture_output=True, text=True,
    )  # fmt: skip
    total = float(report.stdout.split()[-1].rstrip("%"))
    assert found.ok and found.module_percent is not None
    assert 0 < found.module_percent < 100
    assert found.module_percent == pytest.approx(total, abs=1e-5)


def test_the_module_percent_takes_no_parse_of_its_own(tmp_path, monkeypatch):
    """coverage.py's report parsed the whole file again for the figure (0.2-0.3 CPU s for
    argparse, on the language server's thread at each save): the arcs' parse serves it."""
    import coverage.python

    parses: list[str] = []
    parser = coverage.python.PythonParser

    def counted(*args, **kwargs):
        parses.append("parse")
        return parser(*args, **kwargs)

    monkeypatch.setattr(coverage.python, "PythonParser", counted)
    found = verify(
        tmp_path, "from subject import double\n\ndef test_it():\n    assert double(2) == 4\n"
    )
    assert found.module_percent is not None and 0 < found.module_percent < 100
    assert parses == []


def test_the_runs_figures_from_one_read_are_coverage_pys_own(tmp_path):
    """The arcs, the units' covered targets and each test's come from one read of the run's
    data (``arcs.module_coverage``): the same arcs coverage.py's own API reads of it."""
    from coverage import CoverageData
    from miogen.analysis.targets import parse_code

    tests = (
        "from subject import double\n\n"
        "def test_positive():\n    assert double(2) == 4\n\n"
        "def test_zero():\n    assert double(0) == 0\n"
    )
    (tmp_path / "subject.py").write_text(SUBJECT.lstrip(), encoding="utf-8")
    test_file = tmp_path / "test_subject.py"
    test_file.write_text(tests, encoding="utf-8")
    model = analyze_file(tmp_path / "subject.py", "subject")
    found = measure(
        test_file, tmp_path / "subject.py", list(model.units), model.source, tmp_path, tmp_path,
        sandbox=True,  # as the verification runs: each test's context recorded
    )  # fmt: skip
    data_file = tmp_path / "own.dat"
    run = [sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={data_file}"]
    include = f"--include={tmp_path / 'subject.py'}"
    subprocess.run([*run, include, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
                   cwd=tmp_path, check=True, capture_output=True)  # fmt: skip
    data = CoverageData(str(data_file))
    data.read()
    raw = data.arcs(str((tmp_path / "subject.py").resolve())) or []
    assert found.ok and found.passed == 2
    assert found.arcs == sorted(set(parse_code(model.source).parser.translate_arcs(raw)))
    [unit] = model.units
    assert sorted(found.covered["double"]) == sorted(t.id for t in unit.targets)
    per_test = {name.rsplit("::", 1)[-1]: ids for name, ids in found.per_test.items()}
    assert set(per_test) == {"test_positive", "test_zero"}
    assert per_test["test_positive"] != per_test["test_zero"]
    assert sorted({i for ids in per_test.values() for i in ids}) == sorted(found.covered["double"])


def test_a_project_whose_warnings_are_errors_runs_its_tests_in_a_process_started_ahead(
    tmp_path,
):
    """The process started ahead imports the installed pytest plugins early; pytest then warns
    it cannot rewrite their asserts, and a project's ``filterwarnings = ["error"]`` made that
    warning stop its run before any test (python-dateutil's setup.cfg): nothing verified."""
    from importlib.metadata import entry_points

    if not list(entry_points(group="pytest11")):
        pytest.skip("no pytest plugin installed")
    module, test_file = project_layout(tmp_path, tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'app'\n\n[tool.pytest.ini_options]\nfilterwarnings = ['error',"
        " 'ignore::pytest.PytestDeprecationWarning']\n",  # pytest-asyncio's, the project's own
        encoding="utf-8",
    )
    model = analyze_file(module, "app.subject")
    [waiting] = start_ahead(tmp_path, [0], project=tmp_path)
    try:
        found = measure(
            test_file, module, list(model.units), model.source, tmp_path, tmp_path,
            sandbox=True, ahead=waiting, in_project=True,
        )  # fmt: skip
    finally:
        waiting.close()
    assert found.ok and found.passed == 1, found.output[-1500:]
