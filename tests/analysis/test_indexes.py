"""Integer parameters that index a sequence parameter (analysis.indexes)."""

from __future__ import annotations

import textwrap

from miogen.analysis import indexes


def pairs(source: str) -> dict[int, tuple[tuple[str, str], ...]]:
    return indexes.pairs_of(textwrap.dedent(source))


def test_a_subscript_by_a_parameter_and_its_neighbours_pairs_them():
    found = pairs(
        """
        def contextj(label: str, pos: int) -> bool:
            if pos > 0 and label[pos - 1] == "a":
                return True
            return label[pos] == "b"

        def neighbour(items, at):
            return items[at + 1]
        """
    )
    assert found == {2: (("pos", "label"),), 7: (("at", "items"),)}


def test_methods_pair_their_own_parameters_not_self():
    found = pairs(
        """
        class Text:
            def at(self, text, i):
                return text[i] + self[i]
        """
    )
    assert found == {3: (("i", "text"),)}


def test_no_pair_for_locals_rebound_names_nested_functions_or_other_indexes():
    found = pairs(
        """
        def rebound(label, pos):
            label = label.lower()
            return label[pos]

        def local(label):
            i = 0
            return label[i]

        def nested(label, pos):
            def inner(other):
                return label[pos]
            return inner

        def scaled(label, pos):
            return label[pos * 2] + label[pos:]
        """
    )
    assert found == {}


def test_a_source_that_does_not_parse_has_none():
    assert indexes.pairs_of("def broken(:\n") == {}
