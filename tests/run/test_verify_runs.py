"""Verification's runs of the kept tests: orders, hash seeds, the sandbox, processes started
ahead; the names of separate jobs' tests kept apart."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from miogen.analysis.model import ModuleModel
from miogen.analysis.module import analyze_file
from miogen.common.project import ModuleLocation, locate
from miogen.common.records import Loaded, Progress, TestRecord, UnitStarted
from miogen.emit.module import unique_names
from miogen.host.measure import start_ahead
from miogen.run import check as verifying
from miogen.run.check import VERIFY_RUNS, verify
from miogen.run.job import VerificationAhead
from miogen.run.result import Verification


def record(name: str, body: str, imports: tuple[str, ...] = ("letters",)) -> TestRecord:
    source = f"def {name}():\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return TestRecord(name, source, imports, (), (), 0, [])


def project_module(tmp_path: Path, name: str, source: str) -> tuple[ModuleLocation, ModuleModel]:
    """A project in ``tmp_path`` with the one module ``name``: its location and model."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    module = tmp_path / f"{name}.py"
    module.write_text(source)
    location = locate(module)
    return location, analyze_file(module, location.module_name)


def count_calls(monkeypatch: pytest.MonkeyPatch, *names: str) -> list[tuple[str, bool]]:
    """Each later call of ``run.check``'s functions ``names``, as (name, started ahead)."""
    calls: list[tuple[str, bool]] = []
    for name in names:
        original = getattr(verifying, name)

        def counted(*args, _name=name, _original=original, **kwargs):
            calls.append((_name, kwargs.get("ahead") is not None))
            return _original(*args, **kwargs)

        monkeypatch.setattr(verifying, name, counted)
    return calls


def test_tests_of_separate_jobs_are_renamed_apart():
    left = [record("test_area", "assert 1")]
    right = [record("test_area", "assert 2"), record("test_other", "assert 3")]
    renamed = unique_names([left, right])
    assert [t.name for group in renamed for t in group] == [
        "test_area",
        "test_area_2",
        "test_other",
    ]
    assert renamed[1][0].source.startswith("def test_area_2():")


@pytest.mark.parametrize("started_ahead", [False, True], ids=["fresh", "ahead"])
def test_verification_drops_each_failing_test_under_its_cause(tmp_path: Path, started_ahead: bool):
    """One run with coverage (file order, hash seed 1), one backwards (hash seed 2), both under
    the worker's sandbox: what fails anywhere is dropped and counted by cause (unstable when it
    passed in the other run). The first attempt's runs happen in the processes started ahead,
    when there are."""
    joined = 'def letters() -> str:\n    return ",".join({"alpha", "beta", "gamma", "delta"})\n'
    orders = [joined_under(joined, seed) for seed in ("1", "2")]
    assert orders[0] != orders[1], "the two runs' hash seeds give other orders"
    location, model = project_module(tmp_path, "words", joined)
    outside = tmp_path / "outside.txt"
    tests = [
        record("test_kept", "assert len(letters()) == 22"),
        record("test_hash_order", f"assert letters() == {orders[0]!r}"),
        record("test_fails", 'assert letters() == ""'),
        record("test_writes", f"open({str(outside)!r}, 'w').write('x')"),
    ]
    ahead = start_ahead(location.import_root, range(VERIFY_RUNS)) if started_ahead else []
    verified = verify(location, model, model.units, tests, ahead=ahead)
    # pytest's exit status (1: some tests failed), not the kill of a process left waiting
    assert [process.process.returncode for process in ahead] == [1] * len(ahead)
    assert [t.name for t in verified.tests] == ["test_kept"]
    assert verified.dropped.unstable == ["test_hash_order"]  # passed with hash seed 1 only
    assert verified.dropped.failing == ["test_fails"]
    assert verified.dropped.sandbox == ["test_writes"]
    assert not outside.exists()
    assert verified.measurement is not None and verified.measurement.ok
    assert verified.measurement.covered["letters"], "coverage.py measured what was kept"


def joined_under(source: str, hash_seed: str) -> str:
    """What ``letters()`` of ``source`` returns in an interpreter with that hash seed."""
    completed = subprocess.run(
        [sys.executable, "-c", f"{source}\nprint(letters())"], capture_output=True, text=True,
        env={"PYTHONHASHSEED": hash_seed}, check=True,
    )  # fmt: skip
    return completed.stdout.strip()


