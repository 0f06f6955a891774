"""``miogen ctg`` in a project with its own mypy and ruff configuration (issue 24 part 3): the
checkers' gate runs as for ``miogen generate``: the test mypy rejects is left out (and said so),
a deliberate wrong call keeps a narrow ``type: ignore``, and the file written passes both."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ctg_projects import make_project
from miogen.ctg.runner import CtgConfig, run_ctg
from miogen.host.config import Options

CODES = """\
def scale(value: int, factor: int = 2) -> int:
    if not isinstance(value, int):
        raise TypeError("value must be an int")
    return value * factor


def answer(flag: bool) -> int:
    if flag:
        return "yes"  # type: ignore[return-value]
    return 0
"""
CONFIGURATION = """\
[project]
name = "codes"

[tool.mypy]
strict = true

[tool.ruff.lint]
select = ["E", "F", "PT"]
"""


def test_ctg_writes_only_what_the_projects_mypy_and_ruff_accept(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project", {"codes.py": CODES})
    (root / "pyproject.toml").write_text(CONFIGURATION)
    config = CtgConfig(budget=1.0, jobs=2, verify_runs=1, options=Options(evaluations=500, seed=0))
    report = run_ctg([root / "codes.py"], config, root=root)
    [written] = report.written
    text = written.read_text()
    assert "scale([])  # type: ignore[arg-type]" in text, text  # the wrong call, kept
    assert '"yes"' not in text, text  # the assertion mypy rejects, left out
    assert f"{written}: 1 test left out: mypy errors under your configuration" in "\n".join(
        report.warnings
    ), report.warnings
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", str(written)], cwd=root, capture_output=True, text=True
    )
    assert mypy.returncode == 0, mypy.stdout + text
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-fix", str(written)],
        cwd=root, capture_output=True, text=True,
    )  # fmt: skip
    assert ruff.returncode == 0, ruff.stdout + text
    # nothing of the gate's is left in the project's test folder
    assert sorted(p.name for p in written.parent.iterdir() if p.suffix == ".py") == [
        p.name for p in [written]
    ]
