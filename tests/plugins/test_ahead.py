"""plugins.ahead: a process started ahead runs the project's tests as a fresh one would."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from miogen.plugins import ahead


def test_an_import_root_an_editable_install_names_stays_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``src`` layout installed editable: its path file names ``src``, which ``site`` skips
    when PYTHONPATH put it there first; dropping PYTHONPATH's entry left the project's run
    without its package (``No module named 'dateutil'``)."""
    src = tmp_path / "project" / "src"
    src.mkdir(parents=True)
    site_packages = tmp_path / "site-packages"
    site_packages.mkdir()
    monkeypatch.setattr("site.getsitepackages", lambda: [str(site_packages)])
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(src), str(site_packages)])
    assert ahead._droppable(str(src)), "on PYTHONPATH only: it leaves"
    (site_packages / "__editable__.project.pth").write_text(f"{src}\n", encoding="utf-8")
    (site_packages / "other.pth").write_text("import os\n# a comment\n", encoding="utf-8")
    assert not ahead._droppable(str(src)), "named by the environment: it stays"
    assert not ahead._droppable(str(tmp_path / "elsewhere")), "not on the path: nothing to drop"