def test_verification_processes_start_with_the_search_progress_not_before(tmp_path: Path):
    """Started at the module's load they would compete with the search's first steps."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "words.py").write_text("def letters() -> str:\n    return 'a'\n")
    forwarded: list[object] = []
    ahead = VerificationAhead(locate(tmp_path / "words.py"), forwarded.append)
    try:
        for event in (Loaded({"analyse": 0.1}), UnitStarted("letters")):
            ahead(event)
            assert ahead.processes == []
        progress = Progress("letters", 1, 0.1, 0.1, (0,), 1, 10.0)
        ahead(progress)
        assert len(ahead.processes) == VERIFY_RUNS
        ahead(progress)
        assert len(ahead.processes) == VERIFY_RUNS, "started once"
    finally:
        ahead.close()
    assert len(forwarded) == 4, "every event goes on"
    assert all(process.process.poll() is not None for process in ahead.processes)


def _pair_both_shuffles_keep(count: int) -> tuple[int, int]:
    """Two tests that random shuffles with seeds 1 and 2 (the reruns' before the backwards
    run) both leave in the file's order."""
    positions = []
    for seed in (1, 2):
        shuffled = list(range(count))
        random.Random(seed).shuffle(shuffled)
        positions.append({test: place for place, test in enumerate(shuffled)})
    return next(
        (first, second)
        for first in range(count)
        for second in range(first + 1, count)
        if all(place[first] < place[second] for place in positions)
    )


def test_a_test_that_needs_another_before_it_is_dropped_whatever_the_pair(tmp_path: Path):
    location, model = project_module(tmp_path, "words", "def letters() -> str:\n    return 'a'\n")
    count = 6
    setter, needer = _pair_both_shuffles_keep(count)
    tests = [record(f"test_{index}", "assert letters() == 'a'") for index in range(count)]
    tests[setter] = record(
        f"test_{setter}", "import os\nos.environ['MIOGEN_ORDER_PROBE'] = '1'\nassert letters()"
    )
    tests[needer] = record(
        f"test_{needer}", "import os\nassert os.environ.get('MIOGEN_ORDER_PROBE') == '1'"
    )
    verified = verify(location, model, model.units, tests)
    assert verified.dropped.unstable == [f"test_{needer}"]
    assert len(verified.tests) == count - 1


def test_a_later_attempt_runs_once_with_coverage_in_a_process_started_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The kept tests passed every order and seed already; the next attempt runs the file once,
    with coverage.py, in a process started when the first failure was known."""
    location, model = project_module(tmp_path, "words", "def letters() -> str:\n    return 'a'\n")
    calls = count_calls(monkeypatch, "measure", "run_shuffled")
    tests = [record("test_kept", "assert letters() == 'a'"), record("test_fails", "assert 0")]
    verified = verify(location, model, model.units, tests)
    assert [t.name for t in verified.tests] == ["test_kept"]
    assert verified.dropped.failing == ["test_fails"]
    assert sorted(calls) == [("measure", False), ("measure", True), ("run_shuffled", False)]
    assert verified.measurement is not None and verified.measurement.ok
    assert verified.measurement.covered["letters"]


def test_keeping_is_a_step_of_the_verification_and_what_it_keeps_runs_again_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The verifier's first runs hand the tests that passed every run to the caller, which keeps
    what adds; what it leaves out is not run again, and the rest runs once more, alone, in a
    process started ahead: a kept test that needed a left-out one before it fails there and is
    dropped, the measurement is of what is kept, and the runs reported stay the first
    verification's."""
    signs = "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    return 0\n"
    location, model = project_module(tmp_path, "signs", signs)
    calls = count_calls(monkeypatch, "measure")
    probe = "import os\nos.environ['MIOGEN_KEEP_PROBE'] = '1'\nassert sign(0) == 0"
    tests = [
        record("test_positive", "assert sign(3) == 1", ("sign",)),
        record("test_sets", probe, ("sign",)),
        record("test_needs", "import os\nassert os.environ['MIOGEN_KEEP_PROBE'] == '1'", ()),
    ]
    kept: list[list[str]] = []

    def keep(verification: Verification) -> None:
        kept.append([t.name for t in verification.tests])
        verification.dropped.adds_nothing.append("test_sets")
        verification.tests = [t for t in verification.tests if t.name != "test_sets"]

    verifier = verifying.Verifier(location, model, model.units, again_ahead=True)
    try:
        verified = verifier.first(tests, runs=1)
        keep(verified)
        verifier.again(verified)
    finally:
        verifier.close()
    assert kept == [["test_positive", "test_sets", "test_needs"]]
    assert [t.name for t in verified.tests] == ["test_positive"]
    assert verified.dropped.failing == ["test_needs"]
    assert verified.runs == 1 and verified.runtimes == []
    # the first run; the kept tests' (in the process started ahead); and their rerun without
    # the one that failed there (in a process started when that failure was known)
    assert calls == [("measure", False), ("measure", True), ("measure", True)]
    by_arc = {t.arc: t.id for t in model.unit("sign").targets}
    assert verified.measurement is not None
    assert verified.measurement.covered["sign"] == [by_arc[(2, 3)]]
