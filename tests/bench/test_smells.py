"""bench.smells: the static rules, each on a test that has the smell and one that has not."""

from __future__ import annotations

import json
import textwrap

from miogen.emit.style import project_style
from miogen.emit.versions import spelled

from bench import smells

SUBJECT = """
class Stack:
    def __init__(self, capacity: int = 3) -> None:
        self.items = []
        self.capacity = capacity

    def push(self, item: object) -> None:
        if len(self.items) >= self.capacity:
            raise OverflowError(f"stack is full at {self.capacity}")
        self.items.append(item)

    def peek(self) -> object:
        return self.items[-1]


def mean(values: list, weight: float = 1.0) -> float:
    return sum(values) / len(values) * weight
"""

TESTS = """
import pytest


def test_push_when_full_raises_an_f_string():
    stack = Stack(capacity=0)
    with pytest.raises(OverflowError, match="stack is full at 0"):
        stack.push(1)


def test_push_when_full_raises():
    stack = Stack(capacity=0)
    with pytest.raises(OverflowError, match="stack is full at 0"):
        stack.push(1)


def test_mean_wrong_type():
    with pytest.raises(TypeError, match="unsupported operand type\\\\(s\\\\) for \\\\+"):
        mean(["a"])


def test_mean():
    assert mean([1.0, 2.0]) == 1.5
    assert mean([0.1, 0.2], weight=1.0) == 0.15000000000000002
    assert mean([0.1, 0.2]) == pytest.approx(0.15000000000000002)


def test_everything():
    stack = Stack(capacity=3)
    stack.push("sxdIywkc#")
    stack.push("apple")
    stack.push(48213)
    stack.peek()


def test_push_keeps_capacity():
    stack = Stack(capacity=2)
    stack.push(1)
    assert stack.capacity == 2
    assert stack.items == [1]


def test_stack():
    stack = Stack()
    assert stack.capacity == 3


def test_push_then_mean():
    stack = Stack()
    stack.push(1)
    assert isinstance(mean([1, 48213]), float)


def test_push_then_peek():
    stack = Stack()
    stack.push(1)
    assert stack.peek() == 1


@pytest.mark.parametrize("values", [[1], [2]])
def test_mean_cases(values):
    assert mean(values) == values[0]


@pytest.mark.parametrize(("values", "expected"), [([7.0], 7.0), ([60311], 60311.0)])
def test_mean_rows(values, expected):
    assert mean(values) == expected
"""


def counts() -> smells.Smells:
    subject = smells.read_subject(textwrap.dedent(SUBJECT))
    return smells.count_file("stack", textwrap.dedent(TESTS), subject)


def test_each_rule_counts_what_it_names_and_nothing_else():
    found = counts()
    assert found.tests == 13  # a parametrized test counts each case
    assert found.counts == {
        "interpreter_messages": 1,  # CPython's operand message; the project's own is fine
        "float_equality": 1,  # 0.15000000000000002 exactly; 1.5 and approx are fine
        # "sxdIywkc#", 48213 (twice: once in each test, not once per enclosing call) and the
        # input 60311 (its expected output is not one); "apple", 0 and 1 are plain
        "fuzz_literals": 4,
        "default_keywords": 2,  # capacity=3 and weight=1.0
        "unchecked_queries": 1,  # peek() dropped; push() changes the stack
        # push, then mean on nothing push touched; the pushes before peek are its setup
        "multi_behaviour": 1,
        # capacity=2 restated after push; Stack() alone is the call under test; items is not
        # what the constructor was given
        "unrelated_state": 1,
    }


def test_float_inputs_of_the_call_compared_are_no_float_equality():
    tests = textwrap.dedent("""
        def test_mean():
            assert mean([-1274, 607.46359375]) == pytest.approx(784.1009249913651)

        def test_mean_exactly():
            assert mean([1, 2]) == (0.15000000000000002, 1)
    """)
    found = smells.count_file("stack", tests, smells.read_subject(textwrap.dedent(SUBJECT)))
    assert found.counts["float_equality"] == 1  # the tuple's float; not the approx one's input


