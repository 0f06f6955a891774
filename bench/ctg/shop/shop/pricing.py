"""Prices: discounts by code and membership, shipping by weight and destination."""


def discount(total: float, code: str, member: bool) -> float:
    if total <= 0:
        raise ValueError("total must be positive")
    rate = 0.0
    if code == "WELCOME10":
        rate = 0.10
    elif code == "VIP25":
        if not member:
            raise PermissionError("VIP25 is for members")
        rate = 0.25
    elif code.startswith("SALE") and len(code) == 6:
        rate = int(code[4:]) / 100 if code[4:].isdigit() else 0.0
    if member and total > 100:
        rate += 0.05
    if rate > 0.5:
        rate = 0.5
    return round(total * (1 - rate), 2)


def shipping(weight: float, country: str) -> float:
    if weight <= 0:
        raise ValueError("weight must be positive")
    if country == "NL":
        base = 4.5
    elif country in ("BE", "DE", "FR"):
        base = 9.0
    else:
        base = 19.0
    if weight > 20:
        base += (weight - 20) * 0.8
    if weight > 1000:
        raise ValueError("too heavy to ship")
    return round(base, 2)
