"""The project's interpreter runs the worker and the verification; nothing is installed into it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from miogen.emit.tools import ruff_executable
from miogen.host.interpreter import OWN, InterpreterError, project_interpreter

PYTEST_PARTS = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py.py", "pygments")


def make_venv(folder: Path, with_pytest: bool = True) -> Path:
    """A virtual environment without miogen, with pytest (linked from here) and a package of its
    own, ``localdep``, that miogen's interpreter lacks."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    [site] = folder.glob("lib/python*/site-packages")
    (site / "localdep.py").write_text("LIMIT = 7\n")
    if with_pytest:
        deps = folder / "deps"
        deps.mkdir()
        here = Path(pytest.__file__).resolve().parents[1]
        for name in PYTEST_PARTS:
            if (here / name).exists():
                (deps / name).symlink_to(here / name)
        (site / "deps.pth").write_text(f"{deps}\n")
    return folder / "bin" / "python"


def test_the_project_venv_comes_after_virtual_env_and_an_explicit_python(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    assert project_interpreter(root, environ={}) == OWN
    python = make_venv(root / ".venv")
    chosen = project_interpreter(root, environ={})
    assert (chosen.executable, chosen.origin) == (str(python), "the project's .venv")
    assert not chosen.own and (Path(chosen.shim) / "miogen" / "worker" / "main.py").is_file()
    other = make_venv(tmp_path / "active")
    active = project_interpreter(root, environ={"VIRTUAL_ENV": str(tmp_path / "active")})
    assert (active.executable, active.origin) == (str(other), "$VIRTUAL_ENV")
    explicit = project_interpreter(root, sys.executable, environ={})
    assert explicit.own, "miogen's own interpreter, named: no bootstrap"
    with pytest.raises(InterpreterError, match="no such interpreter"):
        project_interpreter(root, str(tmp_path / "nowhere"), environ={})


def test_an_interpreter_without_pytest_is_refused_with_the_fix(tmp_path: Path) -> None:
    python = make_venv(tmp_path / "bare", with_pytest=False)
    with pytest.raises(InterpreterError) as refused:
        project_interpreter(tmp_path, str(python), environ={})
    assert (
        f"has no pytest, which runs and verifies the tests: install it there ({python} -m pip"
        in (str(refused.value))
    )


def test_miogen_runs_in_the_project_venv_without_being_installed_there(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (root / "grade.py").write_text(
        "from localdep import LIMIT\n\n\ndef grade(score):\n"
        "    if score > LIMIT:\n        return 'high'\n    return 'low'\n"
    )
    python = make_venv(root / ".venv")
    missing = subprocess.run([python, "-c", "import miogen"], capture_output=True, text=True)
    assert "No module named 'miogen'" in missing.stderr, "the venv must not have miogen"
    environment = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", "grade.py", "--evaluations", "200", "--json"],
        cwd=root, capture_output=True, text=True, env=environment, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["python"] == {"executable": str(python), "origin": "the project's .venv"}
    coverage = summary["coverage"]
    assert (
        coverage["covered"] == coverage["total"] == 2 and summary["measured"]["tests_failed"] == 0
    )
    assert "grade(" in Path(summary["output"]).read_text()
    ctg = subprocess.run(
        [sys.executable, "-m", "miogen", "ctg", "grade.py", "--budget", "1", "--evaluations", "200", "--json", "--quiet",
         "--python", str(python)],
        cwd=root, capture_output=True, text=True, env=environment, timeout=300,
    )  # fmt: skip
    assert ctg.returncode == 0, ctg.stdout + ctg.stderr
    assert json.loads(ctg.stdout)["coverage"]["covered"] == 2


def test_miogen_run_from_the_extensions_bundle_starts_its_processes_with_the_bundle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The extension's launcher (vscode-extension/bundled/tool/serve.py) names its bundle in
    $MIOGEN_BUNDLE: miogen's own processes bootstrap it (appended), installed or not."""
    monkeypatch.delenv("MIOGEN_BUNDLE", raising=False)
    assert OWN.command("miogen.worker.main") == [sys.executable, "-m", "miogen.worker.main"]
    assert "MIOGEN_SYS_PATH" not in OWN.environment({})
    monkeypatch.setenv("MIOGEN_BUNDLE", "/ext/bundled/libs")
    assert OWN.own, "still miogen's own interpreter: spares and all"
    assert OWN.command("miogen.worker.main", "--spare")[:2] == [sys.executable, "-c"]
    assert OWN.command("miogen.worker.main", "--spare")[3:] == ["miogen.worker.main", "--spare"]
    assert OWN.environment({"A": "1"}) == {"A": "1", "MIOGEN_SYS_PATH": "/ext/bundled/libs"}


def test_a_project_venv_named_venv_gives_both_its_interpreter_and_its_tools(
    tmp_path: Path,
) -> None:
    """The project's environment is looked up once for its Python and its tools: a project whose
    environment is ``venv/`` runs its code in that one, as its ruff is taken from it."""
    root = tmp_path / "project"
    scripts = root / "venv" / "bin"
    scripts.mkdir(parents=True)
    (scripts / "python").symlink_to(sys.executable)
    (scripts / "ruff").write_text("#!/bin/sh\n")
    (scripts / "ruff").chmod(0o755)
    chosen = project_interpreter(root, environ={})
    assert chosen.origin == "the project's venv"
    assert ruff_executable(root) == str(scripts / "ruff")
