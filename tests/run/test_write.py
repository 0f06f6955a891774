"""The test module as written: module text and merges into the file of earlier runs."""

from __future__ import annotations

from miogen.common.records import TestRecord
from miogen.emit.module import module_text
from miogen.emit.state import FIXTURE_NAME as FIXTURE
from miogen.run.write import merge_into


def record(name: str, body: str) -> TestRecord:
    source = f"def {name}():\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return TestRecord(name, source, ("letters",), (), (), 0, [])


def test_a_module_with_state_gets_the_fixture_once():
    tests = [record("test_one", "assert letters()")]
    imports, generated = module_text(tests, "words", module_state=True)
    assert generated[0].name == FIXTURE and "import words as _miogen_module" in imports
    assert FIXTURE not in [t.name for t in module_text(tests, "words", False)[1]]
    first = merge_into(None, tests, "words", module_state=True).text
    again = merge_into(first, [record("test_two", "assert not letters() == 1")], "words", True)
    assert again.text.count(f"def {FIXTURE}") == 1
    assert "def test_two" in again.text
