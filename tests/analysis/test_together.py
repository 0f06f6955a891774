"""Parameters a body uses together (compares, or passes to one call): where sibling values go."""

from __future__ import annotations

import textwrap

from miogen.analysis.together import pairs_of


def partners(source: str) -> dict[int, dict[str, frozenset[str]]]:
    return pairs_of(textwrap.dedent(source))


def test_compared_parameters_and_parameters_passed_to_one_call_are_partners():
    found = partners(
        """
        from datetime import datetime

        def rename(old, new, count):
            if old == new:
                return count
            return count + 1

        def parse(text, fmt, strict=False):
            return datetime.strptime(text, format=fmt)

        def inside(key, table):
            return key in table
        """
    )
    assert found[4] == {"old": {"new"}, "new": {"old"}}
    assert found[9] == {"text": {"fmt"}, "fmt": {"text"}}
    assert found[12] == {"key": {"table"}, "table": {"key"}}


def test_a_call_of_the_objects_own_method_and_one_parameter_make_no_pair():
    found = partners(
        """
        class Config:
            def get(self, section, option, raw=False):
                self._check(section, option)
                self.interpolation.before_get(self, section, option)
                return len(section) + len(option) + raw

            def put(self, section, value):
                print(section)
                return value
        """
    )
    assert found == {}


def test_a_module_that_does_not_parse_has_none():
    assert partners("def f(:\n") == {}
