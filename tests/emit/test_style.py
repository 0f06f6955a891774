"""The project's style read from ruff's, black's, flake8's and isort's configuration files."""

from __future__ import annotations

from pathlib import Path

import pytest
from miogen.emit.style import Style, project_style


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "tests" / "test_shapes.py"


@pytest.mark.parametrize(
    ("files", "line_length", "formatter"),
    [
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, 88, None),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, 100, "ruff"),
        (
            {
                "ruff.toml": "line-length = 79\n",
                "pyproject.toml": "[tool.ruff]\nline-length = 120\n",
            },
            79,
            "ruff",
        ),
        ({".ruff.toml": "[format]\nquote-style = 'single'\n"}, 88, "ruff"),
        ({"pyproject.toml": "[tool.black]\nline-length = 99\n"}, 99, "black"),
        ({"pyproject.toml": "[tool.black]\n[tool.ruff]\nline-length = 90\n"}, 90, "black"),
        ({"pyproject.toml": "[tool.black]\n[tool.ruff.format]\n"}, 88, "ruff"),
        ({"setup.cfg": "[flake8]\nmax-line-length = 79\n"}, 79, None),
        ({"setup.cfg": "[flake8\nbroken"}, 88, None),
        ({"pyproject.toml": "not toml ["}, 88, None),
    ],
)
def test_line_length_and_formatter(
    tmp_path: Path, files: dict[str, str], line_length: int, formatter: str | None
) -> None:
    style = project_style(project(tmp_path, files))
    assert (style.line_length, style.formatter, style.root) == (line_length, formatter, tmp_path)


def test_first_party_as_ruff_finds_it(tmp_path: Path) -> None:
    files = {
        "pyproject.toml": "[tool.ruff]\nsrc = ['lib']\n[tool.ruff.lint.isort]\n"
        "known-first-party = ['extra']\n",
        "lib/shapes/__init__.py": "",
        "lib/tools.py": "",
        "elsewhere/hidden.py": "",
    }
    style = project_style(project(tmp_path, files))
    assert style.first_party == {"shapes", "tools", "extra"}
    default = project_style(project(tmp_path / "other", {"setup.py": "", "src/pkg/a.py": ""}))
    assert {"pkg", "src"} <= default.first_party


def test_a_file_outside_any_project_gets_the_defaults(tmp_path: Path) -> None:
    assert project_style(tmp_path / "test_x.py", current=tmp_path / "empty") == Style()


def test_outside_any_project_the_current_folder_is_the_root_as_in_ruff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"shapes.py": "", "tools/__init__.py": "", "src/lib.py": "", "not-a-name.py": ""}
    test_file = project(tmp_path, files)
    expected = {"shapes", "tools", "src", "lib"}
    assert project_style(test_file, current=tmp_path).first_party == expected
    monkeypatch.chdir(tmp_path)
    assert project_style(test_file).first_party == expected


@pytest.mark.parametrize(
    ("files", "lints", "required", "mypy"),
    [
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, False, (), False),
        (
            {
                "pyproject.toml": "[tool.ruff.lint.isort]\n"
                "required-imports = ['from __future__ import annotations', 'not python(']\n"
            },
            True,
            ("from __future__ import annotations", "not python("),  # as configured
            False,
        ),
        ({"ruff.toml": "[isort]\nrequired-imports = ['import os']\n"}, True, ("import os",), False),
        ({"pyproject.toml": "[tool.mypy]\nstrict = false\n"}, False, (), True),
        ({"setup.cfg": "[mypy]\nstrict = True\n"}, False, (), True),
        ({"pyproject.toml": "[project]\nname = 'x'\n", "mypy.ini": "[mypy]\n"}, False, (), True),
    ],
)
def test_the_projects_checkers_are_read(
    tmp_path: Path,
    files: dict[str, str],
    lints: bool,
    required: tuple[str, ...],
    mypy: bool,
) -> None:
    style = project_style(project(tmp_path, files))
    assert (style.lints, style.required_imports, style.mypy) == (lints, required, mypy)


@pytest.mark.parametrize(
    ("files", "datetime_alias"),
    [
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, "dt"),  # ruff's own conventions
        (
            {
                "pyproject.toml": "[tool.ruff.lint.flake8-import-conventions.extend-aliases]\n"
                "decimal = 'dec'\n"
            },
            "dt",
        ),
        (
            {
                "pyproject.toml": "[tool.ruff.lint.flake8-import-conventions.aliases]\n"
                "decimal = 'dec'\n"
            },
            None,  # ruff's replaced
        ),
        (
            {
                "pyproject.toml": "[tool.ruff.lint.flake8-import-conventions.aliases]\n"
                "datetime = 'when'\n"
            },
            "when",
        ),
    ],
)
def test_ruffs_own_import_conventions_hold_unless_the_project_replaces_them(
    tmp_path: Path, files: dict[str, str], datetime_alias: str | None
) -> None:
    """``import datetime`` is ruff's ICN001 under its default aliases (``datetime as dt``):
    a test with a date is written to them, as outside any project, unless the project's
    ``aliases`` replace them (``extend-aliases`` adds to them)."""
    aliases = dict(project_style(project(tmp_path, files)).import_aliases)
    assert aliases.get("datetime") == datetime_alias
    assert dict(Style().import_aliases).get("datetime") == "dt"
