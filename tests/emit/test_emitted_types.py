"""The tests miogen writes type-check: mypy finds no call of the module's code with arguments
its signatures refuse (keywords for positional-only parameters, values of another type).

Each typed subject is generated in a project folder of its own, as in test_emitted_lint, and
mypy (``--check-untyped-defs``: test functions carry no annotations, and mypy's defaults would
not look into them) checks the emitted file. A value of another type passed on purpose (the
code checks the type) is marked ``# type: ignore[arg-type]``, which ``--warn-unused-ignores``
holds to being needed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from emit.test_emitted_lint import REPO, emitted_tests

SUBJECTS = [
    REPO / "corpus" / "inputs" / "releases.py",  # "/", PEP 484's "__x", Optional[int], guards
    REPO / "corpus" / "inputs" / "money.py",
    REPO / "examples" / "inventory.py",
]
CALL_ERRORS = ("[arg-type]", "[call-arg]", "[call-overload]", "[misc]", "[unused-ignore]")


def mypy_errors(test_file: Path, project: Path) -> list[str]:
    checked = str(test_file.relative_to(project))  # mypy names it as given
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null",
         "--check-untyped-defs", "--warn-unused-ignores", "--no-error-summary", checked],
        cwd=project, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith(checked)]


@pytest.mark.parametrize("subject", SUBJECTS, ids=[s.stem for s in SUBJECTS])
def test_emitted_calls_type_check(subject: Path, tmp_path: Path) -> None:
    project = tmp_path / subject.stem
    test_file = emitted_tests(subject, project)
    assert "def test_" in test_file.read_text()
    found = [line for line in mypy_errors(test_file, project) if line.endswith(CALL_ERRORS)]
    assert found == []
