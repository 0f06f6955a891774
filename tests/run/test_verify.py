"""One verification for every front end: the worker's outcomes in, each unit's kept tests out."""

from __future__ import annotations

from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.common.project import locate
from miogen.common.records import StopReason, TestRecord, UnitOutcome, UnitResult
from miogen.host.measure import measure
from miogen.run.result import Numbers
from miogen.run.verify import verify_outcomes

SHAPES = """
def sign(x: int) -> int:
    if x > 0:
        return 1
    return 0


def parity(x: int) -> str:
    if x % 2:
        return "odd"
    return "even"
"""


def record(name: str, unit: str, body: str) -> TestRecord:
    return TestRecord(name, f"def {name}():\n    {body}\n", (unit,), (), (), 0, [])


def outcome(unit: str, *tests: TestRecord) -> UnitOutcome:
    result = UnitResult(unit, 2, (), tests, (), StopReason.BUDGET)
    return UnitOutcome(unit, result=result)


def shapes(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "shapes.py").write_text(SHAPES.lstrip())
    location = locate(tmp_path / "shapes.py")
    return location, analyze_file(location.path, location.module_name)


def test_each_unit_gets_its_kept_tests_its_drops_and_coverage_pys_numbers(tmp_path):
    location, model = shapes(tmp_path)
    sign, parity = model.unit("sign"), model.unit("parity")
    outcomes = [
        # the same name in two units' jobs (ctg's seeding): made apart, not lost
        outcome("sign", record("test_one", "sign", "assert sign(3) == 1")),
        outcome("parity", record("test_one", "parity", 'assert parity(3) == "odd"'),
                record("test_wrong", "parity", 'assert parity(2) == "odd"')),
    ]  # fmt: skip
    result = verify_outcomes(location, model, [sign, parity], outcomes, runs=1)
    first, second = result.units
    assert [t.name for t in first.tests] == ["test_one"] and first.dropped == []
    assert [t.name for t in second.tests] == ["test_one_2"]
    assert second.dropped == ["test_wrong"]
    assert first.numbers == Numbers(1, 2) == second.numbers
    assert result.numbers == Numbers(2, 4)
    assert result.units[0].gain is None, "no suite asked for: every verified test stays"


def test_a_suite_leaves_only_what_adds_to_it_and_the_gain(tmp_path):
    location, model = shapes(tmp_path)
    sign = model.unit("sign")
    by_arc = {t.arc: t.id for t in sign.targets}
    tests = (record("test_positive", "sign", "assert sign(3) == 1"),
             record("test_zero", "sign", "assert sign(0) == 0"))  # fmt: skip
    suite = {"sign": [by_arc[(2, 3)]]}  # the project's tests cover x > 0 already
    result = verify_outcomes(location, model, [sign], [outcome("sign", *tests)], suite=suite)
    [unit] = result.units
    assert [t.name for t in unit.tests] == ["test_zero"]
    assert result.dropped.adds_nothing == ["test_positive"] and unit.dropped == []
    assert unit.gain is not None and unit.gain.added == 1
    assert unit.measured == [by_arc[(2, 4)]]


def test_a_unit_without_tests_is_not_verified(tmp_path):
    location, model = shapes(tmp_path)
    failed = UnitOutcome("sign", "failed", message="the worker died")
    result = verify_outcomes(location, model, [model.unit("sign")], [failed])
    assert result.verification is None and result.units[0].tests == []
    assert result.numbers == Numbers(0, 2)


def test_the_module_percent_is_coverage_pys_on_the_tests_kept(tmp_path):
    location, model = shapes(tmp_path)
    sign = model.unit("sign")
    by_arc = {t.arc: t.id for t in sign.targets}
    tests = (record("test_positive", "sign", "assert sign(3) == 1"),
             record("test_zero", "sign", "assert sign(0) == 0"))  # fmt: skip
    suite = {"sign": [by_arc[(2, 3)]]}
    result = verify_outcomes(location, model, [sign], [outcome("sign", *tests)], suite=suite)
    assert [t.name for t in result.tests] == ["test_zero"]
    kept = tmp_path / "kept" / "test_kept.py"
    kept.parent.mkdir()
    kept.write_text("from shapes import sign\n\n\ndef test_zero():\n    assert sign(0) == 0\n")
    alone = measure(kept, location.path, [sign], model.source, tmp_path, tmp_path)
    assert alone.ok and alone.module_percent is not None
    verification = result.verification
    assert verification is not None and verification.measurement is not None
    assert verification.measurement.module_percent == alone.module_percent
    assert result.units[0].gain is not None and result.units[0].gain.added == 1
