"""Module-level state that each call changes: results depend on the order of the tests."""

SEEN: list[int] = []
COUNT = 0


def record(x: int) -> int:
    global COUNT
    COUNT += 1
    SEEN.append(x)
    if x > 10:
        return len(SEEN)
    return COUNT
