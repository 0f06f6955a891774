"""mypy and ruff as ``python -m bench smells`` runs them on an emitted file (its strict
configuration, bench/smells.py's MYPY_STRICT and RUFF_IGNORED): what each finds, line by line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.smells import MYPY_STRICT, RUFF_IGNORED  # noqa: E402 - after the path is set


def strict_mypy(test_file: Path) -> list[str]:
    """mypy's errors in ``test_file``, the modules next to it read from source."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *MYPY_STRICT, "--no-incremental", "--cache-dir",
         os.devnull, test_file.name],
        cwd=test_file.parent, capture_output=True, text=True, timeout=600,
        env={**os.environ, "MYPYPATH": str(test_file.parent)},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith(test_file.name)]


def strict_ruff(test_file: Path) -> list[str]:
    """ruff's findings in ``test_file`` under every rule but RUFF_IGNORED, nothing fixed."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-fix", "--select", "ALL",
         "--ignore", ",".join(RUFF_IGNORED), "--output-format", "concise", "--quiet",
         test_file.name],
        cwd=test_file.parent, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith(test_file.name)]
