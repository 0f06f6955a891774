"""Settings of the shop."""


class Config:
    def __init__(self, currency: str = "EUR", vat: float = 0.2, discounts: bool = True) -> None:
        self.currency = currency
        self.vat = vat
        self.discounts = discounts
