"""``-p miogen.plugins.guard``: the worker's audit hook in the pytest run that verifies tests.

Installed when pytest is configured, before it collects the emitted file, so that importing the
module under test and running its tests are guarded as they were in the worker: files are written only under
``MIOGEN_SANDBOX_FREE`` (the run's temporary folder, where coverage.py and the JUnit report
write too), and processes, signals to others and network connections are refused. A test that
tries fails with ``miogen sandbox: refused ...``, and is dropped under that cause.
"""

from __future__ import annotations

import os

FREE = "MIOGEN_SANDBOX_FREE"


def pytest_configure(config: object) -> None:
    """Install the guard (once per process: an audit hook can never be removed)."""
    from miogen.worker.sandbox import Guard, install_guard, shared_memory_in_scratch

    free = [path for path in os.environ.get(FREE, "").split(os.pathsep) if path]
    if free:
        shared_memory_in_scratch()  # as in the worker: shared ctypes in the temporary folder
        install_guard(Guard(free=[*free, os.devnull]))
