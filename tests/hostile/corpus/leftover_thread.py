"""A non-daemon thread left running after the call returns."""

import threading
import time

TICKS = []


def start(x: int) -> int:
    if x > 10:

        def tick() -> None:
            while True:
                TICKS.append(1)
                time.sleep(0.001)

        threading.Thread(target=tick).start()
        return 1
    return x
