"""Runs the ``miogen`` command as a user would, in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def miogen(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "miogen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
