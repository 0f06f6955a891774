"""Allocating without end."""


def hoard(x: int) -> int:
    if x > 10:
        blocks = []
        while True:
            blocks.append(bytearray(50 * 1024 * 1024))
    return x
