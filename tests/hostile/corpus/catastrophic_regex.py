"""Catastrophic backtracking in the regular-expression engine."""

import re


def matches(x: int) -> bool:
    if x > 10:
        return re.match(r"(a|aa)+$", "a" * 60 + "b") is not None
    return False
