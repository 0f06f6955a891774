"""Import conventions in emitted tests: the alias, unless a test binds that name itself."""

from __future__ import annotations

from miogen.emit.conventions import conventional
from miogen.emit.placement import GeneratedTest
from miogen.emit.style import Style

LOCALTIME = GeneratedTest(
    "test_localtime",
    "def test_localtime():\n"
    "    value = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)\n"
    "    assert localtime(dt=value) == value\n",
)
BOUND = GeneratedTest(
    "test_bound",
    "def test_bound():\n    dt = datetime.date(2000, 1, 1)\n    assert since(dt) == 0\n",
)


def test_a_keyword_of_the_aliass_name_binds_nothing():
    """``localtime(dt=value)`` (stdlib_email_utils) names a parameter, not a variable of the
    test: ``datetime`` still goes as ``dt`` (ruff's ICN001); a test that assigns ``dt``
    keeps the plain import."""
    imports, tests = conventional(["import datetime"], [LOCALTIME], Style())
    assert imports == ["import datetime as dt"]
    assert "dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)" in tests[0].source
    assert "localtime(dt=value)" in tests[0].source
    imports, tests = conventional(["import datetime"], [LOCALTIME, BOUND], Style())
    assert imports == ["import datetime"] and tests == [LOCALTIME, BOUND]
