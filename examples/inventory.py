"""A small stock-keeping class: the bundled example that `scripts/demo.sh` generates tests for."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Category(Enum):
    FOOD = "food"
    TOOLS = "tools"
    TOYS = "toys"


@dataclass
class Item:
    name: str
    price: float
    category: Category = Category.TOOLS


class OutOfStockError(Exception):
    """Raised when more items are taken than are in stock."""


class Inventory:
    """Counts items by name and values the stock."""

    def __init__(self, capacity: int = 100) -> None:
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self.items: dict[str, int] = {}
        self.prices: dict[str, float] = {}

    def add(self, item: Item, count: int = 1) -> int:
        """Add ``count`` units of ``item``; returns the new count of that item."""
        if count <= 0:
            raise ValueError("count must be positive")
        if self.total() + count > self.capacity:
            raise OverflowError("inventory full")
        self.items[item.name] = self.items.get(item.name, 0) + count
        self.prices[item.name] = item.price
        return self.items[item.name]

    def take(self, name: str, count: int = 1) -> int:
        """Remove ``count`` units; returns what is left."""
        have = self.items.get(name, 0)
        if count > have:
            raise OutOfStockError(name)
        if count == have:
            del self.items[name]
            return 0
        self.items[name] = have - count
        return self.items[name]

    def total(self) -> int:
        return sum(self.items.values())

    def value(self, discount: float = 0.0) -> float:
        """Value of the stock after a discount between 0 and 1."""
        if not 0.0 <= discount < 1.0:
            raise ValueError("discount must be in [0, 1)")
        worth = 0.0
        for name, count in self.items.items():
            worth += self.prices[name] * count
        return round(worth * (1.0 - discount), 2)


def shipping_cost(weight_kg: float, express: bool = False) -> float:
    """Flat rate up to 2 kg, then per kilogram; express doubles it."""
    if weight_kg <= 0:
        raise ValueError("weight must be positive")
    cost = 4.5 if weight_kg <= 2 else 4.5 + (weight_kg - 2) * 1.25
    if express:
        cost *= 2
    return round(cost, 2)
