"""Keep only what adds: verified tests that cover nothing beyond the project's suite are dropped."""

from __future__ import annotations

from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.common.project import locate
from miogen.common.records import TestRecord
from miogen.host.suite_kills import Keeping
from miogen.run.check import verify
from miogen.run.keep import keep_only_what_adds
from miogen.run.result import Verification
from subjects import SIGN


def record(name: str, body: str) -> TestRecord:
    return TestRecord(name, f"def {name}():\n    {body}\n", ("sign",), (), (), 0, [])


def keeping(verification: Verification, suite: dict[str, list[int]]) -> Keeping | None:
    """What decides which tests are kept, as the verification's flow reads it."""
    if verification.covers is None or not verification.tests:
        return None
    ids = frozenset(i for each in suite.values() for i in each)
    return Keeping([t.name for t in verification.tests], verification.covers, ids)


def verified_sign(tmp_path: Path, tests: list[TestRecord]):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "signs.py").write_text(SIGN.lstrip())
    location = locate(tmp_path / "signs.py")
    model = analyze_file(location.path, location.module_name)
    return location, model, verify(location, model, model.units, tests, runs=1)


def test_only_tests_adding_a_target_beyond_the_suite_and_the_kept_ones_stay(tmp_path):
    tests = [
        record("test_positive", "assert sign(5) == 1"),  # the suite has it already
        record("test_negative", "assert sign(-5) == -1"),
        record("test_negative_again", "assert sign(-7) == -1"),  # adds nothing to the one before
        # sign(0): both conditions false; the first is covered already, the second is new
        record("test_zero", "assert sign(0) == 0"),
    ]
    location, model, verification = verified_sign(tmp_path, tests)
    [unit] = model.units
    by_arc = {t.arc: t.id for t in unit.targets}
    suite = {"sign": [by_arc[(2, 3)]]}  # x > 0 true: what the project's tests cover
    gains = keep_only_what_adds(
        verification,
        keeping(verification, suite),
        model.units,
        suite,
    )
    assert [t.name for t in verification.tests] == ["test_negative", "test_zero"]
    assert verification.dropped.adds_nothing == ["test_positive", "test_negative_again"]
    gain = gains["sign"]
    assert len(gain.suite) == 1 and gain.added == 3 and len(gain.combined) == 4
    assert gain.describe() == "sign: +3 branches over your suite (25.0% → 100.0%)"
    assert verification.measurement is not None
    assert sorted(verification.measurement.covered["sign"]) == sorted(
        by_arc[a] for a in [(2, 4), (4, 5), (4, 6)]
    ), "coverage.py's per-test measure of the kept tests"


def test_a_complete_suite_gets_nothing_and_says_so(tmp_path):
    tests = [record("test_negative", "assert sign(-5) == -1")]
    location, model, verification = verified_sign(tmp_path, tests)
    everything = {"sign": [t.id for t in model.units[0].targets]}
    gains = keep_only_what_adds(
        verification,
        keeping(verification, everything),
        model.units,
        everything,
    )
    assert verification.tests == []
    assert gains["sign"].added == 0
    assert gains["sign"].describe() == (
        "your suite already covers every branch of sign; nothing added"
    )


def test_without_a_suite_everything_that_covers_something_new_stays(tmp_path):
    tests = [record("test_negative", "assert sign(-5) == -1"), record("test_one", "assert sign(1)")]
    location, model, verification = verified_sign(tmp_path, tests)
    keep_only_what_adds(verification, keeping(verification, {}), model.units, {})
    assert [t.name for t in verification.tests] == ["test_negative", "test_one"]


def test_the_kept_tests_are_verified_again_in_a_process_started_ahead(tmp_path, monkeypatch):
    """Keeping what adds left a test out: the kept ones run again alone, in a process started
    while the first verification ran (its start is off the clock): no pytest starts cold."""
    from miogen.common.records import StopReason, UnitOutcome, UnitResult
    from miogen.host import measure
    from miogen.host.measure import start_ahead
    from miogen.run.check import VERIFY_RUNS
    from miogen.run.verify import verify_outcomes

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "signs.py").write_text(SIGN.lstrip())
    location = locate(tmp_path / "signs.py")
    model = analyze_file(location.path, location.module_name)
    [unit] = model.units
    by_arc = {t.arc: t.id for t in unit.targets}
    tests = (record("test_positive", "assert sign(5) == 1"), record("test_zero", "assert sign(0) == 0"))  # fmt: skip
    outcome = UnitOutcome("sign", result=UnitResult("sign", 4, (), tests, (), StopReason.BUDGET))

    def cold(*args, **kwargs):
        raise AssertionError("a pytest process started cold")

    ahead = start_ahead(location.import_root, range(VERIFY_RUNS))
    monkeypatch.setattr(measure, "_run_pytest", cold)
    suite = {"sign": [by_arc[(2, 3)]]}  # x > 0 true: test_positive adds nothing
    run = verify_outcomes(location, model, model.units, [outcome], ahead=ahead, suite=suite)
    assert [t.name for t in run.unit("sign").tests] == ["test_zero"]
    assert run.dropped.adds_nothing == ["test_positive"]
    assert run.measurement is not None and run.measurement.ok
    assert sorted(run.measurement.covered["sign"]) == sorted(by_arc[a] for a in [(2, 4), (4, 6)]), (
        "coverage.py's run of the kept test alone"
    )


def test_the_editors_suite_is_read_once_per_job(tmp_path, monkeypatch):
    """The editor's job reads the cached suite when it starts (the search aims past it) and
    when its tests are kept: one read, since each hashes the project's files, and the two
    answers are the same measurement."""
    from miogen.run import verify as flow

    reads: list[Path] = []
    real = flow.project_baseline

    def counted(root: Path, *args: object, **kwargs: object):
        reads.append(root)
        return real(root, *args, **kwargs)

    monkeypatch.setattr(flow, "project_baseline", counted)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    suite = flow.CachedSuite(tmp_path)
    first, kept = suite.current(), suite.result()
    assert reads == [tmp_path]
    assert first is kept
    assert suite.missing is (kept is None)


def test_a_test_whose_only_kill_the_suite_did_not_judge_is_not_kept(tmp_path):
    """A mutant past the cap of the suite's runs is not judged: a test that kills it alone
    may add nothing, so it is not kept for it, nor counted; one killing a mutant the suite
    leaves alive is."""
    from miogen.host.suite_kills import SuiteKills
    from miogen.run.keep import keep_adds

    tests = [
        record("test_negative", "assert sign(-5) == -1"),
        record("test_zero", "assert sign(0) == 0"),
    ]
    location, model, verification = verified_sign(tmp_path, tests)
    everything = {"sign": [t.id for t in model.units[0].targets]}
    kills = {"test_negative": {("sign", 0)}, "test_zero": {("sign", 1)}}
    verdict = SuiteKills(alive={("sign", 1)}, unjudged={("sign", 0)})
    decides = keeping(verification, everything)
    kept = keep_adds(verification, decides, model.units, everything, kills, verdict)
    assert [t.name for t in verification.tests] == ["test_zero"]
    assert kept.gains["sign"].mutants == 1
