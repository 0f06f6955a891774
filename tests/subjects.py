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

# A module whose private helpers other modules call (as ``dateutil.tz`` calls ``_parsetz`` of
# ``dateutil.parser``): ``describe`` reaches ``_clean`` only; ``_offset`` and ``_double`` are
# reached by no public unit of zones.py. The suite runs ``_offset`` through clock.py on one
# side only and ``_double`` completely: ``_offset`` is left with open targets.
ZONES = """\
def describe(name: str) -> str:
    if _clean(name):
        return "named"
    return "anonymous"


def _clean(name: str) -> str:
    return name.strip()


def _offset(text: str) -> int:
    if text.startswith("-"):
        return -int(text[1:])
    if text.startswith("+"):
        return int(text[1:])
    return 0


def _double(x: int) -> int:
    if x:
        return 2 * x
    return 0
"""
CLOCK = """\
from zones import _double, _offset


def shift(hours: str) -> int:
    return _offset(hours)


def twice(x: int) -> int:
    return _double(x)
"""
ZONES_SUITE = """\
from clock import shift, twice
from zones import describe


def test_describe():
    assert describe("utc") == "named"
    assert describe(" ") == "anonymous"


def test_shift():
    assert shift("+3") == 3


def test_twice():
    assert twice(2) == 4
    assert twice(0) == 0
"""

# A loop that ends for n >= 0, some of whose mutants (n -= 1 -> n += 1) loop for ever: mutants
# that time out (tests/assertions).
LOOPING = """
def count_down(n: int) -> int:
    steps = 0
    while n != 0:
        n -= 1
        steps += 1
    return steps
"""
