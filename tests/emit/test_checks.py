"""Generated files pass the project's own ruff configuration as written, and its mypy's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from emit.test_merge import ruff, write_merged
from miogen.emit.checks import check_notes, mypy_errors, ruff_findings
from miogen.emit.files import HEADER, is_generated
from miogen.emit.merge import GeneratedTest
from miogen.emit.style import Style, project_style
from miogen.emit.tools import Tools, environment_folders, project_tools

STRICT_RUFF = """\
[tool.ruff]
line-length = 88

[tool.ruff.lint]
select = ["E", "F", "I", "PT", "Q", "UP", "B"]

[tool.ruff.lint.isort]
required-imports = ["from __future__ import annotations"]

[tool.ruff.lint.flake8-quotes]
inline-quotes = "single"

[tool.ruff.format]
quote-style = "single"
"""

PARAMETRIZED = GeneratedTest(
    "test_scaled",
    '@pytest.mark.parametrize("n,expected", [(1, "one"), (2, "two")])\n'
    "def test_scaled(n, expected):\n"
    "    assert shapes.name(n) == expected\n",
)
RAISES = GeneratedTest(
    "test_name_of_zero_raises_value_error",
    "def test_name_of_zero_raises_value_error():\n"
    "    with pytest.raises(ValueError):  # noqa: PT011\n"
    "        shapes.name(0)\n",
)
IMPORTS = ["import pytest", "import shapes"]


def styled(written: Path) -> tuple[Path, Style, Tools]:
    """The written file's project style and tools, as the owner of a write looks them up."""
    style = project_style(written)
    return written, style, project_tools(style)


def strict_project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(STRICT_RUFF)
    (tmp_path / "shapes.py").write_text(
        "def name(n: int) -> str:\n    if not n:\n        raise ValueError('zero')\n"
        "    return {1: 'one'}.get(n, 'two')\n"
    )
    return tmp_path / "tests" / "test_shapes_miogen.py"


def ruff_no_fix(path: Path, root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ruff(), "check", "--no-fix", "--output-format", "concise", str(path)],
        cwd=root, capture_output=True, text=True,
    )  # fmt: skip


def test_the_written_file_passes_the_projects_ruff_without_a_fix(tmp_path: Path) -> None:
    path = strict_project(tmp_path)
    written, _ = write_merged(path, IMPORTS, [PARAMETRIZED, RAISES], project_style(path))
    text = written.read_text()
    assert text.splitlines()[0].startswith("from __future__ import annotations") or (
        "\nfrom __future__ import annotations\n" in text
    ), text
    assert "@pytest.mark.parametrize(('n', 'expected'), [(1, 'one'), (2, 'two')])" in text, text
    done = ruff_no_fix(written, tmp_path)
    assert done.returncode == 0, done.stdout + text
    assert ruff_findings(*styled(written)) == []
    assert check_notes(*styled(written)) == []


def test_what_no_fix_can_mend_is_reported(tmp_path: Path) -> None:
    path = strict_project(tmp_path)
    plain = GeneratedTest("test_one", "def test_one():\n    assert shapes.name(1) == 'one'\n")
    written, _ = write_merged(
        path, IMPORTS, [plain], project_style(path)
    )  # pytest imported, and unused
    found = ruff_findings(*styled(written))
    assert [f.split()[0] for f in found] == ["F401"], found
    [note] = check_notes(*styled(written))
    assert note.startswith("ruff (your configuration) still finds 1 issue in test_shapes_miogen.py")


def test_without_a_ruff_configuration_nothing_is_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shapes"\n')
    written, _ = write_merged(
        tmp_path / "tests" / "test_x.py",
        IMPORTS,
        [RAISES],
        project_style(tmp_path / "tests" / "test_x.py"),
    )
    assert "from __future__" not in written.read_text()
    assert ruff_findings(*styled(written)) == []


def has_mypy() -> bool:
    return any((folder / "mypy").is_file() for folder in environment_folders(None))


