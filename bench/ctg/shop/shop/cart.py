"""A shopping cart: lines of item and quantity, a total with bulk discounts, a checkout."""


class Cart:
    def __init__(self, owner: str, limit: int = 50):
        self.owner = owner
        self.limit = limit
        self._lines: dict[str, int] = {}
        self._closed = False

    def add(self, item: str, quantity: int = 1) -> int:
        if self._closed:
            raise RuntimeError("cart is checked out")
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if not item:
            raise ValueError("item needs a name")
        count = self._lines.get(item, 0) + quantity
        if sum(self._lines.values()) + quantity > self.limit:
            raise OverflowError("cart is full")
        self._lines[item] = count
        return count

    def remove(self, item: str) -> bool:
        if item not in self._lines:
            return False
        if self._lines[item] > 1:
            self._lines[item] -= 1
        else:
            del self._lines[item]
        return True

    def total(self, price: float) -> float:
        items = sum(self._lines.values())
        if items == 0:
            return 0.0
        amount = items * price
        if items >= 10:
            amount *= 0.9
        if items >= 10 and items < 5:
            amount = 0.0
        return round(amount, 2)

    def checkout(self) -> int:
        if self._closed:
            raise RuntimeError("already checked out")
        if not self._lines:
            raise ValueError("empty cart")
        self._closed = True
        return len(self._lines)
