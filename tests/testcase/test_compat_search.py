"""Inputs that compatibility code tells apart, found within a fixed evaluation budget at a fixed
seed (issue 23: six's ``ensure_binary`` never got bytes, ``MovedAttribute`` never got None).

``binary`` checks its argument against module-level names bound to builtin types under a version
check (six's ``binary_type``); untyped, the argument never is bytes (random plain values are not),
and the names say nothing unless they are read (analysis.type_names). ``moves`` compares a
parameter with None that every call in the module passes a string: the strings outweigh the
comparison, and None was left out of the parameter's options. With both, every branch of each
toy is covered; without them the branch the toy is about is missed.
"""

from __future__ import annotations

import pytest
from worker.helpers import missed_by_mio

EVALUATIONS = 300

TOYS = {
    # types named once, on each side of a version check, then checked with isinstance
    "binary": """
        import sys

        PY3 = sys.version_info[0] == 3
        if PY3:
            binary_type = bytes
            text_type = str
            string_types = (str,)
        else:
            binary_type = str
            text_type = unicode  # noqa: F821
            string_types = (basestring,)  # noqa: F821

        def kind(s):
            if isinstance(s, binary_type):
                return "binary"
            if isinstance(s, string_types):
                return "text"
            return "other"
        """,
    # a parameter compared with None, which the module's own calls always pass a string
    "moves": """
        def resolve(name, target):
            if target is None:
                return name
            return target

        MOVES = [resolve("a", "b"), resolve("c", "d"), resolve("e", "f"), resolve("g", "h")]
        """,
}
UNITS = {"binary": "kind", "moves": "resolve"}


@pytest.mark.parametrize("toy", sorted(TOYS))
def test_every_branch_is_covered_within_the_budget(write_module, toy):
    assert missed_by_mio(write_module(toy, TOYS[toy]), UNITS[toy], EVALUATIONS) == []
