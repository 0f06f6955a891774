"""Seeds from the project's tests (issue 23 part 6): inputs its tests build in steps (names
bound to literals, then ``+``), as the unit's first tests and as values of the module's pool."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from miogen.analysis.examples import MAX_TEST_VALUES, ExampleCall, calls_in_test, values_in_tests
from miogen.analysis.model import ConstantPool
from miogen.common.records import JobSpec, UnitJob
from miogen.host.supervisor import run_job
from miogen.testcase.examples import project_pool, project_values

# A mark joins only after a letter of another script: random text never holds both
MARKS = """
import unicodedata


def mark(label, pos):
    if not 0 < pos < len(label):
        return "out"
    if unicodedata.combining(label[pos]) == 9 and unicodedata.category(label[pos - 1]) == "Lo":
        return "joined"
    return "plain"
"""

MARKS_TEST = """
import marks


def test_joined():
    ka = "\\u0915"
    virama = "\\u094d"
    assert marks.mark(ka + virama, 1) == "joined"
    assert marks.mark(ka * 2, 1) == "plain"
"""

# A date only the tests of another unit spell: the parser's valid side needs one
DAYS = """
from datetime import date, datetime


def parse_day(text):
    try:
        day = datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        return None
    if day.month == 2 and day.day == 29:
        return "leap"
    return day.date()


def days_between(first: date, second: date) -> int:
    return (second - first).days
"""

DAYS_TEST = """
from datetime import date

from days import days_between

LEAP = "2024-02-29"


def test_days():
    start = date.fromisoformat(LEAP)
    assert days_between(start, date.fromisoformat("2024-03-01")) == 1
"""


def project(tmp_path: Path, name: str, source: str, test: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / f"test_{name}.py").write_text(test)
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return path


def test_names_bound_once_to_literals_fold_into_the_calls_arguments():
    tree = ast.parse(
        textwrap.dedent("""
        PREFIX = "xn--"

        def test_a(given):
            label = PREFIX + "abc"
            again = "x"
            again = "y"
            unit(label, 2 * 3, key=label * 2)
            unit(again)  # bound twice: its value is not known here
            unit(given)  # a parameter
            unit("a" * 10**9)  # too long to build
            obj.unit(PREFIX)

        def test_b():
            label = 1
            unit(label)
        """)
    )
    assert calls_in_test(tree, "unit") == [
        ExampleCall("unit", ("xn--abc", 6), (("key", "xn--abcxn--abc"),)),
        ExampleCall("unit", ("xn--",), ()),
        ExampleCall("unit", (1,), ()),
    ]
    assert {"xn--", "xn--abc", 6, "xn--abcxn--abc", 1} <= set(values_in_tests([tree]))


def test_a_unit_is_covered_from_its_tests_inputs_built_in_steps(tmp_path):
    path = project(tmp_path, "marks", MARKS, MARKS_TEST)
    spec = JobSpec(
        path=str(path), module_name="marks", import_root=str(tmp_path), cwd=str(tmp_path),
        units=(UnitJob("mark"),), evaluations=40, seed=1, mutation_share=0.0,
    )  # fmt: skip
    outcome = run_job(spec)
    result = outcome.units[0].result
    assert result is not None, outcome.message
    assert len(result.covered) == result.total == 4


def test_the_projects_test_values_join_the_pool_of_every_unit(tmp_path):
    path = project(tmp_path, "days", DAYS, DAYS_TEST)
    pool = project_pool(ConstantPool(strings=("%Y-%m-%d",)), str(tmp_path), ("parse_day",))
    assert pool.strings == ("%Y-%m-%d",)  # no test file names parse_day
    pool = project_pool(ConstantPool(), str(tmp_path), ("parse_day", "days_between"))
    assert {"2024-02-29", "2024-03-01"} <= set(pool.strings)
    spec = JobSpec(
        path=str(path), module_name="days", import_root=str(tmp_path), cwd=str(tmp_path),
        units=(UnitJob("parse_day"), UnitJob("days_between")), evaluations=60, seed=1,
        mutation_share=0.0,
    )  # fmt: skip
    outcome = run_job(spec)
    [result] = [u.result for u in outcome.units if u.unit == "parse_day"]
    assert result is not None, outcome.message
    assert len(result.covered) == result.total == 2  # a leap day and another valid day


def test_the_units_of_a_module_share_one_walk_of_each_test_file(tmp_path):
    """Each test file is walked once for all the module's units (before they share the
    budget): idna's 14 units each walking its tests took a fifth of a second apiece."""
    from miogen.analysis import examples as found
    from miogen.testcase.examples import read_project_tests

    project(tmp_path, "marks", MARKS, MARKS_TEST)
    found.calls_by_name.cache_clear()
    assert read_project_tests(str(tmp_path), ["mark"]) == 1
    assert found.calls_by_name.cache_info().misses == 1
    for _ in range(3):
        assert found.example_calls(ast.parse(MARKS), "mark", _trees(tmp_path))
    assert found.calls_by_name.cache_info().misses == 1


