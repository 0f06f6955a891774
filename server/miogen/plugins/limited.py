"""``python -m miogen.plugins.limited MEMORY_MB SECONDS -- COMMAND...``: run COMMAND under limits.

The verification runs the emitted tests, which call the user's code, outside the worker: this
launcher gives that run the worker's resource limits (address space, CPU seconds, file size, no
core dumps) and then replaces itself with the command. A launcher rather than ``preexec_fn``,
because the language server starts verifications from threads, where ``preexec_fn`` can deadlock.
"""

from __future__ import annotations

import os
import sys

from miogen.worker.sandbox import limit_resources


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        sys.exit("usage: python -m miogen.plugins.limited MEMORY_MB SECONDS -- COMMAND...")
    memory_mb, seconds, command = int(argv[0]), float(argv[1]), argv[3:]
    limit_resources(memory_mb, seconds)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
