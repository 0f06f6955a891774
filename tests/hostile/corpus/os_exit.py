"""os._exit: the worker process ends at once."""

import os


def vanish(x: int) -> int:
    if x > 10:
        os._exit(3)
    return x
