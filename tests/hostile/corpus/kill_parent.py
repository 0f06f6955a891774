"""Killing the process that started the worker (the CLI or the language server)."""

import os
import signal


def betray(x: int) -> int:
    if x > 10:
        os.kill(os.getppid(), signal.SIGKILL)
    return x
