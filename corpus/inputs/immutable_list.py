"""An immutable list with higher-order methods that take callables."""

from __future__ import annotations

from typing import Callable


class ImmutableList:
    """A persistent list: every operation returns a new list."""

    def __init__(self, *items):
        self._items = tuple(items)

    def __len__(self):
        return len(self._items)

    def __getitem__(self, index):
        return self._items[index]

    def __iter__(self):
        return iter(self._items)

    def __contains__(self, item):
        return item in self._items

    def __eq__(self, other):
        return isinstance(other, ImmutableList) and self._items == other._items

    def __add__(self, other):
        if not isinstance(other, ImmutableList):
            return NotImplemented
        return ImmutableList(*self._items, *other._items)

    def append(self, item):
        return ImmutableList(*self._items, item)

    def map(self, function: Callable):
        return ImmutableList(*(function(item) for item in self._items))

    def filter(self, predicate: Callable):
        kept = [item for item in self._items if predicate(item)]
        if len(kept) == len(self._items):
            return self
        return ImmutableList(*kept)

    def reduce(self, function, initial=None):
        if not self._items and initial is None:
            raise ValueError("reduce of an empty list with no initial value")
        items = iter(self._items)
        result = next(items) if initial is None else initial
        for item in items:
            result = function(result, item)
        return result

    def find(self, predicate):
        for index, item in enumerate(self._items):
            if predicate(item):
                return index
        return -1

    def sort_by(self, key):
        return ImmutableList(*sorted(self._items, key=key))