def test_a_dropped_query_before_the_call_under_test_is_no_setup():
    tests = textwrap.dedent("""
        def test_push():
            stack = Stack()
            stack.peek()
            stack.push(1)
    """)
    found = smells.count_file("stack", tests, smells.read_subject(textwrap.dedent(SUBJECT)))
    assert found.counts["multi_behaviour"] == 1  # peek changes nothing push sees


def test_a_number_counts_as_one_literal_written_as_a_string_or_nested():
    """``Decimal("-60329")`` is the number -60329, as fuzzy as ``Decimal(-60329)``; a literal in a
    call nested in another call counts once; "12" and "1.5" are plain."""
    written = """
def test_from_decimal():
    assert mean([Decimal("-60329"), Decimal("1.5"), Decimal("12")]) == 1
    mean(values=[Decimal(-60330)])
    mean(["0.1234567", "007"])
"""
    subject = smells.read_subject(textwrap.dedent(SUBJECT))
    assert smells.count_file("stack", written, subject).counts["fuzz_literals"] == 3


def test_the_report_gives_counts_per_100_tests_and_failures():
    found = counts()
    found.clock_failures = 0
    found.elsewhere_failures = 1
    found.checks = {"mypy": 3, "ruff": None}
    found.python_failures = {"3.10": 2, "3.12": None, "3.13": "-"}
    text = smells.report([found], "python -m bench smells", (9.08, 4.55, 2.88))
    assert "Load average at start: 9.08, 4.55, 2.88" in text
    row = next(line for line in text.splitlines() if line.startswith("| stack"))
    assert (
        row
        == "| stack | 13 | 7.7 | 7.7 | 30.8 | 15.4 | 7.7 | 7.7 | 7.7 | 3 | n/a | 0 | 1 | 2 | n/a | - |"
    )


def test_a_message_made_elsewhere_in_the_package_is_the_projects():
    test = textwrap.dedent("""
        def test_mean_of_text():
            with pytest.raises(ValueError, match='Expected "str", received "int"'):
                mean(3)
    """)
    alone = smells.read_subject(textwrap.dedent(SUBJECT))
    package = 'class InvalidInputError(ValueError):\n    msg = \'Expected "str", received "{}"\'\n'
    with_package = smells.read_subject(textwrap.dedent(SUBJECT), [package])
    assert smells.count_file("m", test, alone).counts["interpreter_messages"] == 1
    assert smells.count_file("m", test, with_package).counts["interpreter_messages"] == 0


CHECKED = """
def parse(text: str, /, strict: bool = False) -> int:
    return len(text)
"""

CHECKED_TEST = """
from checked import parse


def test_parse() -> None:
    assert parse("a", True) == 1
"""


def test_mypy_and_ruff_count_the_test_files_findings_under_the_strict_configuration(tmp_path):
    (tmp_path / "checked.py").write_text(CHECKED)
    test_file = tmp_path / "test_checked.py"
    test_file.write_text(CHECKED_TEST)
    assert smells.mypy_errors(test_file, tmp_path, None) == 0
    assert smells.ruff_findings(test_file) == 1  # FBT003: a bare True for a flag
    # text passed by keyword to a positional-only parameter; an unannotated test is fine
    test_file.write_text(CHECKED_TEST.replace('parse("a", True)', 'parse(text="a")'))
    test_file.write_text(test_file.read_text().replace(" -> None:", ":"))
    assert smells.mypy_errors(test_file, tmp_path, None) == 1
    assert smells.ruff_findings(test_file) == 0


COUNTER = """
class Counter:
    def __init__(self, start: int = 0) -> None:
        self.count = start

    def add(self, step: int) -> int:
        if step < 0:
            raise ValueError("a negative step")
        self.count += step
        if self.count * 7919 % 104729 == 1:  # a goal the search does not reach in 60 runs
            return -1
        return self.count
"""


def test_an_evaluation_budget_makes_the_same_file_whatever_the_load(tmp_path):
    """``bench smells --evaluations N --seed S`` generates through ``real.run_ours``: under an
    evaluation budget two runs write the same tests (under 5 s the counts of one module moved
    from 12.3 to 0.0 between two runs of the same code)."""
    from bench import real

    subject = tmp_path / "counters.py"
    subject.write_text(COUNTER)
    files = []
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        run = real.run_ours(subject, tmp_path, folder, 5, seed=3, evaluations=60)
        assert run.status == "ok", run.message
        summary = json.loads((folder / "summary.json").read_text())
        assert sum(unit["evaluations"] for unit in summary["units"]) == 60, summary
        files.append((folder / "test_miogen.py").read_text())
    assert files[0] == files[1]
    assert "def test_" in files[0]


