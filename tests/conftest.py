"""Shared helpers: write a module, or a project with tests, to a temporary folder."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

CLASSIC = Path(__file__).resolve().parents[1] / "corpus" / "classic"  # the project's own copy


@pytest.fixture
def write_module(tmp_path: Path):
    """write_module("shapes", source) -> path of tmp_path/shapes.py (source is dedented)."""

    def write(name: str, source: str) -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
        return path

    return write


@pytest.fixture
def write_project(tmp_path: Path):
    """write_project(files, name="p", pytest_options="pythonpath = ['.']") -> tmp_path, a project
    with tests: pyproject.toml naming the project, ``pytest_options`` its
    [tool.pytest.ini_options] (none when empty), a tests/ folder, and ``files`` (path under the
    root -> text, dedented) in their folders."""

    def write(
        files: Mapping[str, str], name: str = "p", pytest_options: str = "pythonpath = ['.']"
    ) -> Path:
        pytest_table = f"[tool.pytest.ini_options]\n{pytest_options}\n" if pytest_options else ""
        (tmp_path / "pyproject.toml").write_text(
            f"[project]\nname = '{name}'\n{pytest_table}", encoding="utf-8"
        )
        (tmp_path / "tests").mkdir()
        for relative, text in files.items():
            path = tmp_path / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return tmp_path

    return write


@pytest.fixture
def classic() -> Path:
    assert CLASSIC.is_dir(), f"the classic corpus is expected at {CLASSIC}"
    return CLASSIC
