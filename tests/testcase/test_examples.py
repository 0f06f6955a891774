"""The module's own examples (doctests, literal call sites) seed the search and its pool."""

from __future__ import annotations

import ast
import textwrap

from miogen.analysis.examples import ExampleCall, example_calls, example_literals
from miogen.analysis.module import analyze_file
from miogen.common.records import JobSpec, UnitJob
from miogen.host.supervisor import run_job
from miogen.testcase.examples import example_tests
from miogen.testcase.model import Statement
from miogen.testcase.sampling import TestFactory

# The case: a str that must match a library class's regex (packaging's Version), whose
# docstring shows valid inputs; a random string is no version.
VERSIONS = '''
from packaging.version import Version


def next_minor(text: str) -> str:
    """The release after ``text``; a pre-release is released as it is.

    >>> next_minor("1.2.3")
    '1.3.0'
    >>> next_minor(text="2.0rc1")
    '2.0rc1'
    """
    version = Version(text)
    if version.is_prerelease:
        return str(version.release)
    return f"{version.major}.{version.minor + 1}.0"
'''


def test_doctest_calls_and_call_sites_with_plain_literals_are_examples():
    tree = ast.parse(
        textwrap.dedent('''
        def area(w, h=1, *rest, scale=1.0):
            """
            >>> area(2, 3)
            6
            >>> area(2, scale=-0.5)
            -1.0
            >>> area([1], 2)
            """
            return w * h * scale

        TOTAL = area(4, 5, 6) + area(w=x)
        ''')
    )
    assert example_calls(tree, "area") == [
        ExampleCall("area", (2, 3), ()),
        ExampleCall("area", (2,), (("scale", -0.5),)),
        ExampleCall("area", (4, 5, 6), ()),  # the module's own call site
    ]
    assert set(example_literals(tree)) >= {2, 3, -0.5, 6, -1.0}  # inputs and outputs


def test_examples_become_tests_that_fit_the_signature(tmp_path):
    path = tmp_path / "versions.py"
    path.write_text(VERSIONS)
    model = analyze_file(path, "versions")
    [first, second] = example_tests(TestFactory(model, model.unit("next_minor")))
    assert first == (
        Statement("value", value="1.2.3"),
        Statement("call", "next_minor", (("text", 0),)),
    )
    assert second[0] == Statement("value", value="2.0rc1")
    assert "1.2.3" in model.constants.strings and "2.0rc1" in model.constants.strings


def test_a_version_string_unit_is_covered_from_its_doctests(tmp_path):
    path = tmp_path / "versions.py"
    path.write_text(VERSIONS)
    spec = JobSpec(
        path=str(path), module_name="versions", import_root=str(tmp_path),
        units=(UnitJob("next_minor"),), evaluations=60, seed=3, mutation_share=0.0,
    )  # fmt: skip
    outcome = run_job(spec)
    result = outcome.units[0].result
    assert result is not None, outcome.message
    assert len(result.covered) == result.total == 2


def test_call_sites_in_the_projects_tests_are_examples_too(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    path = tmp_path / "versions.py"
    path.write_text(VERSIONS.replace("    >>>", "    >>> #"))  # no doctest calls here
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_versions.py").write_text(
        "import versions\nfrom versions import next_minor\n\n\n"
        "def test_it():\n    assert versions.next_minor('3.4') == '3.5.0'\n"
        "    assert next_minor(text='5.0b1')\n    assert next_minor(make())\n"
    )
    model = analyze_file(path, "versions")
    factory = TestFactory(model, model.unit("next_minor"))
    assert example_tests(factory) == []
    found = example_tests(factory, str(tmp_path))
    assert sorted(test[0].value for test in found) == ["3.4", "5.0b1"]


def test_extra_positional_arguments_and_keys_the_body_reads_fit_star_parameters(tmp_path):
    path = tmp_path / "joins.py"
    path.write_text(
        textwrap.dedent('''
        def join(sep: str, *parts: str, **options) -> str:
            """
            >>> join("-", "a", "b", upper=True)
            'A-B'
            >>> join("-", "a", colour="red")
            """
            text = sep.join(parts)
            if options.get("upper"):
                return text.upper()
            return text
        ''')
    )
    model = analyze_file(path, "joins")
    [test] = example_tests(TestFactory(model, model.unit("join")))  # no key "colour" is read
    assert test[-1] == Statement(
        "call", "join", (("/sep", 0), ("*parts", 1), ("*parts", 2), ("upper", 3))
    )
    assert [s.value for s in test[:-1]] == ["-", "a", "b", True]


