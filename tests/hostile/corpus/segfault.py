"""A segmentation fault through ctypes."""

import ctypes


def crash(x: int) -> int:
    if x > 10:
        return len(ctypes.string_at(0))
    return x
