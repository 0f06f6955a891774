"""A pytest plugin that runs tests in another order (seed from MIOGEN_SHUFFLE_SEED).

Seed 1 runs the file backwards: every pair of tests meets in the order the coverage run did
not run it (a test that needs another before it, or breaks another after it, fails in one of
the two runs); a shuffle would turn only half of the pairs around. Other seeds shuffle.
"""

from __future__ import annotations

import os
import random

BACKWARDS = 1


def pytest_collection_modifyitems(session: object, config: object, items: list[object]) -> None:
    seed = os.environ.get("MIOGEN_SHUFFLE_SEED")
    if seed is None:
        return
    if int(seed) == BACKWARDS:
        items.reverse()
    else:
        random.Random(int(seed)).shuffle(items)
