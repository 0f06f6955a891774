"""Whether this Python can run miogen's worker sandbox: one clear refusal up front where it cannot."""

from __future__ import annotations

import importlib
import sys

from miogen.errors import MiogenError

# The sandbox lowers POSIX resource limits (address space, CPU seconds, file size) before user
# code runs; without them a runaway test could take the machine down, so miogen does not start.
SANDBOX_MODULES = ("resource",)


class UnsupportedPlatformError(MiogenError):
    """This platform lacks what the worker sandbox needs (Windows without WSL, for one)."""


def missing_sandbox_modules() -> list[str]:
    """The modules the sandbox needs that this Python cannot import."""
    missing = []
    for name in SANDBOX_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def require_sandbox(command: str) -> None:
    """Raise ``UnsupportedPlatformError`` naming what is missing, before ``command`` starts any job.

    >>> require_sandbox("generate")  # a POSIX system has everything
    """
    missing = missing_sandbox_modules()
    if missing:
        names = ", ".join(f"'{name}'" for name in missing)
        raise UnsupportedPlatformError(
            f"cannot run '{command}' on this platform ({sys.platform}): the worker sandbox that "
            f"runs your code needs the module {names} (POSIX resource limits), which this Python "
            "does not have. miogen runs on Linux and macOS; on Windows, use it inside WSL."
        )
