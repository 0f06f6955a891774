"""Strings of the module's property characters (testcase.propertytext)."""

from __future__ import annotations

import random

from miogen.testcase import propertytext


def test_texts_are_short_and_mostly_of_the_characters():
    rng = random.Random(0)
    texts = [propertytext.text("\u05d0\u0660", rng) for _ in range(300)]
    assert all(1 <= len(t) <= propertytext.MAX_LENGTH for t in texts)
    own = sum(c in "\u05d0\u0660" for t in texts for c in t)
    assert own > 0.6 * sum(len(t) for t in texts)


def test_grouped_texts_start_from_one_group_and_go_on_in_another():
    rng = random.Random(1)
    groups = ("\u05d0", "\u0660")
    texts = [propertytext.text("x", rng, groups) for _ in range(300)]
    # the first character of one group, then the other group's: never without the groups
    assert any(t[0] == "\u05d0" and "\u0660" in t[1:] for t in texts)
    assert not any("\u05d0" in t for t in (propertytext.text("x", rng) for _ in range(300)))


def test_grouped_texts_hold_a_sought_character_after_the_first_now_and_then():
    rng = random.Random(2)
    groups = ("\u05d0", "\u0660")
    texts = [propertytext.text("x", rng, groups, "\u200c") for _ in range(300)]
    assert all(1 <= len(t) <= propertytext.MAX_LENGTH for t in texts)
    with_joiner = [t for t in texts if "\u200c" in t]
    assert 0.1 * len(texts) < len(with_joiner) < 0.5 * len(texts)
    assert all(t.index("\u200c") > 0 and t.count("\u200c") == 1 for t in with_joiner)
    assert any(t[0] == "\u05d0" and "\u0660" in t for t in with_joiner)
