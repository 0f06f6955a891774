"""The tests miogen writes pass on every CPython installed here that the subject supports.

Tests for the examples and the classic corpus are generated (fixed seed and evaluation budget)
under the server's Python, then run with each other CPython found (pyenv's, or ``python3.X`` on
PATH), in a small virtual environment per interpreter with pytest installed from the package
index (cached in ``.miogen/pythons/``, ignored by git). An interpreter not installed here is
skipped with that reason; a subject that does not import on one (newer syntax) is not run there
and the run says so. ``-rs -v`` shows which interpreters ran.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUBJECTS = [
    REPO / "examples" / "inventory.py",
    *sorted((REPO / "corpus" / "classic").glob("*.py")),
    *sorted((REPO / "corpus" / "inputs").glob("*.py")),  # operators, setters, stdlib values
]
VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13"]
CACHE = REPO / ".miogen" / "pythons"
EVALUATIONS = "400"
# The subjects support what they import on; the project says so, as a user's would.
PYPROJECT = '[project]\nname = "subject"\nrequires-python = ">=3.9"\n'
# The first test's setup generates for all 14 subjects: 554 s at load 16, over the suite's
# 300 s; a generous bound (timing aims live in bench/).
pytestmark = pytest.mark.timeout(1800)


def interpreter(version: str) -> str | None:
    """A CPython of ``version`` installed here: pyenv's, else ``python3.X`` on PATH."""
    home = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted(glob.glob(str(home / "versions" / f"{version}.*" / "bin" / "python")))
    return found[-1] if found else shutil.which(f"python{version}")


def with_pytest(version: str, python: str) -> Path:
    """A virtual environment of ``python`` with pytest (made once, then reused)."""
    venv = CACHE / version
    bin_python = venv / "bin" / "python"
    if not (venv / "ready").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
        installed = subprocess.run(
            [str(bin_python), "-m", "pip", "install", "--quiet", "pytest"],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if installed.returncode != 0:
            pytest.skip(f"pytest could not be installed for Python {version}: {installed.stderr}")
        (venv / "ready").write_text("")
    return bin_python


@pytest.fixture(scope="module")
def emitted(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, Path]]:
    """(project folder, emitted test file) of every subject."""
    found = []
    for subject in SUBJECTS:
        project = tmp_path_factory.mktemp(subject.stem)
        (project / "pyproject.toml").write_text(PYPROJECT)
        shutil.copyfile(subject, project / subject.name)
        output = project / "tests" / f"test_{subject.stem}.py"
        done = subprocess.run(
            [sys.executable, "-m", "miogen", "generate", subject.name, "--evaluations",
             EVALUATIONS, "--seed", "1", "--output", str(output)],
            cwd=project, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert output.exists(), done.stdout[-3000:] + done.stderr[-3000:]
        found.append((project, output))
    return found


@pytest.mark.parametrize("version", VERSIONS)
def test_emitted_tests_pass_on_other_pythons(version: str, emitted, capsys) -> None:
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        pytest.skip(f"Python {version} is the one the tests were generated with")
    python = interpreter(version)
    if python is None:
        pytest.skip(f"Python {version} is not installed here")
    bin_python = with_pytest(version, python)
    ran, unsupported = [], []
    for project, output in emitted:
        module = output.name.removeprefix("test_")[: -len(".py")]
        environment = {"PYTHONPATH": str(project), "PATH": "/usr/bin:/bin",
                       "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
        imports = subprocess.run(
            [str(bin_python), "-c", f"import {module}"], cwd=project, env=environment,
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if imports.returncode != 0:  # the subject itself needs a newer Python
            unsupported.append(module)
            continue
        run = subprocess.run(
            [str(bin_python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(output)],
            cwd=project, env=environment, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, f"Python {version}, {module}:\n{run.stdout[-4000:]}"
        ran.append(module)
    with capsys.disabled():
        print(f"\nPython {version} ({python}): ran {ran}; subject needs newer: {unsupported}")
    assert ran, f"no subject imports on Python {version}"
