"""Allocating without end: one impossible block, or blocks that double until memory runs out."""


def hoard(x: int) -> int:
    if x > 10:
        return len(bytearray(1 << 40))
    if x < -10:
        blocks, size = [], 1 << 20
        while True:
            blocks.append(bytearray(size))
            size *= 2
    return x
