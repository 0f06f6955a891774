"""Small subjects that several test folders use (tests/ is on ``sys.path``: pytest's default
``prepend`` import mode puts a conftest's folder there)."""

SIGN = """\
def sign(x: int) -> int:
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0
"""
