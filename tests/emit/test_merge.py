"""Tests for merging generated tests into existing test files without losing a byte."""

from __future__ import annotations

import ast
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from miogen.emit import writer
from miogen.emit.files import HEADER, is_generated, is_own, own_path, replace_if_unchanged
from miogen.emit.merge import (
    LINE_BREAK,
    GeneratedTest,
    MergeResult,
    TextEdit,
    UnmergeableFile,
    apply_edits,
    fallback_path,
    merge_tests,
)
from miogen.emit.style import Style, project_style
from miogen.emit.tools import project_tools

BOM = "\ufeff"


def gen(source: str) -> GeneratedTest:
    """A generated test from its source; the name is read off the ``def`` line."""
    name = next(n.name for n in ast.parse(source).body)
    return GeneratedTest(name, source)


AREA = gen("def test_area():\n    assert Triangle(3, 4, 5).area() == 6\n")
PERIMETER = gen("def test_perimeter():\n    assert Triangle(3, 4, 5).perimeter() == 12\n")
PARAM = gen(
    '@pytest.mark.parametrize("n", [1, 2])\ndef test_scaled(n):\n    assert Triangle(n, n, n).scaled(2)\n'
)
ASYNC = gen("async def test_async_area():\n    assert await area_async(1) == 1\n")
UNICODE = gen('def test_unicode_name():\n    assert Triangle.label("ünï ✓") == "ünï ✓"\n')
DOCSTRING = gen(
    'def test_docstring():\n    """Blank lines inside:\n\n    kept."""\n    assert True\n'
)
POOL = [AREA, PERIMETER, PARAM, ASYNC, UNICODE, DOCSTRING]
IMPORTS = [
    "import pytest",
    "from shapes import Triangle",
    "from shapes import Triangle, area",
    "from shapes import area_async as area_async",
    "import os.path",
    "from collections import OrderedDict as OD",
    "import numpy as np",
    "from __future__ import annotations",
]


def lines_of(text: str) -> list[str]:
    """Lines with their line breaks, split as Python and LSP split them."""
    pieces, start = [], 0
    for match in LINE_BREAK.finditer(text):
        pieces.append(text[start : match.end()])
        start = match.end()
    return pieces + ([text[start:]] if start < len(text) else [])


def keeps_every_line(original: str, merged: str) -> bool:
    """Every original line is a line of ``merged``, in order, byte for byte.

    A last line without a line break may gain one. A BOM stays first and is not part of a line.
    """
    if original.startswith(BOM) != merged.startswith(BOM):
        return False
    old, new = lines_of(original.removeprefix(BOM)), iter(lines_of(merged.removeprefix(BOM)))
    for index, line in enumerate(old):
        last_open = index == len(old) - 1 and not LINE_BREAK.search(line[-1:])
        if not any(n == line or (last_open and LINE_BREAK.sub("", n) == line) for n in new):
            return False
    return True


def at_line_boundary(text: str, edit: TextEdit) -> bool:
    """An insertion that splits no line: at a line start, at the very end, or just after a BOM."""
    lines = LINE_BREAK.split(text)
    at_end = edit.start_line == len(lines) - 1 and edit.start_character == len(lines[-1])
    after_bom = (edit.start_line, edit.start_character) == (0, 1) and text.startswith(BOM)
    return edit.start_character == 0 or at_end or after_bom


def top_level_functions(text: str) -> dict[str, ast.AST]:
    tree = ast.parse(text.removeprefix(BOM))
    kinds = ast.FunctionDef | ast.AsyncFunctionDef
    return {node.name: node for node in tree.body if isinstance(node, kinds)}


def check_merge(existing: str, imports: list[str], tests: list[GeneratedTest]) -> MergeResult:
    """Merge and assert the invariants that hold for every mergeable file."""
    result = merge_tests(existing, imports, tests)
    assert keeps_every_line(existing, result.text)
    assert all(
        e.start_line == e.end_line and e.start_character == e.end_character for e in result.edits
    )
    assert all(at_line_boundary(existing, e) for e in result.edits)
    assert apply_edits(existing, result.edits) == result.text
    functions = top_level_functions(result.text)
    assert set(result.added) <= set(functions)
    names = [result.renamed.get(t.name, t.name) for t in tests]
    assert all(
        n in result.added or t.name in result.skipped for n, t in zip(names, tests, strict=True)
    )
    again = merge_tests(result.text, imports, tests)
    assert (again.text, again.added, again.edits) == (result.text, [], [])
    return result


