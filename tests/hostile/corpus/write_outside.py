"""Writing a file outside the project (in the watched folder), and in the user's HOME."""

import os

CANARY = os.environ.get("HOSTILE_CANARY", "/nonexistent")


def save(x: int) -> int:
    if x > 10:
        with open(os.path.join(CANARY, "written.txt"), "w") as handle:
            handle.write("oops")
        return 1
    if x < -10:
        with open(os.path.expanduser("~/.hostile-home-file"), "w") as handle:
            handle.write("home")
        return -1
    return 0
