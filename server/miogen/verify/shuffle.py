"""A pytest plugin that runs tests in a shuffled order (seed from MIOGEN_SHUFFLE_SEED)."""

from __future__ import annotations

import os
import random


def pytest_collection_modifyitems(session: object, config: object, items: list[object]) -> None:
    seed = os.environ.get("MIOGEN_SHUFFLE_SEED")
    if seed is not None:
        random.Random(int(seed)).shuffle(items)
