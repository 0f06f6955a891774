"""The Python-2-only branches of bench.py2_branches: version guards and builtin feature checks."""

from __future__ import annotations

from bench.py2_branches import builtin_checks, python2_only, version_guards

SOURCE = """\
import sys
PY2 = sys.version_info[0] == 2
PY3 = sys.version_info[0] == 3
if PY3:
    text = str
else:
    text = unicode
    if isinstance(text, type):
        x = 1
if PY2:
    y = 2
if sys.version_info >= (3, 4):
    z = 3
if sys.platform == "win32":
    w = 4
print_ = getattr(object, "print", None)
if print_ is None:
    def print_(*args):
        if args:
            return 1
"""
RUNNING = (3, 11, 0, "final", 0)


def test_only_the_sides_python_2_takes_are_counted():
    guards = version_guards(SOURCE, RUNNING)
    missing = [[4, 7], [8, 9], [8, 10], [10, 11], [12, -1], [14, 15]]
    assert python2_only(missing, guards) == [(4, 7), (8, 9), (8, 10), (10, 11), (12, -1)]


def test_a_side_both_pythons_take_or_a_platform_check_is_not():
    guards = version_guards(SOURCE, RUNNING)
    assert python2_only([[4, 5], [10, 12], [12, 13], [14, 16]], guards) == []


def test_the_none_side_of_a_check_for_a_builtin_this_python_has_is_dead():
    checks = builtin_checks(SOURCE)
    assert python2_only([[17, 18], [19, 20], [19, -18], [17, -1]], checks) == [
        (17, 18), (19, 20), (19, -18)
    ]  # fmt: skip