def test_the_units_of_a_module_share_one_walk_of_it(tmp_path):
    """Each unit's examples come from one walk of the module (per worker), not a walk per unit:
    urllib.parse's 40 units each walking it left the search of a 1 s budget no time at all."""
    from miogen.analysis import examples

    path = tmp_path / "many.py"
    path.write_text(
        "".join(f"def f{i}(x: int) -> int:\n    return x\n\n\nf{i}({i})\n" for i in range(30))
    )
    model = analyze_file(path, "many")
    examples.module_calls.cache_clear()
    for unit in model.units:
        [test] = example_tests(TestFactory(model, unit))
        assert test[0] == Statement("value", value=int(unit.name[1:]))
    assert examples.module_calls.cache_info().misses == 1


# A project's tests call its entry point, a function that hands its arguments on to a method of
# the class that does the work (dateutil's ``parse(timestr, **kwargs)`` and ``parser.parse``):
# their inputs are the class unit's examples too.
READER = """
class Reader:
    def __init__(self, strict: bool = False) -> None:
        self.strict = strict

    def read(self, text: str, *, upper: bool = False) -> str:
        head, _, tail = text.partition("@")
        if tail.count(".") == 2 and len(head) > 6:
            if upper:
                return "both"
            return "address"
        return "plain"


DEFAULT = Reader()


def read(text: str, **options) -> str:
    return DEFAULT.read(text, **options)


def read_strictly(text: str, flags: int = 0) -> str:
    return Reader(strict=True).read(text)


def read_as(text: str, strict: bool) -> str:
    reader = Reader(strict)
    return reader.read(text)
"""
READER_TESTS = """from reader import Reader, read, read_as, read_strictly


def test_read():
    assert read("someone@mail.example.org", upper=True) == "both"
    assert read_strictly("n@a.b", 3) == "plain"
    assert read("postmaster@host.example.net") == "address"
    assert read_as("a@b.c.d", True) == "plain"
    assert Reader().read(text="x@y") == "plain"
"""


def _reader_project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    path = tmp_path / "reader.py"
    path.write_text(READER)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_reader.py").write_text(READER_TESTS)
    return path


def test_calls_a_function_hands_on_to_a_method_are_the_class_units_examples(tmp_path):
    path = _reader_project(tmp_path)
    model = analyze_file(path, "reader")
    found = example_tests(TestFactory(model, model.unit("Reader")), str(tmp_path))
    built = Statement("construct", "Reader")
    assert (
        built,
        Statement("value", value="someone@mail.example.org"),
        Statement("value", value=True),
        Statement("method", "read", (("text", 1), ("upper", 2)), receiver=0),
    ) in found  # the **options key where the function passes them on
    assert (  # the parameter it does not pass on (flags) is left out
        built,
        Statement("value", value="n@a.b"),
        Statement("method", "read", (("text", 1),), receiver=0),
    ) in found
    assert (  # on an instance built as the function builds it
        Statement("value", value=True),
        Statement("construct", "Reader", (("strict", 0),)),
        Statement("value", value="a@b.c.d"),
        Statement("method", "read", (("text", 2),), receiver=1),
    ) in found
    assert (  # and the method's own calls in the tests
        built,
        Statement("value", value="x@y"),
        Statement("method", "read", (("text", 1),), receiver=0),
    ) in found


def test_a_class_unit_is_covered_from_the_calls_of_its_entry_point(tmp_path):
    path = _reader_project(tmp_path)
    spec = JobSpec(
        path=str(path), module_name="reader", import_root=str(tmp_path), cwd=str(tmp_path),
        units=(UnitJob("Reader"),), evaluations=1, seed=3, mutation_share=0.0,
    )  # fmt: skip
    outcome = run_job(spec)
    result = outcome.units[0].result
    assert result is not None, outcome.message
    assert len(result.covered) == result.total


def test_a_suites_many_examples_all_seed_the_search(tmp_path):
    """dateutil's tests call ``parse`` with some 200 strings (a 60-row table among them): the
    first 32 were all dates of one table, none of its fuzzy or time-zone inputs."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    path = tmp_path / "versions.py"
    path.write_text(VERSIONS)
    (tmp_path / "tests").mkdir()
    rows = ", ".join(f"'{i}.{i + 1}'" for i in range(100))
    (tmp_path / "tests" / "test_versions.py").write_text(
        "import pytest\nfrom versions import next_minor\n\n\n"
        f"@pytest.mark.parametrize('text', [{rows}])\n"
        "def test_it(text):\n    assert next_minor(text)\n"
    )
    model = analyze_file(path, "versions")
    found = example_tests(TestFactory(model, model.unit("next_minor")), str(tmp_path))
    assert len(found) == 100 + 2  # and the two doctest examples
