"""`miogen generate` on private units and on modules with nothing public: exit codes and wording."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from running import miogen

PRIVATE = (
    "def _helper(x: int) -> int:\n    if x > 3:\n        return 1\n    return 0\n\n\n"
    "def __getattr__(name):\n    raise AttributeError(name)\n"
)


def generate(*args: str) -> subprocess.CompletedProcess:
    return miogen("generate", *args)


def test_module_with_only_private_units_says_so_and_claims_nothing(tmp_path: Path):
    module = tmp_path / "helpers.py"
    module.write_text(PRIVATE)
    done = generate(str(module), "--budget", "1", "--output", str(tmp_path / "test_h.py"))
    assert done.returncode == 2
    assert f"name a private one: {module}::_helper" in done.stderr
    assert "%" not in done.stdout + done.stderr and not (tmp_path / "test_h.py").exists()


def test_a_private_function_named_explicitly_gets_tests(tmp_path: Path):
    module = tmp_path / "helpers.py"
    module.write_text(PRIVATE)
    output = tmp_path / "test_helpers.py"
    done = generate(f"{module}::_helper", "--evaluations", "500", "--output", str(output), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["measured"]["covered"] == summary["measured"]["total"] == 2
    assert "from helpers import _helper" in output.read_text()


def test_zero_targets_show_no_percentage(tmp_path: Path):
    module = tmp_path / "doc.py"
    module.write_text('def documented():\n    """Only a docstring."""\n')
    done = generate(f"{module}::documented", "--budget", "1", "--output", str(tmp_path / "t.py"))
    assert "0/0 targets" in done.stdout and "%" not in done.stdout, done.stdout
    as_json = generate(f"{module}::documented", "--budget", "1", "--json")
    assert json.loads(as_json.stdout)["measured"]["percent"] is None
