"""Results that differ on every run: the clock and an unseeded random generator."""

import random
import time


def roll(x: int) -> float:
    if x > 10:
        return time.time()
    if x < -10:
        return random.random()
    return float(x)