def _trees(root: Path) -> tuple[ast.Module, ...]:
    from miogen.testcase.examples import project_test_trees

    return project_test_trees(str(root), "mark")


def test_examples_seed_the_archive_until_the_deadline_only(tmp_path):
    import time

    from miogen.worker.phases import replay_seeds
    from worker.helpers import problem_for

    path = project(tmp_path, "marks", MARKS, MARKS_TEST)
    problem = problem_for(path, "mark")
    job = UnitJob("mark")
    seeded, _ = replay_seeds(problem, job, 1, True, str(tmp_path))
    assert seeded.covered_count > 0
    late, _ = replay_seeds(problem, job, 1, True, str(tmp_path), time.monotonic())
    assert late.covered_count == 0


def test_the_rows_of_a_parametrize_table_fold_into_the_calls_arguments():
    """dateutil's suite passes 60 date strings to ``parse(text)`` through one table."""
    tree = ast.parse(
        textwrap.dedent("""
        import pytest

        CASES = [("Sep 25 2003", now(), "month first"), ("2003-09-25", 1, "iso")]

        @pytest.mark.parametrize("text,expected,message", CASES)
        def test_table(text, expected, message):
            assert unit(text) == expected, message

        @pytest.mark.parametrize(("sep", "n"), [pytest.param("-", 1, id="dash"), (".", 2)])
        @pytest.mark.parametrize("first", [True])
        def test_two(sep, n, first):
            text = "10" + sep + "09"
            unit(text, dayfirst=first, width=n)

        def test_plain(text):
            unit(text)  # a fixture: no value known
        """)
    )
    assert calls_in_test(tree, "unit") == [
        ExampleCall("unit", ("Sep 25 2003",), ()),
        ExampleCall("unit", ("2003-09-25",), ()),
        ExampleCall("unit", ("10-09",), (("dayfirst", True), ("width", 1))),
        ExampleCall("unit", ("10.09",), (("dayfirst", True), ("width", 2))),
    ]
    assert {"Sep 25 2003", "10-09", "10.09"} <= set(values_in_tests([tree]))


def test_the_files_that_use_the_units_most_fill_the_pool_first(tmp_path):
    """The pool holds MAX_TEST_VALUES: a file that imports the unit once and holds many other
    literals (read first by its name) left no room for the values of the unit's own tests."""
    project(tmp_path, "days", DAYS, "from days import parse_day\n\n\n" + "".join(
        f"def test_{i}():\n    assert parse_day('2024-01-01') == {i}\n" for i in range(3)
    ))  # fmt: skip
    names = ", ".join(f"'other {i}'" for i in range(MAX_TEST_VALUES + 10))
    (tmp_path / "tests" / "test_all_imports.py").write_text(
        f"from days import parse_day\n\nNAMES = [{names}]\n\n\ndef test_it():\n    assert NAMES\n"
    )
    found = project_values(str(tmp_path), ("parse_day",))
    assert len(found) == MAX_TEST_VALUES and "2024-01-01" in found
