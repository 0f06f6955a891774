"""Same-shaped tests become one parametrized test; a failing case maps back to its own test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from emit.test_merge import assert_ruff_format_keeps, ruff
from miogen.emit.merge import GeneratedTest, merge_tests
from miogen.emit.parametrize import original_names, parametrize
from miogen.host.measure import read_junit

CLASSIFY = """
def classify(a, b, c):
    if a <= 0 or b <= 0 or c <= 0:
        return 0
    return 3 if a == b == c else 2 if a == b or b == c or a == c else 1
"""


def case_test(name: str, body: str) -> GeneratedTest:
    return GeneratedTest(name, f"def {name}():\n    {body}\n")


TRIANGLE = [
    case_test("test_classify_returns_3", "assert classify(a=1, b=1, c=1) == 3"),
    case_test("test_classify_returns_2", "assert classify(a=2, b=2, c=3) == 2"),
    case_test("test_classify_returns_0", "assert classify(a=-1, b=2, c=3) == 0"),
    case_test("test_classify_returns_1", "assert classify(a=3, b=4, c=5) == 1"),
]


def test_same_shaped_tests_become_one_table() -> None:
    other = case_test("test_other", "assert classify(a=1, b=1, c=1) is not None")
    result = parametrize([other, *TRIANGLE])
    assert [t.name for t in result] == ["test_other", "test_classify"]
    assert result[1].source == (
        "@pytest.mark.parametrize(\n"
        '    ("a", "b", "c", "expected"),\n'
        "    [\n"
        "        (1, 1, 1, 3),\n"
        "        (2, 2, 3, 2),\n"
        "        (-1, 2, 3, 0),\n"
        "        (3, 4, 5, 1),\n"
        "    ],\n"
        ")\n"
        "def test_classify(a, b, c, expected):\n"
        "    assert classify(a=a, b=b, c=c) == expected\n"
    )
    assert result[1].cases == (
        ("1-1-1-3", "test_classify_returns_3"),
        ("2-2-3-2", "test_classify_returns_2"),
        ("-1-2-3-0", "test_classify_returns_0"),
        ("3-4-5-1", "test_classify_returns_1"),
    )


def test_shared_literals_stay_in_the_body_and_one_parameter_is_a_plain_list() -> None:
    tests = [
        case_test(
            f"test_scale_returns_{n}", f'assert scale(size=2, unit="cm", factor={n}) == {2 * n}'
        )
        for n in (1, 3, 5)
    ]
    [table] = parametrize(tests)
    assert '("factor", "expected")' in table.source and "(1, 2)," in table.source
    assert 'assert scale(size=2, unit="cm", factor=factor) == expected' in table.source
    single = [case_test(f"test_twice_{n}", f"assert twice(x=1) == twice(x={n})") for n in (2, 3, 4)]
    [table] = parametrize(single)
    assert table.source.startswith('@pytest.mark.parametrize(\n    "x",\n    [\n        2,\n')


@pytest.mark.parametrize(
    "tests",
    [
        TRIANGLE[:2],  # too few to read better as a table
        [
            case_test("test_a", "assert f(x=1) == 1"),
            case_test("test_b", "assert f(x=2) == 2"),
            case_test("test_c", "assert g(x=3) == 3"),  # another function
        ],
        [case_test(f"test_{n}", f"assert f(x=[{n}]) == {n}") for n in (1, 2, 3)],  # a list
        [
            GeneratedTest(
                f"test_{n}",
                f"def test_{n}():\n    x = f(a={n})\n    x.g()\n    x.h()\n    assert x.k == {n}\n",
            )
            for n in (1, 2, 3)
        ],  # too long a body
    ],
)
def test_tests_that_would_not_read_better_stay_as_they_are(tests: list[GeneratedTest]) -> None:
    assert parametrize(tests) == tests


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=folder, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def write_table(folder: Path, tests: list[GeneratedTest], imports: list[str]) -> Path:
    generated = parametrize(tests)
    text = merge_tests(None, ["import pytest", *imports], generated).text
    path = folder / "test_table.py"
    path.write_text(text)
    return path


def test_a_failing_case_is_its_own_test_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "triangle.py").write_text(CLASSIFY)
    wrong = case_test("test_classify_returns_1_2", "assert classify(a=2, b=3, c=4) == 2")
    tests = [*TRIANGLE, wrong]
    generated = parametrize(tests)
    write_table(tmp_path, tests, ["from triangle import classify"])
    run_pytest(tmp_path, "--junit-xml=junit.xml", "test_table.py")
    result = read_junit(str(tmp_path / "junit.xml"))
    assert result.passed == 4 and len(result.failures) == 1
    assert original_names(result.failures, generated) == {"test_classify_returns_1_2"}


IDS = [
    ("-1.5", "None", "True", '"two words"'),
    ("0", "False", "2.0", '"x"'),
    ("7", "None", "1e-05", '"a-b"'),
    ("8", "None", "0.5", '" m\\ni\\t"'),
]
GIVEN = [
    ('"ünïcode"', "None", "True", "b'raw'"),
    ('"a very long string that pytest would show whole"', "1", "True", "(1, 2)"),
    ('""', "2", "False", "(3,)"),
]


@pytest.mark.parametrize("rows", [IDS, GIVEN])
def test_ids_are_what_pytest_reports(tmp_path: Path, rows: list[tuple[str, ...]]) -> None:
    tests = [
        case_test(f"test_keep_returns_{n}", f"assert keep(a={a}, b={b}, c={c}, d={d}) is not False")
        for n, (a, b, c, d) in enumerate(rows)
    ]
    (tmp_path / "keeper.py").write_text("def keep(a, b, c, d):\n    return a, b, c, d\n")
    generated = parametrize(tests)
    [table] = generated
    assert ("ids=[" in table.source) == (rows is GIVEN)
    write_table(tmp_path, tests, ["from keeper import keep"])
    collected = run_pytest(tmp_path, "--collect-only", "test_table.py").stdout
    node_ids = [line.split("::")[1] for line in collected.splitlines() if "::" in line]
    assert node_ids == [f"{table.name}[{case_id}]" for case_id, _ in table.cases]


def test_ids_pytest_would_not_make_well_are_made_from_the_values() -> None:
    [table] = parametrize(
        [
            case_test(f"test_keep_returns_{n}", f"assert keep(a={a}, b={b}) is not False")
            for n, (a, b) in enumerate(GIVEN_PAIRS)
        ]
    )
    assert [case_id for case_id, _ in table.cases] == [
        "n_code-True", "a_very_long_stri-tuple2", "empty-tuple1",
    ]  # fmt: skip


GIVEN_PAIRS = [
    ('"ünïcode"', "True"),
    ('"a very long string that pytest would show whole"', "(1, 2)"),
    ('""', "(3,)"),
]


def test_an_id_that_a_plugin_changed_stands_for_its_whole_group() -> None:
    [table] = parametrize(TRIANGLE)
    names = original_names(["test_classify[renamed]", "test_elsewhere"], [table])
    assert names == {t.name for t in TRIANGLE} | {"test_elsewhere"}


def test_tables_are_lint_clean(tmp_path: Path) -> None:
    path = write_table(tmp_path, TRIANGLE, ["from triangle import classify"])
    assert_ruff_format_keeps(path.read_text())
    check = subprocess.run(
        [ruff(), "check", "--isolated", "--select", "E,F,I,PT,B,UP,SIM", str(path)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout


def test_a_name_shared_by_tests_of_two_units_stays_with_its_own_test() -> None:
    twin = case_test("test_classify_returns_3", "assert other(x=1) == 3")  # same name, other unit
    result = parametrize([*TRIANGLE, twin])
    assert [t.name for t in result] == ["test_classify", "test_classify_returns_3"]
    assert result[1] == twin


def test_two_tables_of_the_same_words_get_names_of_their_own() -> None:
    """Two groups of one unit both named ``test_f`` once made the written file's second table
    ``test_f_2`` (merge_tests) while coverage was mapped back by the names before: every case
    of the first table counted for the second's tests, and its own were dropped as adding
    nothing (urljoin: 27 branches covered, 10 kept)."""
    numbers = [case_test(f"test_f_returns_{n}", f"assert f({n}) == {n}") for n in (1, 2, 3)]
    flags = [
        case_test(f"test_f_returns_{v.lower()}", f"assert f(x={v}) is {v}")
        for v in ("True", "False", "None")
    ]
    single = case_test("test_f_2", "assert f() is not None")
    result = parametrize([*numbers, single, *flags])
    assert [t.name for t in result] == ["test_f", "test_f_2", "test_f_3"]
    assert "def test_f_3(x, expected):" in result[2].source
    case_id = result[0].cases[1][0]
    assert original_names([f"test_f[{case_id}]"], result) == {"test_f_returns_2"}
    case_id = result[2].cases[1][0]
    assert original_names([f"test_f_3[{case_id}]"], result) == {"test_f_returns_false"}
    merged = merge_tests(None, [], result)
    assert merged.renamed == {}
