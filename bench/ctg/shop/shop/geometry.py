"""Parcels: boxes that fit into boxes, and the classic triangle classifier."""


class Box:
    def __init__(self, width: int, height: int, depth: int):
        if min(width, height, depth) <= 0:
            raise ValueError("sides must be positive")
        self.width = width
        self.height = height
        self.depth = depth

    def volume(self) -> int:
        return self.width * self.height * self.depth

    def fits_in(self, other: "Box") -> bool:
        mine = sorted((self.width, self.height, self.depth))
        theirs = sorted((other.width, other.height, other.depth))
        if mine == theirs:
            return False
        return all(a <= b for a, b in zip(mine, theirs, strict=True))


def classify_triangle(a: int, b: int, c: int) -> str:
    if a <= 0 or b <= 0 or c <= 0:
        return "invalid"
    if a + b <= c or a + c <= b or b + c <= a:
        return "not a triangle"
    if a == b and b == c:
        return "equilateral"
    if a == b or b == c or a == c:
        return "isosceles"
    if a * a + b * b == c * c:
        return "right"
    return "scalene"