def test_the_command_passes_evaluations_and_seed_and_names_them_in_the_report(
    tmp_path, monkeypatch
):
    given: dict[str, object] = {}

    def run(modules, out, reuse, log=print, generator=None, evaluations=None, seed=0):
        given.update(modules=[m.name for m in modules], evaluations=evaluations, seed=seed)
        return []

    monkeypatch.setattr(smells, "run", run)
    report = tmp_path / "smells.md"
    arguments = ["--modules", "stdlib_fractions", "--evaluations", "500", "--seed", "2"]
    assert smells.main([*arguments, "--report", str(report), "--out", str(tmp_path)]) == 0
    assert given == {"modules": ["stdlib_fractions"], "evaluations": 500, "seed": 2}
    assert "--modules stdlib_fractions --evaluations 500 --seed 2`" in report.read_text()


def test_the_subjects_project_promises_the_oldest_python_the_tests_run_on(tmp_path):
    """A project without ``requires-python`` gets the spellings of the Python miogen runs on
    (3.11's ``datetime.UTC``): the subject's must say it supports 3.10, where its tests run."""
    (tmp_path / "pyproject.toml").write_text(smells.SUBJECT_PROJECT)
    minimum = project_style(tmp_path / "test_miogen.py").minimum_python
    oldest = min(tuple(int(part) for part in version.split(".")) for version in smells.PYTHONS)
    assert minimum == oldest
    written = spelled("x = datetime.timezone.utc\n", minimum)
    assert written == "x = datetime.timezone.utc\n"


def test_the_strict_ruff_holds_the_file_to_the_python_the_subject_promises(tmp_path):
    """``datetime.timezone.utc`` is what 3.10 has: no UP017 ("use datetime.UTC") for it."""
    test_file = tmp_path / "test_utc.py"
    test_file.write_text(
        "import datetime\n\n\ndef test_utc():\n"
        "    assert datetime.timezone.utc.utcoffset(None) == datetime.timedelta(0)\n"
    )
    assert smells.ruff_findings(test_file) == 1  # ICN001: datetime imported as dt


def test_what_an_assertion_compares_with_is_output_not_fuzz():
    """``== Decimal("-40.755...")`` and ``== re.compile("^((Args)|(Raises))...")`` are what the
    code returned, as it returned it; the inputs of the call compared still count."""
    written = """
def test_outputs():
    assert mean([Decimal(-60329)]) == Decimal("-40.75555555555555555555555556")
    assert parser.titles_re == re.compile("^((Args)|(Raises)):[ \\t]*$", re.MULTILINE)
"""
    subject = smells.read_subject(textwrap.dedent(SUBJECT))
    assert smells.count_file("stack", written, subject).counts["fuzz_literals"] == 1


def test_the_year_of_a_date_is_no_fuzz_literal():
    """A date is written with its year; a number of four digits elsewhere still counts."""
    written = """
def test_dates():
    assert mean([datetime.date(2008, 2, 28), datetime.datetime(1999, 1, 1, 12)]) == 1
    assert mean([datetime.date(12008, 2, 28), 2008]) == 1
"""
    subject = smells.read_subject(textwrap.dedent(SUBJECT))
    assert smells.count_file("stack", written, subject).counts["fuzz_literals"] == 2


def test_project_checks_give_the_subject_the_strict_configuration(tmp_path):
    """``--project-checks``: the subject project configures the bench's strict mypy and ruff,
    so that miogen's gate applies them while it generates (issue 24 part 3)."""
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    text = smells.project_checks(tmp_path, site, "pkg")
    assert (tmp_path / "mypypath" / "pkg").resolve() == (site / "pkg").resolve()
    (tmp_path / "pyproject.toml").write_text(smells.SUBJECT_PROJECT + text)
    style = project_style(tmp_path / "test_miogen.py")
    assert style.mypy and style.lints
    assert 'select = ["ALL"]' in text and "check_untyped_defs = true" in text
