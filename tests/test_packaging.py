"""The Python package's metadata: what PyPI shows and what pip checks."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import miogen
from miogen.lsp.server import VERSION
from trove_classifiers import classifiers as KNOWN_CLASSIFIERS

REPO = Path(__file__).parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_classifiers_are_known_to_pypi_and_name_the_supported_systems() -> None:
    found = PROJECT["classifiers"]
    assert [c for c in found if c not in KNOWN_CLASSIFIERS] == []
    systems = {c for c in found if c.startswith("Operating System ::")}
    # The worker sandbox needs POSIX resource limits (miogen.common.platform_support): no Windows.
    assert systems == {"Operating System :: POSIX :: Linux", "Operating System :: MacOS"}
    assert "Framework :: Pytest" in found


def test_python_versions_agree_with_requires_python() -> None:
    minimum = tuple(int(p) for p in PROJECT["requires-python"].removeprefix(">=").split("."))
    prefix = "Programming Language :: Python :: 3."
    versions = [int(c.removeprefix(prefix)) for c in PROJECT["classifiers"] if c.startswith(prefix)]
    assert versions and min(versions) == minimum[1]


def test_urls_point_to_the_repository() -> None:
    urls = PROJECT["urls"]
    assert {"Homepage", "Source", "Issues", "Documentation"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())
    assert urls["Issues"] == urls["Source"].rstrip("/") + "/issues"


def test_one_version_for_the_package_the_server_and_the_extension() -> None:
    """The extension warns when the server it starts reports another version (serverInfo);
    dask clients and workers refuse to mix versions (``miogen.__version__``)."""
    extension = json.loads((REPO / "vscode-extension" / "package.json").read_text())
    assert PROJECT["version"] == VERSION == extension["version"] == miogen.__version__
