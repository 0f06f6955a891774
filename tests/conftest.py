"""Shared helpers: write a module to a temporary folder and build its pieces in one line."""

from __future__ import annotations

import textwrap
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
def classic() -> Path:
    assert CLASSIC.is_dir(), f"the classic corpus is expected at {CLASSIC}"
    return CLASSIC
