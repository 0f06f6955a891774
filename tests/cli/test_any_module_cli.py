"""Any module Python can import gets passing tests: a latin-1 module (PEP 263 cookie) and module
files whose names are no identifiers (``my-mod.py``, ``my mod.py``), end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from running import miogen

LATIN1 = """\
# -*- coding: latin-1 -*-
\"\"\"Caf\xe9 greetings.\"\"\"


def greet(name: str) -> str:
    if name == "Jos\xe9":
        return "ol\xe1 " + name
    return "hi"
"""

SIGN = """\
def sign(x: int) -> int:
    if x > 0:
        return 1
    return 0
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    return tmp_path


def users_pytest(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "tests"],
        cwd=root, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_latin1_module_gets_passing_tests(tmp_path):
    root = project(tmp_path)
    (root / "greeting.py").write_bytes(LATIN1.encode("latin-1"))
    done = miogen("generate", "greeting.py", "--evaluations", "300", "--seed", "1", cwd=root)
    assert done.returncode == 0, done.stderr
    emitted = (root / "tests" / "test_greeting_miogen.py").read_text("utf-8")
    assert "olá José" in emitted
    run = users_pytest(root)
    assert run.returncode == 0 and " passed" in run.stdout, run.stdout


@pytest.mark.parametrize("name", ["my-mod.py", "my mod.py"])
def test_a_module_whose_file_name_is_no_identifier_gets_passing_tests(tmp_path, name):
    root = project(tmp_path)
    (root / name).write_text(SIGN)
    done = miogen("generate", name, "--evaluations", "300", "--seed", "1", cwd=root)
    assert done.returncode == 0, done.stderr
    emitted = (root / "tests" / "test_my_mod_miogen.py").read_text()
    assert f'importlib.import_module("{name[:-3]}")' in emitted
    run = users_pytest(root)
    assert run.returncode == 0 and " passed" in run.stdout, run.stdout