@pytest.mark.skipif(not has_mypy(), reason="mypy is not installed")
def test_mypy_of_the_project_finds_no_error_in_the_written_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(STRICT_RUFF + "\n[tool.mypy]\nstrict = false\n")
    (tmp_path / "shapes.py").write_text("def name(n: int) -> str:\n    return str(n)\n")
    written, _ = write_merged(
        tmp_path / "tests" / "test_shapes_miogen.py",
        IMPORTS,
        [RAISES],
        project_style(tmp_path / "tests" / "test_shapes_miogen.py"),
    )
    style = project_style(written)
    assert style.mypy
    assert mypy_errors(written, style, project_tools(style)) == []
    broken = tmp_path / "tests" / "test_broken_miogen.py"
    shutil.copyfile(written, broken)
    broken.write_text(broken.read_text() + "\n\ndef test_typed() -> None:\n    shapes.name('1')\n")
    [error] = mypy_errors(broken, style, project_tools(style))
    assert "arg-type" in error and error.startswith("line "), error


CONVENTIONS_RUFF = """\
[tool.ruff]
line-length = 60
fix = true

[tool.ruff.lint]
select = ["ALL"]
ignore = ["S101", "D", "ANN", "INP001", "PLR2004", "CPY001", "COM812", "ISC001"]

[tool.ruff.lint.isort]
required-imports = ["from __future__ import annotations"]

[tool.ruff.lint.flake8-import-conventions.extend-aliases]
datetime = "dt"
"""
DATED = GeneratedTest(
    "test_since_returns_minus_306",
    "def test_since_returns_minus_306():\n"
    "    assert shapes.since(datetime.date(1999, 3, 1)) == -306  # datetime.date\n",
)


def test_the_projects_line_length_conventions_and_fix_setting_hold(tmp_path: Path) -> None:
    """A project with every rule, a short line, ``datetime`` imported as ``dt`` and
    ``fix = true``: the written file passes its ``ruff check`` as written (the header wrapped
    to the line length, the module imported and used by its alias), and a plain ``ruff check``
    (which fixes, here) leaves it as it is."""
    (tmp_path / "pyproject.toml").write_text(CONVENTIONS_RUFF)
    (tmp_path / "shapes.py").write_text(
        "import datetime\n\n\ndef since(when: datetime.date) -> int:\n"
        "    return (when - datetime.date(2000, 1, 1)).days\n"
    )
    path = tmp_path / "tests" / "test_shapes_miogen.py"
    style = project_style(path)
    assert style.line_length == 60 and style.import_aliases == (("datetime", "dt"),)
    imports = ["import datetime", "import shapes"]
    written, _ = write_merged(path, imports, [DATED], project_style(path), header=HEADER)
    text = written.read_text()
    assert "import datetime as dt\n" in text and "shapes.since(dt.date(1999, 3, 1))" in text
    assert "# datetime.date" in text  # a comment is no code
    assert is_generated(text) and all(len(line) <= 60 for line in text.splitlines()), text
    done = ruff_no_fix(written, tmp_path)
    assert done.returncode == 0, done.stdout + text
    fixed = subprocess.run([ruff(), "check", str(written)], cwd=tmp_path, capture_output=True)
    assert fixed.returncode == 0 and written.read_text() == text


def test_the_checks_run_the_tools_handed_to_them_and_look_none_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check_notes`` runs the project's checkers that the owner of the write looked up once
    with the formatter's (``emit.tools``); it does not look them up again (issue 25)."""
    (tmp_path / "pyproject.toml").write_text(STRICT_RUFF + "\n[tool.mypy]\nstrict = false\n")
    events: list[str] = []

    def looked_up(root: Path | None) -> str:
        events.append("lookup")
        return "found"

    def run(command: list[str], cwd: Path | None) -> str:
        events.append(f"run {command[0]}")
        return ""

    for name in ("ruff_executable", "mypy_executable"):
        monkeypatch.setattr(f"miogen.emit.tools.{name}", looked_up)
    monkeypatch.setattr("miogen.emit.checks.run_checker", run)
    written = tmp_path / "tests" / "test_shapes_miogen.py"
    assert check_notes(written, project_style(written), Tools("ruff", None, "mypy")) == []
    assert events == ["run ruff", "run mypy"]
