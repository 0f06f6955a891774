"""Recursion without a base case."""


def descend(x: int) -> int:
    if x > 10:
        return descend(x + 1) + 1
    return x
