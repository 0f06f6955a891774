"""The ``--json`` report: versioned, and one shape for ``generate`` and ``ctg``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from miogen.run.report import SCHEMA, Coverage, Report, UnitEntry, report_json
from miogen.run.result import Numbers

COMMON = ["schema", "command", "root", "coverage", "units", "warnings", "exit_code"]
UNIT = ["module", "name", "kind", "status", "coverage", "tests", "message"]
SIGN = "def sign(x: int) -> int:\n    if x < 0:\n        return -1\n    return 1\n"


def test_the_common_fields_come_first_then_the_commands():
    entry = UnitEntry("signs", "sign", "function", "ok", Coverage.of(Numbers(1, 2)), 1)
    report = Report("generate", "/p", Coverage.of(Numbers(1, 2)), [entry], ["a note"], 0)
    data = report_json(report, {"output": "t.py"}, [{"stop_reason": "budget"}])
    assert list(data) == [*COMMON, "output"] and data["schema"] == SCHEMA == 1
    assert data["coverage"] == {"covered": 1, "total": 2, "percent": 50.0}
    [unit] = data["units"]
    assert list(unit) == [*UNIT, "stop_reason"] and unit["message"] == ""


def test_nothing_to_cover_has_no_percentage():
    assert Coverage.of(Numbers(0, 0)).percent is None
    assert Coverage.of(Numbers(2, 3)).percent == 66.67


def run(root: Path, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "miogen", *args, "--json"],
        cwd=root, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_generate_and_ctg_print_one_shape(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "signs"\n')
    (tmp_path / "signs.py").write_text(SIGN)
    one = run(tmp_path, "generate", "signs.py", "--evaluations", "300", "--no-baseline")
    (tmp_path / "tests" / "test_signs_miogen.py").unlink()
    many = run(tmp_path, "ctg", "--budget", "1", "--evaluations", "300", "--quiet", "--no-baseline")
    for data, command in ((one, "generate"), (many, "ctg")):
        assert list(data)[: len(COMMON)] == COMMON and data["schema"] == SCHEMA
        assert data["command"] == command and data["root"] == str(tmp_path)
        [unit] = data["units"]
        assert list(unit)[: len(UNIT)] == UNIT
        assert (unit["module"], unit["name"], unit["kind"]) == ("signs", "sign", "function")
        assert unit["coverage"] == data["coverage"] == {"covered": 2, "total": 2, "percent": 100.0}
        assert unit["tests"] >= 1 and unit["message"] == ""
