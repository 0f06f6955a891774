"""Reading stdin, which a worker never has."""

import sys


def ask(x: int) -> str:
    if x > 10:
        return sys.stdin.readline() + input("more? ")
    return str(x)
