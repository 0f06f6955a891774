"""`miogen generate` in a project with its own ruff rules, mypy and freezegun: the written file
passes its ruff without a fix and its mypy, and the summary says how time is handled."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from emit.test_checks import STRICT_RUFF
from emit.test_merge import ruff
from running import miogen

SHAPES = """\
def label(sides: int, name: str = "shape") -> str:
    if sides < 3:
        raise ValueError("a shape has three sides at least")
    if sides == 3:
        return "triangle"
    if sides == 4:
        return "square"
    return f"{name} of {sides}"
"""
PYPROJECT = (
    '[project]\nname = "shapes"\n[project.optional-dependencies]\ntest = ["freezegun"]\n\n'
    + STRICT_RUFF
    + "\n[tool.mypy]\nstrict = false\n"
)


def test_the_written_file_passes_the_projects_ruff_and_mypy(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "shapes.py").write_text(SHAPES)
    done = miogen(
        "generate", "shapes.py", "--evaluations", "1500", "--seed", "0", "--no-baseline", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = json.loads(done.stdout)
    written = tmp_path / "tests" / "test_shapes_miogen.py"
    text = written.read_text()
    assert "from __future__ import annotations" in text and "pytest.raises" in text, text
    check = subprocess.run(
        [ruff(), "check", "--no-fix", "--output-format", "concise", str(written)],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + text
    notes = summary["warnings"]
    assert not [n for n in notes if "your configuration" in n], notes
    assert any("freezes time with freezegun" in n for n in notes), notes
