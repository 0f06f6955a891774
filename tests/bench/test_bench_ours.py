"""bench.ours: miogen on one corpus module, the way a user runs the CLI on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_module_with_only_private_units_gets_them_named_as_the_cli_tells_a_user(tmp_path: Path):
    module = tmp_path / "_helpers.py"
    module.write_text(
        "def _sign(x: int) -> str:\n"
        "    if x < 0:\n"
        '        return "negative"\n'
        '    return "non-negative"\n',
        encoding="utf-8",
    )
    output, summary = tmp_path / "test_helpers.py", tmp_path / "summary.json"
    command = [sys.executable, "-m", "bench.ours", str(module), "--evaluations", "60"]
    command += ["--output", str(output), "--summary", str(summary)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=120)
    report = json.loads(summary.read_text(encoding="utf-8"))
    assert [unit["name"] for unit in report["units"]] == ["_sign"]
    assert report["coverage"]["covered"] == report["coverage"]["total"] == 2
    assert "from _helpers import _sign" in output.read_text(encoding="utf-8")
