"""The Unicode properties a module compares, and characters that have them
(analysis.unicodeprops): which calls count (the module's names for ``unicodedata``'s functions,
prefixes of their results, names and helper functions carrying them), which constants they are
compared with, and that each character found has the value asked for."""

from __future__ import annotations

import textwrap
import unicodedata

import pytest
from miogen.analysis.unicodeprops import (
    NORMALIZE,
    PER_VALUE,
    TRUTHY,
    PropertyUse,
    characters_for,
    characters_of,
    groups_of,
    uses_of,
)

MODULE = textwrap.dedent("""
    import unicodedata
    import unicodedata as ud
    from unicodedata import category as cat

    VIRAMA = 9
    RTL = ("R", "AL")

    def _combining_class(cp):
        v = unicodedata.combining(chr(cp))
        return v

    def rules(label, pos):
        direction = ud.bidirectional(label[0])
        if direction in RTL:
            return 1
        if "L" == direction:
            return 2
        if cat(label[1])[0] == "M":
            return 3
        if _combining_class(ord(label[pos])) == VIRAMA:
            return 4
        if unicodedata.mirrored(label[2]):
            return 5
        if len(label) == 3 or label == "x":
            return 6
        return 0
    """)


def test_uses_follow_names_prefixes_and_helpers():
    uses = {(u.function, u.value, u.prefix) for u in uses_of(MODULE)}
    assert uses == {
        ("bidirectional", "R", False),
        ("bidirectional", "AL", False),
        ("bidirectional", "L", False),
        ("category", "M", True),
        ("combining", 9, False),
        ("mirrored", TRUTHY, False),
    }
    assert all(isinstance(u, PropertyUse) and u.line > 0 for u in uses_of(MODULE))


def test_no_uses_without_unicodedata_or_in_broken_source():
    assert uses_of("def f(c):\n    return category(c) == 'M'\n") == ()
    assert uses_of("import unicodedata\ndef f(:") == ()


@pytest.mark.parametrize(
    ("function", "value", "prefix"),
    [
        ("bidirectional", "R", False),
        ("bidirectional", "AL", False),
        ("bidirectional", "AN", False),
        ("bidirectional", "NSM", False),
        ("category", "M", True),
        ("category", "Lo", False),
        ("combining", 9, False),
        ("east_asian_width", "F", False),
        ("decimal", 7, False),
    ],
)
def test_found_characters_have_the_value(function, value, prefix):
    found = characters_for(function, value, prefix)
    assert 1 <= len(found) <= PER_VALUE
    measure = getattr(unicodedata, function)
    for char in found:
        result = measure(char, None) if function == "decimal" else measure(char)
        assert (result[:1] if prefix else result) == value


def test_a_letter_mark_or_digit_is_preferred_and_unknown_values_give_none():
    # bidirectional "AN": U+0600 (a format character) comes first; U+0660 is a digit
    assert any(unicodedata.category(c) == "Nd" for c in characters_for("bidirectional", "AN"))
    assert characters_for("bidirectional", "no such class") == ""
    assert all(unicodedata.mirrored(c) for c in characters_for("mirrored", TRUTHY))


def test_characters_of_a_module():
    found = characters_of(MODULE)
    assert len(set(found)) == len(found)
    directions = {unicodedata.bidirectional(c) for c in found}
    assert {"R", "AL", "L"} <= directions
    assert any(unicodedata.combining(c) == 9 for c in found)
    assert any(unicodedata.category(c).startswith("M") for c in found)
    assert characters_of("x = 1\n") == ""


def test_code_point_tables_of_the_module_and_its_package(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "data.py").write_text("kinds = {0x41: 84, 0x628: 68, 0x5d0: 82, 0x300: 84}\n")
    source = textwrap.dedent("""
        from . import data
        from .data import kinds as same

        LOCAL = {0x3b1: "greek", 0x20: "space"}

        def f(label, i):
            kind = data.kinds.get(ord(label[i]))
            if kind == ord("T"):
                return 1
            if same[ord(label[0])] in [ord("D")]:
                return 2
            return LOCAL.get(ord(label[1])) == "greek"
        """)
    path = str(package / "mod.py")
    uses = {(u.function, u.value) for u in uses_of(source)}
    assert uses == {
        ("table:data.kinds", ord("T")),
        ("table:same", ord("D")),
        ("table:LOCAL", "greek"),
    }
    # T: the first key with it, U+0041, and the first letter/mark/digit: the same; D: U+0628
    assert characters_of(source, path) == "A\u0628\u03b1"
    assert characters_of(source) == "\u03b1"  # without the file only the module's own table


def test_groups_hold_the_characters_of_one_line_each():
    source = textwrap.dedent("""
        import unicodedata

        def f(label):
            if unicodedata.bidirectional(label[0]) not in ("R", "AL"):
                return 0
            for ch in label:
                if unicodedata.bidirectional(ch) not in ("R", "AL", "AN", "NSM"):
                    return 1
            return 2
        """)
    first, every = groups_of(source)
    assert {unicodedata.bidirectional(c) for c in first} == {"R", "AL"}
    assert {unicodedata.bidirectional(c) for c in every} == {"R", "AL", "AN", "NSM"}
    assert characters_of(source) == "".join(dict.fromkeys(first + every))


def test_a_normalization_with_a_constant_form_asks_for_text_it_changes():
    source = textwrap.dedent("""
        import unicodedata
        from unicodedata import is_normalized as normal

        def check(label):
            if unicodedata.normalize("NFC", label) != label:
                raise ValueError(label)
            if unicodedata.normalize("NFC", label) == "x":
                return normal("NFKD", label)
            return unicodedata.normalize(label, "NFC")  # not a constant form
        """)
    uses = [(u.function, u.value, u.line) for u in uses_of(source)]
    assert uses == [(NORMALIZE, "NFC", 6), (NORMALIZE, "NFC", 8), (NORMALIZE, "NFKD", 9)]
    for form in ("NFC", "NFKD"):
        found = characters_for(NORMALIZE, form)
        assert 1 <= len(found) <= PER_VALUE
        assert all(unicodedata.normalize(form, c) != c for c in found)
        assert any(unicodedata.category(c).startswith("L") for c in found)
    assert set(characters_for(NORMALIZE, "NFC")) <= set(characters_of(source))
