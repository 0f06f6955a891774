"""Characters in the rows of sorted tables the code searches with bisect (analysis.bisects;
issue 23: idna's ``uts46_remap`` takes a branch only for a character whose row of the UTS 46
table, found with ``bisect_left``, has the status "I")."""

from __future__ import annotations

import textwrap

from miogen.analysis import bisects, unicodeprops
from worker.helpers import missed_by_mio

# The table split into functions, as generated data modules are; the ignored row is one no
# random text falls in.
ROWS = """
    import bisect


    def _part_0():
        return [(0x0, "X"), (0x30, "V"), (0x3A, "X"), (0x41, "M", "a"), (0x42, "M", "b"), (0x43, "V")]


    def _part_1():
        return [(0x2000, "X"), (0x1D173, "I"), (0x1D17B, "X"), (0x1D400, "M", "z"), (0x1D401, "X")]


    TABLE = tuple(_part_0() + _part_1())


    def remap(text: str) -> str:
        out = ""
        for char in text:
            row = TABLE[bisect.bisect_right(TABLE, (ord(char), "Z")) - 1]
            if row[1] == "V":
                out += char
            elif row[1] == "M":
                out += row[2]
            elif row[1] != "I":
                raise ValueError(char)
        return out
    """
# 300 evaluations, seeds 0-9: the ignored row's branch covered at every seed; without the
# table's characters at none
EVALUATIONS, SEEDS = 300, (0, 1)


def test_a_character_per_status_of_a_table_the_code_bisects():
    source = textwrap.dedent(ROWS)
    [(line, characters)] = bisects.groups_of(source)
    assert source.splitlines()[line - 1].strip().startswith("row = TABLE[bisect.bisect_right")
    # per status the first row's character and the first letter's, mark's or digit's: "X"
    # 0x0 and U+1D17B (a combining mark), "V" "0" (a digit), "M" "A", "I" U+1D173
    assert characters == "\x00\U0001d17b0A\U0001d173"
    assert "\U0001d173" in unicodeprops.characters_of(source)


def test_a_table_of_a_module_of_the_package_imported_in_the_function(tmp_path):
    (tmp_path / "data.py").write_text("TABLE = ((0, 'X'), (0x41, 'V'), (0xAD, 'I'), (0xAE, 'X'))\n")
    source = textwrap.dedent(
        """
        from bisect import bisect_left


        def status(char: str) -> str:
            from .data import TABLE
            point = ord(char)
            return TABLE[bisect_left(TABLE, (point, 'Z')) - 1][1]
        """
    )
    [(_, characters)] = bisects.groups_of(source, str(tmp_path / "core.py"))
    assert characters == "\x00A\xad"  # "X" (0xAE is no letter), "V", "I"
    assert bisects.groups_of(source) == ()  # no path: the package's modules are not known


def test_no_characters_for_a_key_that_is_no_code_point_or_a_table_that_is_no_constant():
    for call in ("bisect.bisect_left(TABLE, (len(text), 'Z'))", "bisect.bisect_left(rows, 3)"):
        source = f"import bisect\nTABLE = ((0, 'X'), (5, 'V'))\n\ndef f(text, rows):\n    {call}\n"
        assert bisects.groups_of(source) == ()
    plain = (
        "import bisect\nTABLE = tuple(range(9))\n\ndef f(c):\n    bisect.bisect(TABLE, ord(c))\n"
    )
    assert bisects.groups_of(plain) == ()  # range(...) is no literal


def test_a_table_of_plain_code_points_gives_a_few_spread_over_it():
    points = ", ".join(str(p) for p in range(0x100, 0x200, 2))
    source = f"import bisect\nSTARTS = [{points}]\n\ndef f(c):\n    bisect.bisect(STARTS, ord(c))\n"
    [(_, characters)] = bisects.groups_of(source)
    assert len(characters) == bisects.SPREAD and characters[0] == "\u0100"
    assert all(ord(c) % 2 == 0 for c in characters)


def test_the_ignored_row_is_reached_within_the_budget(write_module):
    path = write_module("rows", ROWS)
    assert [missed_by_mio(path, "remap", EVALUATIONS, seed) for seed in SEEDS] == [[], []]


def test_without_the_tables_characters_it_is_not(write_module, monkeypatch):
    monkeypatch.setattr(bisects, "groups_of", lambda source, path="": ())
    path = write_module("rows", ROWS)
    assert all(missed_by_mio(path, "remap", EVALUATIONS, seed) for seed in SEEDS)
