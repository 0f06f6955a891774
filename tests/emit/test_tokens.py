"""Token rewrites: the chosen tokens take their new text, every other character stays."""

from __future__ import annotations

import tokenize

import pytest
from miogen.emit.conventions import renamed_modules
from miogen.emit.render import plain_decimals
from miogen.emit.tokens import replaced_tokens, source_tokens


def renamed(source: str, old: str, new: str) -> str:
    """Every name ``old`` in the code of ``source`` written ``new``, last token first."""
    tokens = source_tokens(source)
    chosen = [(t, new) for t in tokens if t.type == tokenize.NAME and t.string == old]
    return replaced_tokens(source, reversed(chosen))


def test_replacements_on_one_line_of_other_lengths():
    assert renamed("x = old(old, old.y)  # old\n", "old", "n") == "x = n(n, n.y)  # old\n"
    assert renamed("a = old + old\n", "old", "longer") == "a = longer + longer\n"


def test_replacements_on_several_lines_keep_the_lines_between():
    source = "def f():\n    old = 1\n\n    return (old +\n            old)\n"
    assert renamed(source, "old", "value") == (
        "def f():\n    value = 1\n\n    return (value +\n            value)\n"
    )


def test_a_token_over_several_lines_is_replaced_whole():
    source = 'x = """one\ntwo"""; y = x\n'
    [text] = [t for t in source_tokens(source) if t.type == tokenize.STRING]
    assert replaced_tokens(source, [(text, "'both'")]) == "x = 'both'; y = x\n"


def test_strings_f_strings_and_comments_keep_the_name():
    lines = [
        's = "old.x" + """old',
        '  old"""',
        't = f"old {{old}} {s}" + old  # old.y',
        "u = old.z",
    ]
    expected = [*lines[:2], lines[2].replace("+ old", "+ new"), "u = new.z"]
    assert renamed("\n".join(lines) + "\n", "old", "new") == "\n".join(expected) + "\n"


def test_rows_are_counted_as_tokenize_counts_them():
    """A form feed in a comment or a line separator in a string does not end a line for
    tokenize (it does for ``str.splitlines``): the next lines' tokens are where it says."""
    source = "# page\x0cbreak\nx = 'a\u2028b'\nold = old\n"
    assert renamed(source, "old", "new") == "# page\x0cbreak\nx = 'a\u2028b'\nnew = new\n"


def test_a_source_that_does_not_tokenize_stays_as_it_is():
    source = "x = (old\n"
    assert source_tokens(source) == []
    assert replaced_tokens(source, []) == source
    assert renamed_modules(source + "datetime.x\n", {"datetime": "dt"}) == source + "datetime.x\n"
    assert plain_decimals('x = (Decimal("1")\n') == 'x = (Decimal("1")\n'


def test_overlapping_replacements_are_refused():
    name = source_tokens("old\n")[0]
    with pytest.raises(ValueError, match="overlapping"):
        replaced_tokens("old\n", [(name, "a"), (name, "b")])


def test_the_two_rewrites_of_emitted_tests_touch_code_only():
    source = (
        'def test_x():\n    s = "datetime.date" + f"datetime.{1}"  # datetime.\n'
        "    assert datetime.date(1, 2, 3) == x.datetime.y\n"
        '    assert f(decimal.Decimal("7"), "Decimal(\\"7\\")") == decimal.Decimal("-12")\n'
    )
    assert renamed_modules(source, {"datetime": "dt"}) == source.replace(
        "datetime.date(1", "dt.date(1"
    )
    assert plain_decimals(source) == source.replace('Decimal("7")', "Decimal(7)", 1).replace(
        'Decimal("-12")', "Decimal(-12)"
    )
