"""Deleting, renaming and truncating files and folders outside the project."""

import os
import shutil

CANARY = os.environ.get("HOSTILE_CANARY", "/nonexistent")


def clean(x: int) -> int:
    if x > 10:
        os.remove(os.path.join(CANARY, "keep.txt"))
    elif x > 5:
        shutil.rmtree(os.path.join(CANARY, "keep-dir"))
    elif x < -10:
        os.rename(os.path.join(CANARY, "keep.txt"), os.path.join(CANARY, "moved.txt"))
    elif x < -5:
        os.truncate(os.path.join(CANARY, "keep.txt"), 0)
    return x
