"""Limits for the worker process: resources, working directory, environment."""

from __future__ import annotations

import os
import resource


def enter_sandbox(spec) -> None:
    """Scratch working directory, HOME/TMPDIR in scratch, and resource limits."""
    os.chdir(spec.scratch)
    for name in ("HOME", "TMPDIR", "TMP", "TEMP"):
        os.environ[name] = spec.scratch
    _limit(resource.RLIMIT_AS, spec.memory_limit_mb * 1024 * 1024)
    _limit(resource.RLIMIT_FSIZE, 64 * 1024 * 1024)
    _limit(resource.RLIMIT_CORE, 0)


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    try:
        resource.setrlimit(which, (value, hard))
    except (ValueError, OSError):
        pass
