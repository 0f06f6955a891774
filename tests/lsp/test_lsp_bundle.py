"""The server the VS Code extension bundles (scripts/bundle-server.sh, bundled/tool/serve.py)
runs in a plain interpreter that has nothing installed: it says its version and generates tests.

The bundle is built here as ``npm run package`` builds it, into a temporary folder: the pinned
wheels come from pip's cache or the index, as scripts/setup.sh's do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsp_support import E2E, Editor, make_client
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "vscode-extension"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
REQUIREMENTS = EXTENSION / "bundled" / "requirements.txt"

ROUNDING = '''\
"""A function with two branches."""


def sign(x: int) -> int:
    if x < 0:
        return -1
    return 1
'''


def pinned() -> dict[str, str]:
    """name -> version of bundled/requirements.txt, each checked to carry a sha256."""
    text = REQUIREMENTS.read_text().replace("\\\n", " ")
    found = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([\w.-]+)==([\w.]+)((?:\s+--hash=sha256:[0-9a-f]{64})+)", line)
        assert match, f"not pinned with a hash: {line}"
        found[match[1].lower().replace("-", "_")] = match[2]
    return found


@pytest.fixture(scope="module")
def extension(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An extension folder as the VSIX installs it: bundled/tool/serve.py and bundled/libs."""
    root = tmp_path_factory.mktemp("extension")
    (root / "bundled" / "tool").mkdir(parents=True)
    shutil.copy(EXTENSION / "bundled" / "tool" / "serve.py", root / "bundled" / "tool")
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "bundle-server.sh"), "", str(root / "bundled" / "libs")],
        capture_output=True, text=True, env=dict(os.environ, PYTHON=sys.executable), timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def plain_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with nothing installed, not even pip."""
    folder = tmp_path_factory.mktemp("plain") / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = folder / "bin" / "python"
    done = subprocess.run(
        [python, "-c", "import importlib.util as u; print([m for m in "
         "('miogen', 'pygls', 'pytest', 'coverage', 'numpy') if u.find_spec(m)])"],
        capture_output=True, text=True, cwd=folder,
    )  # fmt: skip
    assert done.stdout.strip() == "[]", done
    return python


def test_the_bundle_holds_miogen_and_its_pinned_pure_python_dependencies(extension: Path) -> None:
    libs = extension / "bundled" / "libs"
    versions = {
        d.name.removesuffix(".dist-info").rsplit("-", 1)[0].lower(): d.name.removesuffix(
            ".dist-info"
        ).rsplit("-", 1)[1]
        for d in libs.glob("*.dist-info")
    }
    assert versions == {**pinned(), "miogen": VERSION}, "exactly the pins and miogen, nothing else"
    assert not (libs / "numpy").exists(), "numpy is compiled per Python version: not bundled"
    # Nothing compiled but ruff's binary: the bundle runs on every Python from 3.11.
    compiled = [p for p in libs.rglob("*") if p.suffix in (".so", ".pyd", ".dylib")]
    assert compiled == []
    assert [p.name for p in (libs / "bin").iterdir()] == ["ruff"]
    assert os.access(libs / "bin" / "ruff", os.X_OK)
    assert (libs / "miogen" / "worker" / "main.py").is_file() and (
        libs / "miogen" / "__main__.py"
    ).is_file()
    assert not list(libs.rglob("__pycache__")) and not list(libs.glob("*.pth"))


@pytest_asyncio.fixture(loop_scope="session")
async def bundled_server(extension: Path, plain_python: Path) -> AsyncIterator[LanguageClient]:
    """The bundled server started as the extension starts it ("useBundled"): the plain
    interpreter running the launcher."""
    launcher = extension / "bundled" / "tool" / "serve.py"
    config = ClientServerConfig(
        server_command=[str(plain_python), str(launcher)], client_factory=make_client
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    yield client
    await client.shutdown_session()


@E2E[0]
@E2E[1]
async def test_the_bundled_server_runs_in_a_plain_interpreter_and_generates(
    bundled_server: LanguageClient, tmp_path: Path, plain_python: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    bundled_server.profile = "visual-studio-code"
    answer = await bundled_server.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=project.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="project")],
        )
    )
    bundled_server.recorder.encoding = str(answer.capabilities.position_encoding or "utf-16")
    # What the extension compares with its own version.
    assert answer.server_info == types.ServerInfo(name="miogen", version=VERSION)

    editor = Editor(bundled_server, project)
    path = editor.write("rounding.py", ROUNDING)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "sign")
    assert answer["applied"] and answer["tests"] > 0, (answer, editor.logs(""))
    written = (project / "tests" / "test_rounding_miogen.py").read_text()
    assert "def test_" in written and "from rounding import sign" in written
    # Verified in the plain interpreter by the bundle's pytest and coverage.py (miogen's own
    # processes find the bundle: without it, coverage.py would measure nothing).
    measured = [
        m for m in editor.logs("sign: ") if re.search(r"2/2 branches .*\(coverage\.py\)", m)
    ]
    assert measured, editor.logs("sign")
    # "Generate tests for file": miogen ctg in a process of its own, started as miogen's own
    # processes are (the bundle at the end of sys.path), in the same plain interpreter.
    other = editor.write("clipping.py", ROUNDING.replace("sign", "clip_sign"))
    ran = await bundled_server.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="miogen.generateTestsForPaths", arguments=[{"uris": [editor.uri(other)]}]
        )
    )
    assert ran["exitCode"] == 0 and ran["tests"] > 0, (ran, editor.logs(""))
    assert (project / "tests" / "test_clipping_miogen.py").is_file()
    editor.close_all()


def test_the_launcher_refuses_a_python_older_than_miogen_needs(extension: Path) -> None:
    launcher = extension / "bundled" / "tool" / "serve.py"
    old = "import sys; sys.version_info = (3, 10, 0); sys.argv = [sys.argv[1]]; __file__ = sys.argv[0]; "
    done = subprocess.run(
        [sys.executable, "-c", old + "exec(open(sys.argv[0]).read())", str(launcher)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "miogen needs Python 3.11 or newer" in done.stderr, done
