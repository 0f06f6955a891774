"""`miogen generate` in a project whose mypy is strict (issue 24 part 3): the summary says which
tests its mypy left out and which wrong call keeps an ignore; the file passes that mypy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from run.test_gate_generate import CODES
from running import miogen


def test_the_summary_names_what_the_projects_mypy_left_out(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "codes"\n\n[tool.mypy]\nstrict = true\n'
    )
    (tmp_path / "codes.py").write_text(CODES)
    done = miogen(
        "generate", "codes.py", "--evaluations", "500", "--seed", "0", "--no-baseline", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    notes = json.loads(done.stdout)["warnings"]
    assert "1 test left out: mypy errors under your configuration (comparison-overlap)" in notes
    assert not [n for n in notes if "still finds" in n], notes
    written = tmp_path / "tests" / "test_codes_miogen.py"
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", str(written)], cwd=tmp_path, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + written.read_text()
