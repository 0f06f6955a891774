"""The reruns' orders: the first backwards (every pair turned around), the second shuffled."""

from __future__ import annotations

import pytest
from miogen.plugins import shuffle


def order(monkeypatch: pytest.MonkeyPatch, seed: int | None, count: int = 8) -> list[int]:
    if seed is None:
        monkeypatch.delenv("MIOGEN_SHUFFLE_SEED", raising=False)
    else:
        monkeypatch.setenv("MIOGEN_SHUFFLE_SEED", str(seed))
    items: list[object] = list(range(count))
    shuffle.pytest_collection_modifyitems(None, None, items)
    return items  # type: ignore[return-value]


def test_the_reruns_run_the_tests_in_orders_of_their_own(monkeypatch):
    in_file = order(monkeypatch, None)
    backwards = order(monkeypatch, shuffle.BACKWARDS)
    shuffled = order(monkeypatch, 2)
    assert in_file == list(range(8))
    assert backwards == in_file[::-1]
    assert shuffled not in (in_file, backwards) and sorted(shuffled) == in_file
    assert order(monkeypatch, 2) == shuffled, "the same seed, the same order"
