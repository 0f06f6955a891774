"""Characters of the Unicode classes a module compares, found within a fixed evaluation budget
at a fixed seed (issue 23: idna's bidi, joiner and numeral rules stayed uncovered, since random
text holds no Arabic letter, Arabic-Indic digit or virama).

Each toy branches on a property of the characters of a string argument: a right-to-left label
that must start with an Arabic letter and end with one or an Arabic number, numerals of two
kinds mixed, a joiner after a virama, the entries of a table keyed by code points. With analysis.unicodeprops' characters (inserted, and
strings made of them: testcase.propertytext) every branch of each toy is covered at this budget
and seed; without them (``PROPERTY_PROBABILITY`` 0 and no property characters) each toy misses
a branch.
"""

from __future__ import annotations

import pytest
from miogen.analysis import unicodeprops
from miogen.testcase import propertytext, sampling
from worker.helpers import missed_by_mio

EVALUATIONS = 400

TOYS = {
    # bidi rules 1 and 3: the first character and the last one of a right-to-left label
    "rtl": """
        import unicodedata

        def rtl_label(label: str) -> str:
            if not label or unicodedata.bidirectional(label[0]) != "AL":
                return "not arabic"
            if unicodedata.bidirectional(label[-1]) in ("AL", "AN"):
                return "ends well"
            return "ends badly"
        """,
    # bidi rule 4: European and Arabic-Indic digits in one label
    "numerals": """
        import unicodedata

        def numerals(label: str) -> str:
            first = ""
            for ch in label:
                direction = unicodedata.bidirectional(ch)
                if direction in ("AN", "EN"):
                    if not first:
                        first = direction
                    elif first != direction:
                        return "mixed"
            return first or "none"
        """,
    # a zero-width joiner is allowed after a virama (combining class 9)
    "virama": """
        import unicodedata

        VIRAMA = 9

        def joiners(label: str) -> str:
            for i, ch in enumerate(label):
                if ord(ch) == 0x200D:
                    if i > 0 and unicodedata.combining(label[i - 1]) == VIRAMA:
                        return "after virama"
                    return "bare"
            return "none"
        """,
    # a table keyed by code points: the characters whose entry is a value the code compares
    "joining": """
        JOINING_TYPES = {0x0628: "D", 0x0622: "R", 0x064B: "T", 0xA872: "L", 0x0710: "R"}

        def joining(label: str) -> str:
            for ch in label:
                kind = JOINING_TYPES.get(ord(ch))
                if kind == "T":
                    continue
                if kind in ("L", "D"):
                    return "joins"
                return "does not join"
            return "no letter"
        """,
}
UNITS = {"rtl": "rtl_label", "numerals": "numerals", "virama": "joiners", "joining": "joining"}


@pytest.mark.parametrize("toy", sorted(TOYS))
def test_every_branch_is_covered_within_the_budget(write_module, toy):
    assert missed_by_mio(write_module(toy, TOYS[toy]), UNITS[toy], EVALUATIONS) == []


@pytest.mark.parametrize("toy", sorted(TOYS))
def test_without_property_characters_a_branch_is_missed(write_module, toy, monkeypatch):
    monkeypatch.setattr(sampling, "PROPERTY_PROBABILITY", 0.0)
    monkeypatch.setattr(unicodeprops, "characters_of", lambda source, path="": "")
    assert missed_by_mio(write_module(toy, TOYS[toy]), UNITS[toy], EVALUATIONS) != []


# bidi rules 1, 2 and 4 together: a right-to-left first character, then only characters of
# the classes a right-to-left label allows, with numerals of one kind
RTL_RULES = """
    import unicodedata

    def rtl_rules(label: str) -> str:
        if not label or unicodedata.bidirectional(label[0]) not in ("R", "AL"):
            return "ltr"
        number = ""
        for ch in label:
            d = unicodedata.bidirectional(ch)
            if d not in ("R", "AL", "AN", "EN", "NSM"):
                return "bad character"
            if d in ("AN", "EN"):
                if number and number != d:
                    return "mixed numbers"
                number = d
        return "rtl"
    """
GROUPED_SEED, GROUPED_EVALUATIONS = 3, 200


def test_texts_of_one_line_s_classes_pass_a_check_on_every_character(write_module, monkeypatch):
    path = write_module("rtlrules", RTL_RULES)
    assert missed_by_mio(path, "rtl_rules", GROUPED_EVALUATIONS, GROUPED_SEED) == []
    monkeypatch.setattr(propertytext, "GROUPED_PROBABILITY", 0.0)
    assert missed_by_mio(path, "rtl_rules", GROUPED_EVALUATIONS, GROUPED_SEED) != []


# a label must be in Normalization Form C: no random text is, but for a combining mark that
# happens to follow a letter
NFC = """
    import unicodedata

    def nfc_label(label: str) -> str:
        if unicodedata.normalize("NFC", label) != label:
            raise ValueError("not in NFC")
        return label
    """
NFC_EVALUATIONS = 20


def test_text_that_a_normalization_changes_is_found(write_module, monkeypatch):
    path = write_module("nfc", NFC)
    assert missed_by_mio(path, "nfc_label", NFC_EVALUATIONS) == []
    caches = (
        unicodeprops.characters_for,
        unicodeprops.characters_of,
        unicodeprops.groups_of,
        unicodeprops.line_groups,
    )
    monkeypatch.setattr(unicodeprops, "_unnormalized", lambda form: "")
    for cached in caches:
        cached.cache_clear()
    try:
        assert missed_by_mio(path, "nfc_label", NFC_EVALUATIONS) != []
    finally:
        monkeypatch.undo()
        for cached in caches:
            cached.cache_clear()
