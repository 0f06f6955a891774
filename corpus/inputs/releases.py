"""A small typed module: positional-only parameters, optional ints, keyword-only flags."""

from __future__ import annotations

from typing import Optional


class Release:
    def __init__(self, major: int, minor: int = 0, label: str = "") -> None:
        if major < 0 or minor < 0:
            raise ValueError("negative version")
        self.major = major
        self.minor = minor
        self.label = label

    def bump(self, part: str, /, by: int = 1) -> Release:
        if part == "major":
            return Release(self.major + by)
        if part == "minor":
            return Release(self.major, self.minor + by, self.label)
        raise ValueError(f"unknown part {part}")

    def newer(self, other: Release) -> bool:
        return (self.major, self.minor) > (other.major, other.minor)


def parse(__text: str, strict: bool = False) -> Optional[Release]:
    parts = __text.split(".")
    if len(parts) != 2:
        if strict:
            raise ValueError("expected major.minor")
        return None
    if not all(p.isdigit() for p in parts):
        return None
    return Release(int(parts[0]), int(parts[1]))


class Store:
    def __init__(self, maxsize: Optional[int] = None, ratio: float = 0.5) -> None:
        if maxsize is not None and maxsize < 1:
            raise ValueError("maxsize must be positive")
        self.maxsize = maxsize
        self.ratio = ratio
        self.items: dict[str, float] = {}

    def put(self, key: str, value: float, *, overwrite: bool = False) -> int:
        if key in self.items and not overwrite:
            raise KeyError(key)
        if self.maxsize is not None and len(self.items) >= self.maxsize:
            raise OverflowError("store full")
        self.items[key] = value * self.ratio
        return len(self.items)

    def scaled(self, factor: float) -> list[float]:
        return [v * factor for v in self.items.values()]

    def limit(self, count: int) -> int:
        if not isinstance(count, int):
            raise TypeError("count must be an int")
        return min(count, len(self.items))
