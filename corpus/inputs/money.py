"""A value type built in __new__, with operators: amounts of money in cents."""

from __future__ import annotations


class Money:
    """An immutable amount in one currency, stored in cents."""

    __slots__ = ("_cents", "_currency")

    def __new__(cls, cents=0, currency="EUR"):
        self = super().__new__(cls)
        if isinstance(cents, Money):
            self._cents, self._currency = cents._cents, cents._currency
            return self
        if isinstance(cents, str):
            whole, _, fraction = cents.partition(".")
            if not whole.lstrip("-").isdigit():
                raise ValueError(f"not an amount: {cents!r}")
            cents = int(whole) * 100 + (int(fraction[:2].ljust(2, "0")) if fraction else 0)
        if not isinstance(cents, int):
            raise TypeError("cents must be an int")
        if len(currency) != 3 or not currency.isupper():
            raise ValueError("currency must be three capital letters")
        self._cents, self._currency = cents, currency
        return self

    @classmethod
    def from_units(cls, units, currency="EUR"):
        return cls(round(units * 100), currency)

    @property
    def cents(self):
        return self._cents

    def _check(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        if other._currency != self._currency:
            raise ValueError("different currencies")
        return other

    def __add__(self, other):
        other = self._check(other)
        if other is NotImplemented:
            return other
        return Money(self._cents + other._cents, self._currency)

    def __sub__(self, other):
        other = self._check(other)
        if other is NotImplemented:
            return other
        return Money(self._cents - other._cents, self._currency)

    def __mul__(self, factor):
        if not isinstance(factor, int):
            return NotImplemented
        return Money(self._cents * factor, self._currency)

    def __neg__(self):
        return Money(-self._cents, self._currency)

    def __eq__(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        return self._cents == other._cents and self._currency == other._currency

    def __lt__(self, other):
        other = self._check(other)
        if other is NotImplemented:
            return other
        return self._cents < other._cents

    def __hash__(self):
        return hash((self._cents, self._currency))

    def __bool__(self):
        return self._cents != 0

    def __repr__(self):
        return f"Money({self._cents}, {self._currency!r})"

    def __str__(self):
        sign = "-" if self._cents < 0 else ""
        whole, cents = divmod(abs(self._cents), 100)
        return f"{sign}{whole}.{cents:02d} {self._currency}"

    def split(self, parts):
        if parts <= 0:
            raise ValueError("parts must be positive")
        share, rest = divmod(self._cents, parts)
        return [Money(share + (1 if i < rest else 0), self._currency) for i in range(parts)]
