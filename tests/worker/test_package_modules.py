"""A module that its package's ``__init__`` re-exports, generated end to end in a worker.

The worker imports the package around the instrumented module; the emitted tests import the
module the usual way and pass under pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

VALIDATION = """
from .errors import InvalidInput

__all__ = ["is_even", "InvalidInput"]


def is_even(value: int) -> bool:
    if value < 0:
        raise InvalidInput("negative")
    return value % 2 == 0
"""


def test_reexported_module_of_a_src_layout_package_gets_passing_tests(tmp_path: Path):
    package = tmp_path / "src" / "checks"
    package.mkdir(parents=True)
    # a src/ layout is importable by the project's pytest through its pythonpath setting
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'checks'\n[tool.pytest.ini_options]\npythonpath = ['src']\n"
    )
    (package / "__init__.py").write_text("from .validation import *\nfrom .errors import *\n")
    (package / "errors.py").write_text("class InvalidInput(ValueError):\n    pass\n")
    (package / "validation.py").write_text(textwrap.dedent(VALIDATION).lstrip())
    output = tmp_path / "tests" / "test_validation.py"
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", str(package / "validation.py"),
         "--evaluations", "600", "--seed", "1", "--output", str(output), "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["module"] == "checks.validation"
    assert summary["coverage"]["covered"] == summary["coverage"]["total"] == 2
    assert summary["measured"]["tests_failed"] == 0
    assert "from checks.validation import" in output.read_text()


def test_package_whose_init_creates_shared_memory_at_import_loads_in_the_sandbox(tmp_path: Path):
    """Importing the package around the module runs its other modules too: a shared ctypes
    value made at import (multiprocessing puts it under /dev/shm) must not be refused."""
    package = tmp_path / "tools"
    package.mkdir()
    (package / "__init__.py").write_text("from .log import LEVEL\nfrom .sign import *\n")
    (package / "log.py").write_text(
        "import multiprocessing\n\nLEVEL = multiprocessing.Value('i', 1)\n"
    )
    (package / "sign.py").write_text(
        "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    return -1\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", str(package / "sign.py"), "--project-root",
         str(tmp_path), "--evaluations", "300", "--output", str(tmp_path / "test_sign.py"),
         "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["coverage"]["covered"] == 2
