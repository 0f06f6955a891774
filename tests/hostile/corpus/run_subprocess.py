"""subprocess: the command would create a file in the watched folder."""

import os
import subprocess

CANARY = os.environ.get("HOSTILE_CANARY", "/nonexistent")


def touch(x: int) -> int:
    if x > 10:
        return subprocess.run(
            ["touch", os.path.join(CANARY, "touched.txt")], check=False
        ).returncode
    return x
