"""Lengths and characters the module's conditions look for, found within a fixed evaluation
budget at a fixed seed (issue 23: idna's ``len(label) > 63`` stayed uncovered while mutations
grew strings one character at a time).

Each toy needs one step: a length the source compares with, a doubled string (which keeps its
short labels), a code point ``ord(...)`` is compared with, a bytes constant as a prefix of a
string, a character of a Unicode class (combining, right-to-left), a list stretched to a length.
With the steps it covers every branch of each toy at this budget and seed; with a toy's step
taken out (its sampling and its mutation part; for ``too_long`` both the shaped lengths and the
doubling) it misses the toy's branch.
"""

from __future__ import annotations

import pytest
from miogen.testcase.strings import Shapes, shapes_of
from worker.helpers import missed_by_mio

EVALUATIONS = 400  # at seed 0 every toy is covered; before issue 23's steps none was

TOYS = {
    # a length the source compares with, beyond the pool lengths (at most 64)
    "too_long": """
        def valid_length(name: str, trailing_dot: bool) -> bool:
            if len(name) > (254 if trailing_dot else 253):
                return False
            return True
        """,
    # a string repeated to a length: padding with letters makes one long label
    "domains": """
        MAX_DOMAIN = 120

        def check_domain(domain: str) -> str:
            labels = domain.split(".")
            if any(len(label) > 12 for label in labels):
                raise ValueError("label too long")
            if len(domain) > MAX_DOMAIN:
                return "too long"
            return "ok"
        """,
    # a code point ord(...) is compared with
    "joiners": """
        def kind(text: str) -> str:
            for ch in text:
                cp = ord(ch)
                if cp == 0x200C:
                    return "joiner"
            return "plain"
        """,
    # a bytes constant as a prefix of a str
    "alabels": """
        PREFIX = b"xn--"

        def is_alabel(label: str) -> bool:
            if label.lower().encode("ascii", "replace").startswith(PREFIX):
                return True
            return False
        """,
    # a combining mark (a letter and one is not NFC)
    "normal": """
        import unicodedata

        def check_nfc(label: str) -> str:
            if unicodedata.normalize("NFC", label) != label:
                return "not nfc"
            return "nfc"
        """,
    # a right-to-left letter
    "bidi": """
        import unicodedata

        def direction(label: str) -> str:
            if label and unicodedata.bidirectional(label[0]) == "R":
                return "rtl"
            return "ltr"
        """,
    # a list repeated to a length the source compares with
    "batches": """
        def batch(items: list[int]) -> str:
            if len(items) > 60:
                return "split"
            return "one"
        """,
}
UNITS = {"too_long": "valid_length", "domains": "check_domain", "joiners": "kind",
         "alabels": "is_alabel", "normal": "check_nfc", "bidi": "direction",
         "batches": "batch"}  # fmt: skip


@pytest.mark.parametrize("toy", sorted(TOYS))
def test_every_branch_is_covered_within_the_budget(write_module, toy):
    assert missed_by_mio(write_module(toy, TOYS[toy]), UNITS[toy], EVALUATIONS) == []


def test_lengths_and_code_points_come_from_the_conditions():
    source = """
LIMIT = 9
def f(s, t, u):
    cp = ord(s[3])
    if len(s) > (63 if t else 253) or len(u) == LIMIT or 0x660 <= cp <= 0x669:
        return s[5:10]
    return ord(t) == 0x200C
"""
    shapes = shapes_of(source)
    assert shapes.lengths == (3, 4, 5, 8, 9, 10, 62, 63, 64, 252, 253, 254)
    assert shapes.characters == "\u0660\u0669\u200c"
    assert shapes_of("def f(:") == Shapes()
