"""Generated tests formatted as the project formats code; strings split to fit; never changed code."""

from __future__ import annotations

import ast
import os
import stat
import sys
from pathlib import Path

import pytest
from emit.test_merge import assert_ruff_format_keeps, ruff, write_merged
from miogen.emit.formatting import format_tests, split_long_strings, split_string
from miogen.emit.merge import GeneratedTest
from miogen.emit.style import Style, project_style
from miogen.emit.tools import Tools, project_tools

LONG = GeneratedTest(
    "test_wrap",
    "def test_wrap():\n"
    "    text_wrapper = TextWrapper(width=6, initial_indent='(?m)^', replace_whitespace=False, "
    "fix_sentence_endings=False, placeholder='Hello there. This is indented, and quite a long "
    "placeholder it is, longer than any line')\n"
    "    with pytest.raises(ValueError, match=r'placeholder too large \\(at least 40 characters "
    "of it\\) to fit in the width'):\n"
    "        text_wrapper.fill(text='-')\n",
)
SHORT = GeneratedTest("test_short", "def test_short():\n    assert f(x='a') == 1\n")


def styled(style: Style) -> tuple[Style, Tools]:
    """The style and the tools the owner of a write looks up once and hands the formatter."""
    return style, project_tools(style)


def lines_fit(text: str, width: int) -> bool:
    return all(len(line) <= width for line in text.splitlines())


@pytest.mark.parametrize("width", [60, 88, 120])
def test_without_a_configured_formatter_tests_are_as_ruff_format_leaves_them(width: int) -> None:
    [formatted, short] = format_tests([LONG, SHORT], *styled(Style(line_length=width)))
    assert ast.dump(ast.parse(formatted.source)) == ast.dump(ast.parse(LONG.source))
    assert lines_fit(formatted.source, width), formatted.source
    assert short.source == 'def test_short():\n    assert f(x="a") == 1\n'
    assert_ruff_format_keeps(
        formatted.source.replace("test_wrap", "test_wrap", 1)
    ) if width == 88 else None


def test_the_projects_ruff_configuration_is_used(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.ruff]\nline-length = 70\n[tool.ruff.format]\nquote-style = 'single'\n"
    )
    path = tmp_path / "tests" / "test_shapes.py"
    written, _ = write_merged(path, ["import pytest"], [LONG, SHORT], project_style(path))
    text = written.read_text()
    assert "assert f(x='a') == 1" in text and lines_fit(text, 70), text


def fake_black(folder: Path) -> None:
    """A ``black`` in the project's virtual environment that marks what it formatted."""
    script = folder / ".venv" / "bin" / "black"
    script.parent.mkdir(parents=True)
    script.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "assert sys.argv[1:3] == ['--quiet', '--stdin-filename'] and sys.argv[-1] == '-'\n"
        "sys.stdout.write(sys.stdin.read().replace('== 1\\n', '== 1  # black\\n'))\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_black_from_the_projects_environment_formats_when_configured(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    fake_black(tmp_path)
    style = project_style(tmp_path / "tests" / "test_x.py")
    [formatted] = format_tests([SHORT], *styled(style))
    assert formatted.source == "def test_short():\n    assert f(x='a') == 1  # black\n"


def test_a_formatter_that_fails_or_changes_the_code_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.black]\n")
    script = tmp_path / ".venv" / "bin" / "black"
    script.parent.mkdir(parents=True)
    for body in ("sys.exit(123)", "sys.stdout.write('def test_short():\\n    pass\\n')"):
        script.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
        script.chmod(0o755)
        assert format_tests([SHORT], *styled(project_style(tmp_path / "t.py"))) == [SHORT]


def test_without_any_ruff_the_tests_stay_as_rendered(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setitem(sys.modules, "ruff.__main__", None)
    assert format_tests([LONG], *styled(Style())) == [LONG]


RAW = "r'" + "a\\b " * 20 + "'"
WORDS = "one two three four five six seven eight nine ten eleven twelve " * 2


def test_long_strings_are_split_into_pieces_that_fit_and_mean_the_same() -> None:
    source = (
        "def test_x():\n"
        "    assert f(x='a' * 3) == 'word ' * 1 + 'é\\x41\\u00e9\\N{BULLET}\\\\' * 9\n"
        f"    g(text={WORDS!r})\n"
        f"    h(data={b'bytes ' * 20!r}, raw={RAW})\n"
        '    """A docstring-like string too long for the line is left as it is, being a statement."""\n'
    )
    split = split_long_strings(source, 60)
    assert ast.dump(ast.parse(split)) == ast.dump(ast.parse(source))
    assert split.count("(") > source.count("(")
    assert '"""A docstring-like' in split


def test_a_long_string_on_a_continuation_line_is_split_too() -> None:
    """An assertion on a tuple, already laid out one item a line: its string item is split
    (a statement's own string, after a blank line or a comment, is not)."""
    message = "splituser() is deprecated as of 3.8, use urllib.parse.urlparse() instead"
    source = (
        "def test_x():\n"
        "    assert result == (\n"
        "        # the warning's text\n"
        f"        {message!r},\n"
        "        None,\n"
        "    )\n"
        "\n"
        "    # a comment, then a statement that is a string\n"
        f"    {message!r}\n"
    )
    split = split_long_strings(source, 60)
    assert ast.dump(ast.parse(split)) == ast.dump(ast.parse(source))
    assert split.count(repr(message)) == 1  # the statement's, left as it is


@pytest.mark.parametrize(
    ("literal", "width"),
    [
        ('"\\x41\\x42\\x43\\x44"', 6),
        ("r'\\\\\\\\\\\\'", 4),
        ('b"\\n\\t\\r abc"', 5),
        ('"\\N{BULLET}x"', 4),
    ],
)
def test_split_never_cuts_an_escape(literal: str, width: int) -> None:
    pieces = split_string(literal, width)
    assert ast.literal_eval(" ".join(pieces)) == ast.literal_eval(literal)
    assert all(ast.literal_eval(piece) is not None for piece in pieces)


def test_ruff_is_available_to_these_tests() -> None:
    assert os.path.exists(ruff())


def test_strings_that_fit_but_share_a_too_long_line_are_split() -> None:
    """A dict's key and value, each shorter than a line but not both on one: ruff format never
    breaks ``key: value``, so the strings are split until the lines fit (E501)."""
    key, value = "variance requires at least two data points", "an arithmetic mean of a normal law"
    test = GeneratedTest(
        "test_x",
        f"def test_x():\n    dict_ = {{\n        {key!r}: {value!r},\n    }}\n    f(dict_)\n",
    )
    [formatted] = format_tests([test], *styled(Style()))
    assert all(len(line) <= 88 for line in formatted.source.splitlines()), formatted.source
    assert ast.dump(ast.parse(formatted.source)) == ast.dump(ast.parse(test.source))
