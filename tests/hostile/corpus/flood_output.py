"""Flooding stdout and stderr, through print and straight to file descriptor 1."""

import os
import sys


def shout(x: int) -> int:
    if x > 10:
        for _ in range(2000):
            print("{not json" * 100)
            os.write(1, b'{"event": "result"}\n' * 50)
            sys.stderr.write("err" * 100)
        return 1
    return x
