"""A blocking call in C that signals can interrupt."""

import time


def doze(x: int) -> int:
    if x > 10:
        time.sleep(1000)
    return x