# --- realistic existing files, built from pieces -------------------------------------------

PIECES = [
    "# a comment with ünïcødé ✓ and 'quotes'",
    "",
    "import os",
    "import os.path as osp",
    "from shapes import Triangle",
    "from shapes import (\n    Triangle,\n    Square,  # a square\n)",
    "from collections import OrderedDict as OD",
    "import sys; FLAG = 1",
    "try:\n    import numpy as np\nexcept ImportError:\n    np = None",
    "TOTAL = 1 + \\\n    2",
    'TEXT = """\n# not a comment\nimport fake\n\ndef test_fake():\n"""',
    "@pytest.fixture\ndef shape():\n    return Triangle(3, 4, 5)",
    "def test_area():\n    assert True",
    "def test_tabs():\n\tassert 'tab'\n\t# indented comment",
    "class TestShapes:\n    def test_area(self):\n        assert 1\n\n    # trailing comment",
    "@decorator(\n    argument=1,\n)\nclass Triangle:\n    pass",
    "async def helper():\n    return 1",
    "NAME = 'ünïcødé ✓ \U0001f600'",
    "def area(x):\n    return x",
    "def test_perimeter():\n    assert Triangle(3, 4, 5).perimeter() == 12",
    "\f",
]
MAIN = 'if __name__ == "__main__":\n    # run directly\n    pytest.main([__file__])'
HEADERS = ["#!/usr/bin/env python", "# -*- coding: utf-8 -*-", '"""Tests for shapes."""']


ONE_LINE = st.text(st.characters(exclude_characters="\r\n", exclude_categories=["Cs"]), max_size=20)
PIECE = st.one_of(
    st.sampled_from(PIECES),
    ONE_LINE.map(lambda text: f"# {text}"),
    ONE_LINE.map(lambda text: f"VALUE = {text!r}"),
)


@st.composite
def line_breaks(draw: st.DrawFn, count: int) -> list[str]:
    """One break for every line, or (mixed files) a break drawn for each line."""
    breaks = st.sampled_from(["\n", "\r\n", "\r"])
    usual = draw(breaks)
    if draw(st.booleans()):
        return [usual] * count
    return [draw(breaks) if draw(st.booleans()) else usual for _ in range(count)]


@st.composite
def modules(draw: st.DrawFn) -> str:
    """A realistic, parseable test module with varied line breaks, BOM and final newline."""
    parts = [h for h in HEADERS if draw(st.booleans())]
    if draw(st.booleans()):
        parts.append("from __future__ import annotations")
    parts += draw(st.lists(PIECE, max_size=12))
    if draw(st.booleans()):
        parts += [*draw(st.lists(st.sampled_from(["", "# before main"]), max_size=2)), MAIN]
    parts += draw(st.lists(st.sampled_from(["", "# the end", " \t "]), max_size=3))
    lines = "\n".join(parts).split("\n")
    breaks = draw(line_breaks(len(lines)))
    text = "".join(line + end for line, end in zip(lines, breaks, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    if draw(st.booleans()):
        text = BOM + text
    assume(text.strip(BOM) and parses(text))
    return text


def parses(text: str) -> bool:
    try:
        ast.parse(text.removeprefix(BOM))
    except (SyntaxError, ValueError):
        return False
    return True


test_lists = st.lists(st.sampled_from(POOL), max_size=4, unique=True)
import_lists = st.lists(st.sampled_from(IMPORTS), max_size=5)


@settings(max_examples=300, deadline=None)
@given(modules(), import_lists, test_lists)
def test_merge_keeps_every_line_parses_and_is_idempotent(
    existing: str, imports: list[str], tests: list[GeneratedTest]
) -> None:
    check_merge(existing, imports, tests)


@settings(max_examples=100, deadline=None)
@given(modules(), import_lists, test_lists)
def test_merged_tests_keep_their_bodies(
    existing: str, imports: list[str], tests: list[GeneratedTest]
) -> None:
    result = merge_tests(existing, imports, tests)
    functions = top_level_functions(result.text)
    for test in tests:
        if test.name in result.skipped:
            continue
        merged = functions[result.renamed.get(test.name, test.name)]
        original = ast.parse(test.source).body[0]
        merged.name = original.name  # type: ignore[attr-defined]
        assert ast.dump(merged) == ast.dump(original)


@settings(max_examples=100, deadline=None)
@given(modules(), test_lists)
def test_merging_into_the_merged_file_merges_nothing_new(
    existing: str, tests: list[GeneratedTest]
) -> None:
    first = merge_tests(existing, ["import pytest"], tests)
    second = merge_tests(first.text, ["import pytest"], [*tests, *tests])
    assert second.text == first.text
    assert second.skipped == [t.name for t in [*tests, *tests]]


@st.composite
def broken_sources(draw: st.DrawFn) -> str:
    """Text that does not parse: random text, or a realistic module with a syntax error."""
    text = draw(
        st.one_of(
            st.text(max_size=80),
            st.builds(
                lambda m, bad: m + bad,
                modules(),
                st.sampled_from(["\ndef (:\n", "\n  x = (", "\n\tclass"]),
            ),
        )
    )
    assume(text and not parses(text))
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken_sources())
def test_unparseable_text_is_refused(text: str) -> None:
    with pytest.raises(UnmergeableFile):
        merge_tests(text, ["import pytest"], [AREA])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken_sources())
