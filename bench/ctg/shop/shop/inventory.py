"""Stock levels per product with reservations and restocking."""


class Inventory:
    def __init__(self, capacity: int = 100):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._stock: dict[str, int] = {}
        self._reserved: dict[str, int] = {}

    def restock(self, product: str, amount: int) -> int:
        if amount <= 0:
            raise ValueError("amount must be positive")
        level = self._stock.get(product, 0) + amount
        if level > self.capacity:
            level = self.capacity
        self._stock[product] = level
        return level

    def reserve(self, product: str, amount: int) -> bool:
        available = self._stock.get(product, 0) - self._reserved.get(product, 0)
        if amount > available:
            return False
        self._reserved[product] = self._reserved.get(product, 0) + amount
        return True

    def release(self, product: str) -> int:
        held = self._reserved.pop(product, 0)
        if held == 0:
            return 0
        if held < 0:
            raise AssertionError("negative reservation")
        return held

    def low(self, threshold: int = 5) -> list[str]:
        return sorted(p for p, n in self._stock.items() if n < threshold)
