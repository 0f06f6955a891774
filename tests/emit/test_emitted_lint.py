"""The tests miogen writes for the bench corpus pass the linters users run, as they are written.

Each subject (the classic corpus, the stdlib copies in bench/subjects, examples/inventory.py) is
copied into a project folder of its own, ``miogen generate`` writes its tests there, and ruff
checks them from that folder (so that the subject counts as first party, as in a user's
project): ``ruff check --select E,F,I,PT,B,UP,SIM`` and ``ruff format --check``, with ruff's
defaults otherwise. Nothing may be found.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from emit.test_merge import ruff

REPO = Path(__file__).resolve().parents[2]
CORPUS = [
    *sorted((REPO / "corpus" / "classic").glob("*.py")),
    *sorted((REPO / "bench" / "subjects").glob("*.py")),
    *sorted((REPO / "corpus" / "inputs").glob("*.py")),  # operators, setters, stdlib values
    REPO / "examples" / "inventory.py",
]
RULES = "E,F,I,PT,B,UP,SIM"
# Evaluations per unit and a seed, not seconds: the same search, and so the same tests, on a
# busy machine as on a quiet one (under --budget 1 a busy machine's search got fewer
# evaluations and the test checked other files). At 50, every subject gets tests of several
# kinds (2 for expint and triangle's parametrized table, 53 for stdlib_statistics).
SEARCH = ["--evaluations", "50", "--seed", "1"]


def emitted_tests(subject: Path, project: Path) -> Path:
    """Generate tests for ``subject`` in a project folder of its own; the test file's path."""
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "subject"\n')
    shutil.copyfile(subject, project / subject.name)
    output = project / "tests" / f"test_{subject.stem}.py"
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", subject.name, *SEARCH, "--output", str(output)],
        cwd=project, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1) and output.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return output


def lint_findings(test_file: Path, project: Path) -> str:
    """What ruff finds in ``test_file``, run from ``project``: "" when nothing."""
    check = subprocess.run(
        [ruff(), "check", "--isolated", "--select", RULES, "--output-format", "concise",
         str(test_file)],
        cwd=project, capture_output=True, text=True,
    )  # fmt: skip
    form = subprocess.run(
        [ruff(), "format", "--isolated", "--check", "--diff", str(test_file)],
        cwd=project, capture_output=True, text=True,
    )  # fmt: skip
    found = (check.stdout if check.returncode else "") + (form.stdout if form.returncode else "")
    return found


@pytest.mark.parametrize("subject", CORPUS, ids=[s.stem for s in CORPUS])
def test_emitted_tests_pass_ruff(subject: Path, tmp_path: Path) -> None:
    project = tmp_path / subject.stem
    test_file = emitted_tests(subject, project)
    assert "def test_" in test_file.read_text()
    assert lint_findings(test_file, project) == ""


LOOSE_SUBJECT = """import math


class Circle:
    def __init__(self, radius: float) -> None:
        if radius < 0:
            raise ValueError("radius must not be negative")
        self.radius = radius

    def area(self) -> float:
        return math.pi * self.radius**2
"""


def test_a_loose_folder_without_project_marker_sorts_as_ruff(tmp_path: Path) -> None:
    """No pyproject.toml, setup.* or .git: ruff, run from the folder, takes it as the project
    root, so the module under test is first-party and gets a section of its own (I001)."""
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "shapes.py").write_text(LOOSE_SUBJECT)
    output = folder / "tests" / "test_shapes.py"
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", "shapes.py", *SEARCH, "--output", str(output)],
        cwd=folder, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1) and output.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    text = output.read_text()
    assert "import pytest" in text and "from shapes import Circle" in text
    check = subprocess.run(
        [ruff(), "check", "--isolated", "--no-cache", "--select", "I", "--output-format", "concise", str(output)],
        cwd=folder, capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout
