"""The pipeline the CLI, CTG and the language server share: test module text, names, verification."""

from __future__ import annotations

from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.emit.state import FIXTURE_NAME as FIXTURE
from miogen.pipeline import merge_into, module_text, unique_names, verify
from miogen.project import locate
from miogen.records import TestRecord


def record(name: str, body: str, imports: tuple[str, ...] = ("letters",)) -> TestRecord:
    source = f"def {name}():\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return TestRecord(name, source, imports, (), (), 0, [])


def test_a_module_with_state_gets_the_fixture_once():
    tests = [record("test_one", "assert letters()")]
    imports, generated = module_text(tests, "words", module_state=True)
    assert generated[0].name == FIXTURE and "import words as _miogen_module" in imports
    assert FIXTURE not in [t.name for t in module_text(tests, "words", False)[1]]
    first = merge_into(None, tests, "words", module_state=True).text
    again = merge_into(first, [record("test_two", "assert not letters() == 1")], "words", True)
    assert again.text.count(f"def {FIXTURE}") == 1
    assert "def test_two" in again.text


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


def test_verification_drops_each_failing_test_under_its_cause(tmp_path: Path):
    """One run with coverage (hash seed 0, as in the worker), two shuffled with other seeds,
    all under the worker's sandbox: what fails anywhere is dropped and counted by cause."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    module = tmp_path / "words.py"
    module.write_text(
        'def letters() -> str:\n    return ",".join({"alpha", "beta", "gamma", "delta"})\n'
    )
    location = locate(module)
    model = analyze_file(module, location.module_name)
    outside = tmp_path / "outside.txt"
    tests = [
        record("test_kept", "assert len(letters()) == 22"),
        record("test_hash_order", 'assert letters() == "alpha,delta,beta,gamma"'),
        record("test_fails", 'assert letters() == ""'),
        record("test_writes", f"open({str(outside)!r}, 'w').write('x')"),
    ]
    verified = verify(location, model, model.units, tests)
    assert [t.name for t in verified.tests] == ["test_kept"]
    assert verified.dropped.unstable == ["test_hash_order"]  # passed with seed 0 only
    assert verified.dropped.failing == ["test_fails"]
    assert verified.dropped.sandbox == ["test_writes"]
    assert not outside.exists()
    assert verified.measurement is not None and verified.measurement.ok
    assert verified.measurement.covered["letters"], "coverage.py measured what was kept"