def test_write_merged_leaves_an_unmergeable_file_byte_identical(text: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "test_shapes.py"
        data = text.encode("utf-8", "surrogatepass")
        path.write_bytes(data)
        written, result = write_merged(
            path, ["import pytest"], [AREA], project_style(path), own_only=False
        )
        assert written == Path(directory) / "test_shapes_miogen.py"
        assert path.read_bytes() == data
        assert written.read_text() == result.text
        assert "test_area" in top_level_functions(result.text)


@settings(max_examples=60, deadline=None)
@given(modules(), import_lists, test_lists)
def test_write_merged_writes_what_merge_tests_returns(
    existing: str, imports: list[str], tests: list[GeneratedTest]
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "test_shapes.py"
        path.write_bytes(existing.encode("utf-8"))
        written, result = write_merged(path, imports, tests, project_style(path), own_only=False)
        bom = BOM if existing.startswith(BOM) else ""  # kept aside while merging
        assert written == path
        assert path.read_bytes() == (bom + result.text).encode("utf-8")
        assert result == merge_tests(existing.removeprefix(BOM), imports, tests)


# --- examples ------------------------------------------------------------------------------

USER_FILE = '''\
"""Tests the user wrote by hand."""
import os
from shapes import (
    Triangle,  # the one under test
)

# Shared fixture.
@pytest.fixture
def shape():
    return Triangle(3, 4, 5)


class TestTriangle:
    def test_area(self, shape):
        assert shape.area() == 6


def test_area():
    assert Triangle(3, 4, 5).area() == 6.0

# Run this file directly.
if __name__ == "__main__":
    pytest.main([__file__])
'''


def test_example_user_file_with_fixture_class_and_main_block() -> None:
    result = check_merge(
        USER_FILE, ["import pytest", "from shapes import Triangle, area"], [AREA, PERIMETER]
    )
    assert (
        result.text
        == '''\
"""Tests the user wrote by hand."""
import os
import pytest
from shapes import (
    Triangle,  # the one under test
)
from shapes import area

# Shared fixture.
@pytest.fixture
def shape():
    return Triangle(3, 4, 5)


class TestTriangle:
    def test_area(self, shape):
        assert shape.area() == 6


def test_area():
    assert Triangle(3, 4, 5).area() == 6.0


def test_area_2():
    assert Triangle(3, 4, 5).area() == 6


def test_perimeter():
    assert Triangle(3, 4, 5).perimeter() == 12


# Run this file directly.
if __name__ == "__main__":
    pytest.main([__file__])
'''
    )
    assert result.added == ["test_area_2", "test_perimeter"]
    assert result.renamed == {"test_area": "test_area_2"}


def test_example_crlf_without_final_newline() -> None:
    existing = "import pytest\r\n\r\ndef test_one():\r\n    assert 1"
    result = check_merge(existing, ["import pytest"], [PERIMETER])
    assert result.text == existing + "\r\n\r\n\r\n" + PERIMETER.source.replace("\n", "\r\n")
    assert result.edits == [
        TextEdit(3, 12, 3, 12, "\r\n\r\n\r\n" + PERIMETER.source.replace("\n", "\r\n"))
    ]


def test_example_identical_test_is_skipped_whatever_its_name() -> None:
    existing = "def test_mine():\n    assert Triangle(3, 4, 5).area() == 6\n"
    result = check_merge(existing, [], [AREA])
    assert (result.text, result.skipped, result.added) == (existing, ["test_area"], [])


def test_example_clashes_rename_only_the_def() -> None:
    recursive = gen("@mark\ndef test_x():\n    test_x.calls = 1\n")
    existing = "test_x = 1\n\n\ndef test_x_2():\n    pass\n"
    result = check_merge(existing, [], [recursive, gen("def test_x():\n    assert 2\n")])
    assert result.renamed == {"test_x": "test_x_4"}
    assert result.added == ["test_x_3", "test_x_4"]
    assert "@mark\ndef test_x_3():\n    test_x.calls = 1\n" in result.text


def test_example_new_tests_clash_with_each_other() -> None:
    result = merge_tests(
        None, [], [gen("def test_a():\n    assert 1\n"), gen("def test_a():\n    assert 2\n")]
    )
    assert result.added == ["test_a", "test_a_2"]
    assert result.text == "def test_a():\n    assert 1\n\n\ndef test_a_2():\n    assert 2\n"


@pytest.mark.parametrize(
    ("existing", "imports", "added"),
    [
        (
            "from shapes import Triangle\n",
            ["from shapes import Triangle, area"],
            "from shapes import area\n",
        ),
        (
            "from shapes import Triangle as T\n",
            ["from shapes import Triangle"],
            "from shapes import Triangle\n",
        ),
        ("from shapes import Triangle as Triangle\n", ["from shapes import Triangle"], ""),
        ("import os.path\n", ["import os"], ""),
        ("import os\n", ["import os.path"], "import os.path\n"),
        ("import numpy as np\n", ["import numpy as np", "import numpy"], "import numpy\n"),
        (
            "from shapes import (\n    Triangle,\n    area,\n)\n",
            ["from shapes import area, Triangle"],
            "",
        ),
        (
            "try:\n    import numpy as np\nexcept ImportError:\n    np = None\n",
            ["import numpy as np"],
            "",
        ),
        (
            "from shapes import *\n",
            ["from shapes import *", "from tools import x"],
            "from tools import x\n",
        ),
        (
            "from . import helpers\n",
            ["from . import helpers", "from .tools import helpers as h"],
            "from .tools import helpers as h\n",
        ),
        (
            "import pytest\n",
            ["from shapes import B, A, CONST, func"],
            "from shapes import CONST, A, B, func\n",
        ),
    ],
)
def test_import_merging(existing: str, imports: list[str], added: str) -> None:
    assert check_merge(existing, imports, []).text == existing + added


@pytest.mark.parametrize(
    ("existing", "imports", "conflicts"),
    [
        (
            "from other import Triangle\n",
            ["from shapes import Triangle"],
            ["from shapes import Triangle"],
        ),
        ("import numpy as np\n", ["from fake import np"], ["from fake import np"]),
        ("def area():\n    pass\n", ["from shapes import area"], ["from shapes import area"]),
        ("x = 1\n", ["from __future__ import annotations"], ["from __future__ import annotations"]),
    ],
)
def test_imports_that_would_rebind_a_name_are_left_out(
    existing: str, imports: list[str], conflicts: list[str]
) -> None:
    result = check_merge(existing, imports, [])
    assert (result.text, result.conflicts) == (existing, conflicts)


@pytest.mark.parametrize(
    ("existing", "merged"),
    [
        ('"""Doc."""\nx = 1\n', '"""Doc."""\n\nimport pytest\n\nx = 1\n'),
        ('"""Doc."""', '"""Doc."""\n\nimport pytest\n'),
        (
            "#!/usr/bin/env python\n# helper\ndef f():\n    pass\n",
            "#!/usr/bin/env python\n# helper\n\nimport pytest\n\n\ndef f():\n    pass\n",
        ),
        (
            "\n# -*- coding: latin-1 -*-\ndef f():\n    pass\n",
            "\n# -*- coding: latin-1 -*-\n\nimport pytest\n\n\ndef f():\n    pass\n",
        ),
        (
            "# header\n\n# helper\ndef f():\n    pass\n",
            "# header\n\nimport pytest\n\n\n# helper\ndef f():\n    pass\n",
        ),
        (
            "from __future__ import annotations\nx = 1\n",
            "from __future__ import annotations\n\nimport pytest\n\nx = 1\n",
        ),
        ("import os; \\\nx = 1\n", "import os; \\\nx = 1\n\nimport pytest\n"),
        ("# only a comment", "# only a comment\n\nimport pytest\n"),
    ],
)
def test_import_placement(existing: str, merged: str) -> None:
    assert check_merge(existing, ["import pytest"], []).text == merged


def test_bom_stays_first() -> None:
    existing = BOM + "def f():\n    pass\n"
    result = check_merge(existing, ["import pytest"], [AREA])
    assert result.text.startswith(BOM + "import pytest\n\n\ndef f():\n")
    assert result.edits[0].start_character == 1


def test_main_block_is_the_only_statement() -> None:
    existing = 'if __name__ == "__main__":\n    main()\n'
    result = check_merge(existing, ["import pytest"], [AREA])
    assert result.text == f"import pytest\n\n\n{AREA.source}\n\n{existing}"


def test_apply_edits_orders_inserts_at_one_position_and_rejects_overlaps() -> None:
    edits = [TextEdit(0, 1, 0, 1, "b"), TextEdit(0, 1, 0, 1, "c"), TextEdit(1, 0, 1, 1, "Y")]
    assert apply_edits("a\r\nx", edits) == "abc\r\nY"
    with pytest.raises(ValueError):
        apply_edits("abc", [TextEdit(0, 0, 0, 2, ""), TextEdit(0, 1, 0, 1, "x")])
    with pytest.raises(ValueError):
        apply_edits("abc", [TextEdit(0, 4, 0, 4, "x")])


def test_generated_test_must_be_one_function_with_its_name() -> None:
    with pytest.raises(ValueError):
        merge_tests(None, [], [GeneratedTest("test_a", "def test_b():\n    pass\n")])
    with pytest.raises(ValueError):
        merge_tests(None, ["x = 1"], [])


# --- a new module --------------------------------------------------------------------------


def write_merged(
    path: Path, imports: list[str], tests: list[GeneratedTest], style: Style, **options: Any
) -> tuple[Path, MergeResult]:
    """``writer.write_merged`` with the project's tools, looked up as its caller does."""
    return writer.write_merged(path, imports, tests, style, project_tools(style), **options)


def ruff() -> str:
    found = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(found).exists():
        pytest.skip("ruff is not installed")
    return found


def assert_ruff_format_keeps(text: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "test_new.py"
        path.write_text(text)
        check = subprocess.run(
            [ruff(), "format", "--isolated", "--check", "--diff", str(path)],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout + check.stderr


LONG_IMPORT = "from shapes import " + ", ".join(f"Shape{i}" for i in range(12))


def test_new_module_layout() -> None:
    result = merge_tests(None, [*IMPORTS, LONG_IMPORT], [AREA, PARAM], header="Tests for shapes.")
    assert result.text.startswith(
        '"""Tests for shapes."""\n\nfrom __future__ import annotations\n\nimport os.path\n'
    )
    assert "import pytest\nfrom collections import OrderedDict as OD\n" not in result.text
    assert "\nfrom shapes import (\n    Shape0,\n" in result.text
    assert result.edits == [TextEdit(0, 0, 0, 0, result.text)]
    assert_ruff_format_keeps(result.text)
    assert check_merge(result.text, IMPORTS, [AREA, PARAM]).text == result.text


@settings(max_examples=25, deadline=None)
@given(
    st.one_of(st.none(), st.just("")),
    st.lists(st.sampled_from([*IMPORTS, LONG_IMPORT, "from .helpers import make"]), max_size=6),
    test_lists,
    st.sampled_from(["", "Tests for shapes.", "# Generated by miogen.", '"""Docstring header."""']),
)
def test_new_module_is_stable_under_ruff_format(
    existing: str | None, imports: list[str], tests: list[GeneratedTest], header: str
) -> None:
    result = merge_tests(existing, imports, tests, header)
    assert_ruff_format_keeps(result.text)
    assert parses(result.text)


# --- files ---------------------------------------------------------------------------------


def test_write_merged_creates_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "tests" / "test_shapes.py"
    written, result = write_merged(
        path, ["import pytest"], [AREA], project_style(path), header="Tests for shapes."
    )
    assert written == path
    assert (
        path.read_text()
        == result.text
        == merge_tests(None, ["import pytest"], [AREA], "Tests for shapes.").text
    )
    assert [p.name for p in path.parent.iterdir()] == ["test_shapes.py"]


def test_write_merged_keeps_mode_and_does_not_touch_an_unchanged_file(tmp_path: Path) -> None:
    path = tmp_path / "test_shapes.py"
    path.write_bytes(USER_FILE.encode())
    path.chmod(0o640)
    write_merged(path, [], [PERIMETER], project_style(path), own_only=False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    _, again = write_merged(path, [], [PERIMETER], project_style(path), own_only=False)
    assert again.added == [] and path.stat().st_mtime_ns == before - 10**9


def test_write_merged_keeps_latin1_bytes_and_bom(tmp_path: Path) -> None:
    latin = tmp_path / "test_latin.py"
    original = "# -*- coding: latin-1 -*-\nNAME = 'café'\n".encode("latin-1")
    latin.write_bytes(original)
    write_merged(latin, [], [AREA], project_style(latin), own_only=False)
    assert latin.read_bytes().startswith(original)
    bom = tmp_path / "test_bom.py"
    bom.write_bytes(b"\xef\xbb\xbfx = 1\r\n")
    write_merged(bom, [], [AREA], project_style(bom), own_only=False)
    assert (
        bom.read_bytes()
        == b"\xef\xbb\xbfx = 1\r\n\r\n\r\n" + AREA.source.replace("\n", "\r\n").encode()
    )


def test_replace_refuses_a_file_changed_since_it_was_read(tmp_path: Path) -> None:
    path = tmp_path / "test_shapes.py"
    path.write_bytes(b"x = 1\n")
    assert not replace_if_unchanged(path, b"merged\n", expected=b"x = 0\n")
    assert path.read_bytes() == b"x = 1\n" and [p.name for p in tmp_path.iterdir()] == [path.name]
    assert replace_if_unchanged(path, b"merged\n", expected=b"x = 1\n")
    assert path.read_bytes() == b"merged\n" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_write_merged_falls_back_when_the_tests_cannot_be_encoded(tmp_path: Path) -> None:
    path = tmp_path / "test_latin.py"
    original = "# -*- coding: latin-1 -*-\nNAME = 'café'\n".encode("latin-1")
    path.write_bytes(original)
    written, result = write_merged(path, [], [UNICODE], project_style(path), own_only=False)
    assert written == tmp_path / "test_latin_miogen.py" and path.read_bytes() == original
    assert result.added == ["test_unicode_name"]


def test_write_merged_writes_through_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text("x = 1\n")
    link = tmp_path / "test_link.py"
    link.symlink_to(target)
    write_merged(link, [], [AREA], project_style(link), own_only=False)
    assert link.is_symlink() and target.read_text().startswith("x = 1\n\n\ndef test_area")


def test_fallback_path_skips_unmergeable_candidates(tmp_path: Path) -> None:
    path = tmp_path / "test_shapes.py"
    assert fallback_path(path) == tmp_path / "test_shapes_miogen.py"
    (tmp_path / "test_shapes_miogen.py").write_text(f"{HEADER}\ndef (:\n")
    assert fallback_path(path) == tmp_path / "test_shapes_miogen_2.py"
    (tmp_path / "test_shapes_miogen_2.py").write_text(f"{HEADER}\nx = 1\n")
    assert fallback_path(path) == tmp_path / "test_shapes_miogen_2.py"
    path.write_text("def broken(:\n")
    written, _ = write_merged(path, [], [AREA], project_style(path))
    assert written == tmp_path / "test_shapes_miogen_2.py"
    assert (tmp_path / "test_shapes_miogen.py").read_text() == f"{HEADER}\ndef (:\n"
    assert written.read_text().startswith(f"{HEADER}\nx = 1\n\n\ndef test_area")


# --- files of miogen's own (invariant 3) ----------------------------------------------------


@pytest.mark.parametrize(
    "human",
    [
        "def test_mine():\n    assert True\n",
        "import unittest\n\n\nclass TestMine(unittest.TestCase):\n    def test_x(self):\n"
        "        self.assertTrue(True)\n",
        "# Tests of mine, not generated by miogen\n",
    ],
)
def test_write_merged_never_touches_a_file_without_the_marker(tmp_path: Path, human: str) -> None:
    path = tmp_path / "test_shapes_miogen.py"
    path.write_text(human)
    written, result = write_merged(
        path, ["import pytest"], [AREA], project_style(path), header=HEADER
    )
    assert path.read_text() == human
    assert written == tmp_path / "test_shapes_miogen_2.py" and result.added == ["test_area"]
    assert written.read_text().startswith(HEADER)
    again, _ = write_merged(
        path, ["import pytest"], [PERIMETER], project_style(path), header=HEADER
    )
    assert again == written and path.read_text() == human
    assert "def test_perimeter" in written.read_text()


def test_a_new_file_starts_with_the_marker_and_is_then_updated(tmp_path: Path) -> None:
    path = tmp_path / "test_shapes_miogen.py"
    written, _ = write_merged(path, ["import pytest"], [AREA], project_style(path), header=HEADER)
    assert written == path and is_generated(path.read_text())
    assert path.read_text().splitlines()[0] == HEADER
    again, result = write_merged(path, [], [PERIMETER], project_style(path), header=HEADER)
    assert again == path and result.added == ["test_perimeter"]


def test_only_blank_absent_or_marked_files_are_miogens() -> None:
    assert is_own(None) and is_own(b"") and is_own(b"\xef\xbb\xbf\n")
    assert is_own(f"{HEADER}\n".encode()) and is_own(b'"""Tests generated by miogen. Edit"""\n')
    assert not is_own(b"x = 1\n") and not is_own(b"\n# Generated by hand\n")
    assert not is_own(f"import os\n{HEADER}\n".encode())


def test_own_path_skips_files_of_others(tmp_path: Path) -> None:
    path = tmp_path / "test_shapes_miogen.py"
    assert own_path(path) == path
    path.write_text("def test_mine(): pass\n")
    assert own_path(path) == tmp_path / "test_shapes_miogen_2.py"
    (tmp_path / "test_shapes_miogen_2.py").write_text("x = 1\n")
    (tmp_path / "test_shapes_miogen_3.py").write_text(f"{HEADER}\n")
    assert own_path(path) == tmp_path / "test_shapes_miogen_3.py"
    assert own_path(path, lambda p: None) == path  # as an editor sees the files


def test_merge_into_reads_and_merges_again_when_the_file_changes_meanwhile(
    tmp_path: Path,
) -> None:
    """The read, merge and write retry lives in the file layer: a file that someone changes
    between the read and the write is read and merged again; one that keeps changing is left
    to the caller's next candidate."""
    from miogen.emit import files

    path = tmp_path / "test_shapes_miogen.py"
    path.write_text(f"{HEADER}\n", "utf-8")
    seen: list[str | None] = []

    def merge(existing: str | None) -> MergeResult:
        seen.append(existing)
        if len(seen) == 1:  # someone writes the file after it was read
            path.write_text(f"{HEADER}\nX = 1\n", "utf-8")
        return merge_tests(existing, ["import pytest"], [AREA], HEADER)

    result = files.merge_into(path, merge)
    assert seen == [f"{HEADER}\n", f"{HEADER}\nX = 1\n"]
    assert path.read_text("utf-8") == result.text and "X = 1" in result.text

    other = tmp_path / "test_other_miogen.py"

    def changing(existing: str | None) -> MergeResult:
        other.write_text(f"{HEADER}\nX = {len(existing or '')}\n", "utf-8")
        return merge_tests(existing, [], [AREA], HEADER)

    with pytest.raises(UnmergeableFile, match="kept changing"):
        files.merge_into(other, changing)
