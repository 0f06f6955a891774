"""An infinite loop in Python."""


def spin(x: int) -> int:
    if x > 10:
        while True:
            pass
    return x
