"""The shop's history: version 1 is bench/ctg/shop/, each later version is a real edit of the one
before (added methods and functions, changed conditions, a rename, a signature change, a new
class, and two edits that change no code: formatting and comments)."""

from __future__ import annotations

import shutil
from pathlib import Path

SHOP = Path(__file__).parent / "shop"

# (title, {file: [(old text, new text), ...]}); an old text of "" creates the file.
VERSIONS: list[tuple[str, dict[str, list[tuple[str, str]]]]] = [
    ("v1: the shop", {}),
    (
        "v2: add Cart.clear()",
        {
            "shop/cart.py": [
                (
                    "        self._closed = True\n        return len(self._lines)\n",
                    "        self._closed = True\n        return len(self._lines)\n\n"
                    "    def clear(self, force: bool = False) -> int:\n"
                    "        if self._closed and not force:\n"
                    '            raise RuntimeError("cart is checked out")\n'
                    "        removed = sum(self._lines.values())\n"
                    "        self._lines.clear()\n"
                    "        if removed > 20:\n"
                    "            self._closed = False\n"
                    "        return removed\n",
                )
            ]
        },
    ),
    (
        "v3: discount: members' bonus from 150 instead of over 100",
        {"shop/pricing.py": [("if member and total > 100:", "if member and total >= 150:")]},
    ),
    (
        "v4: inventory.py: formatting and comments only",
        {
            "shop/inventory.py": [
                (
                    "        level = self._stock.get(product, 0) + amount\n",
                    "        # never more than the shelf holds\n"
                    "        level = (\n"
                    "            self._stock.get(product, 0)\n"
                    "            + amount\n"
                    "        )\n",
                ),
                ("    def low(self, threshold: int = 5)", "    def low(self,  threshold: int=5)"),
            ]
        },
    ),
    (
        "v5: rename Inventory.reserve to Inventory.hold",
        {"shop/inventory.py": [("    def reserve(self,", "    def hold(self,")]},
    ),
    (
        "v6: add text.parse_price()",
        {
            "shop/text.py": [
                (
                    '    raise ValueError(f"not a quantity: {text!r}")\n',
                    '    raise ValueError(f"not a quantity: {text!r}")\n\n\n'
                    "def parse_price(text: str) -> float:\n"
                    '    text = text.strip().replace(",", ".")\n'
                    '    if text.startswith("EUR"):\n'
                    "        text = text[3:].strip()\n"
                    '    if text.count(".") > 1:\n'
                    '        raise ValueError("two decimal points")\n'
                    "    if not text:\n"
                    "        return 0.0\n"
                    "    value = float(text)\n"
                    "    if value < 0:\n"
                    '        raise ValueError("negative price")\n'
                    "    return round(value, 2)\n",
                )
            ]
        },
    ),
    (
        "v7: shipping() takes a required `express` (a signature change)",
        {
            "shop/pricing.py": [
                (
                    "def shipping(weight: float, country: str) -> float:",
                    "def shipping(weight: float, country: str, express: bool) -> float:",
                ),
                (
                    '        raise ValueError("too heavy to ship")\n    return round(base, 2)\n',
                    '        raise ValueError("too heavy to ship")\n'
                    "    if express:\n"
                    '        base *= 2 if country == "NL" else 1.5\n'
                    "    return round(base, 2)\n",
                ),
            ]
        },
    ),
    (
        "v8: add Box.rotate()",
        {
            "shop/geometry.py": [
                (
                    "        return self.width * self.height * self.depth\n",
                    "        return self.width * self.height * self.depth\n\n"
                    '    def rotate(self) -> "Box":\n'
                    "        if self.width == self.height:\n"
                    "            return self\n"
                    "        return Box(self.height, self.width, self.depth)\n",
                )
            ]
        },
    ),
    (
        "v9: parse_quantity: 'pair', and at most 500",
        {
            "shop/text.py": [
                (
                    '    if text == "dozen":\n        return 12\n',
                    '    if text == "dozen":\n        return 12\n'
                    '    if text in ("pair", "couple"):\n        return 2\n',
                ),
                ("        if value > 999:", "        if value > 500:"),
            ]
        },
    ),
    (
        "v10: add the class pricing.Coupon",
        {
            "shop/pricing.py": [
                (
                    "def shipping(",
                    "class Coupon:\n"
                    "    def __init__(self, code: str, percent: int):\n"
                    "        if not 0 < percent <= 50:\n"
                    '            raise ValueError("percent out of range")\n'
                    "        self.code = code\n"
                    "        self.percent = percent\n\n"
                    "    def apply(self, total: float) -> float:\n"
                    "        if total < 10:\n"
                    "            return total\n"
                    "        return round(total * (100 - self.percent) / 100, 2)\n\n\n"
                    "def shipping(",
                )
            ]
        },
    ),
    (
        "v11: Cart.total: bulk discount from 12 items, 15%",
        {
            "shop/cart.py": [
                (
                    "        if items >= 10:\n            amount *= 0.9\n",
                    "        if items >= 12:\n            amount *= 0.85\n",
                )
            ]
        },
    ),
    (
        "v12: cart.py: comments only",
        {
            "shop/cart.py": [
                ("    def remove(self, item: str) -> bool:\n", "    def remove(self, item: str) -> bool:\n        # one at a time\n"),
                ("        amount = items * price\n", "        amount = items * price  # before discounts\n"),
            ]
        },
    ),
]  # fmt: skip


def write_version(number: int, target: Path) -> None:
    """Write version ``number`` (1-based) of the shop's sources into ``target`` (tests kept)."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(SHOP / "pyproject.toml", target / "pyproject.toml")
    sources = {p.relative_to(SHOP).as_posix(): p.read_text() for p in SHOP.glob("shop/*.py")}
    for title, edits in VERSIONS[1:number]:
        for name, replacements in edits.items():
            for old, new in replacements:
                text = sources.get(name, "")
                if old == "":
                    sources[name] = new
                    continue
                if text.count(old) != 1:
                    raise ValueError(f"{title}: {old!r} is not exactly once in {name}")
                sources[name] = text.replace(old, new)
    for name, text in sources.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
