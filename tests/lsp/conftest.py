"""Fixtures: ``miogen serve`` over stdio, as VS Code and as Neovim (0.7) would drive it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytest_lsp
from lsp_support import PROFILES, SERVER, Editor, start
from pytest_lsp import LanguageClient


@pytest_lsp.fixture(config=SERVER, params=PROFILES, scope="session")
async def shared(lsp_client: LanguageClient, request, tmp_path_factory):
    """One server per profile for the whole run; tests keep to their own project folders."""
    lsp_client.root = tmp_path_factory.mktemp("workspace")
    await start(lsp_client, request.param, [lsp_client.root])
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def editor(shared: LanguageClient, request) -> Editor:
    """The test's project folder (its own pyproject.toml) in the shared server's workspace."""
    name = re.sub(r"\W+", "_", request.node.name).strip("_")[:80]
    editor = Editor(shared, Path(shared.root) / name)
    yield editor
    editor.close_all()


@pytest_lsp.fixture(config=SERVER, params=PROFILES, loop_scope="session")
async def fresh(lsp_client: LanguageClient, request):
    """A server of the test's own, not initialized yet: for initializationOptions and folders."""
    lsp_client.profile = request.param
    yield
    await lsp_client.shutdown_session()
