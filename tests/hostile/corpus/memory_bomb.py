"""Allocating without end: one impossible block, or blocks that double until memory runs out.

The blocks are ``bytes(n)``, which the allocator maps without writing to (the kernel hands out
zeroed pages when they are first touched): the worker's address-space limit stops the loop after
a few dozen allocations, in microseconds on any machine. With ``bytearray(n)``, which writes
every byte, the loop measured the machine's memory speed (1.3 s per GB here) against the test
timeout instead, and on a loaded machine ended as a timeout kill rather than a memory refusal.
"""


def hoard(x: int) -> int:
    if x > 10:
        return len(bytearray(1 << 40))
    if x < -10:
        blocks, size = [], 1 << 20
        while True:
            blocks.append(bytes(size))
            size *= 2
    return x
