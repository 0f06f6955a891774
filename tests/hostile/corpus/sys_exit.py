"""sys.exit: an ordinary outcome (SystemExit), not the end of the worker."""

import sys


def quit_with(code: int) -> int:
    if code > 10:
        sys.exit(code)
    return code
