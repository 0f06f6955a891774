"""What miogen needs from the platform, in one place: the check up front and the calls it covers.

The platform-specific parts of the server sit here. The worker sandbox lowers POSIX resource
limits (``resource``: address space, CPU seconds, file size) before user code runs, and workers
and verification runs get a process group of their own so that a kill takes the user's child
processes along (``os.killpg``). Windows has neither, so miogen refuses to start there with one
message that says to use WSL; the VS Code extension asks the same question (its interpreter
probe calls ``missing_requirements``) and says so before starting the server.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

from miogen.common.errors import MiogenError

# Each need: a module, or ``module.attribute``; and what it is for.
REQUIREMENTS: dict[str, str] = {
    "resource": "POSIX resource limits for the sandbox that runs your code",
    "os.killpg": "process groups, so that a stopped run takes its child processes along",
}
SANDBOX_MODULES = tuple(name for name in REQUIREMENTS if "." not in name)


class UnsupportedPlatformError(MiogenError):
    """This platform lacks what the worker sandbox needs (Windows without WSL, for one)."""


def missing_requirements() -> list[str]:
    """The needs (``REQUIREMENTS``' names) this Python does not meet."""
    return [name for name in REQUIREMENTS if not _available(name)]


def missing_sandbox_modules() -> list[str]:
    """The modules the sandbox needs that this Python cannot import."""
    return [name for name in missing_requirements() if name in SANDBOX_MODULES]


def _available(name: str) -> bool:
    module, _, attribute = name.partition(".")
    try:
        found = importlib.import_module(module)
    except ImportError:
        return False
    return not attribute or hasattr(found, attribute)


def require_sandbox(command: str) -> None:
    """Raise ``UnsupportedPlatformError`` naming what is missing, before ``command`` starts any job.

    >>> require_sandbox("generate")  # a POSIX system has everything
    """
    missing = missing_requirements()
    if missing:
        names = ", ".join(f"'{name}' ({REQUIREMENTS[name]})" for name in missing)
        raise UnsupportedPlatformError(
            f"cannot run '{command}' on this platform ({sys.platform}): miogen needs {names}, "
            "which this Python does not have. miogen runs on Linux and macOS; on Windows, use "
            "it inside WSL."
        )


def kill_process_group(pid: int) -> None:
    """Kill the process group ``pid`` leads (a process started with ``start_new_session``);
    a group that is gone already, or not ours, is left alone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
