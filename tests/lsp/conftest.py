"""Fixtures: ``miogen serve`` over stdio with a VS Code and a Neovim client capability profile."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_support import PROFILES, SERVER, SHAPES, Editor
from pytest_lsp import LanguageClient


@pytest_lsp.fixture(config=SERVER, params=PROFILES)
async def lsp(lsp_client: LanguageClient, request):
    lsp_client.profile = request.param
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "ws"\nversion = "0"\n', "utf-8")
    (root / "shapes.py").write_text(SHAPES, "utf-8")
    return root


@pytest.fixture
def editor(lsp: LanguageClient, workspace: Path) -> Editor:
    return Editor(lsp, workspace)
