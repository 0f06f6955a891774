"""os.fork: the child would write a file in the watched folder."""

import os

CANARY = os.environ.get("HOSTILE_CANARY", "/nonexistent")


def split(x: int) -> int:
    if x > 10:
        pid = os.fork()
        if pid == 0:
            with open(os.path.join(CANARY, "forked.txt"), "w") as handle:
                handle.write("child")
            os._exit(0)
        os.waitpid(pid, 0)
        return 1
    return x
