"""analysis.source: the one syntax tree the analysis readers share, and parameter names."""

from __future__ import annotations

import ast
import uuid

import pytest
from miogen.analysis import (
    bisects,
    formats,
    indexes,
    measures,
    numeric_uses,
    regexes,
    together,
    unicodeprops,
)
from miogen.analysis.source import parameter_names, parsed


def a_module() -> str:
    """A text no cache has seen (the readers cache by text)."""
    return f'''
import re
from bisect import bisect_left

TABLE = ((0x41, "L"), (0x61, "R"))
PATTERN = re.compile(r"[a-z]+\\d")
TAG = "{uuid.uuid4().hex}"


def check(label, pos, width):
    if len(label) > 63:
        return None
    if ord(label[pos]) == 0x200D and width > len(label):
        return format(pos, width) + str(bisect_left(TABLE, (ord(label[pos]),)))
    return PATTERN.match(label)
'''


def test_the_readers_of_one_text_parse_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    source = a_module()
    calls: list[str] = []
    real_parse = ast.parse

    def counting_parse(text: str, *args: object, **kwargs: object) -> ast.Module:
        calls.append(text)
        return real_parse(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ast, "parse", counting_parse)
    found = (
        regexes.uses_of(source),
        indexes.pairs_of(source),
        together.pairs_of(source),
        formats.format_parameters(source),
        bisects.groups_of(source),
        unicodeprops.uses_of(source),
        measures.shapes_of(source),
        numeric_uses.numeric_uses(source),
    )
    assert found[0] and found[1] and found[6] and found[7], "the toy has what they look for"
    assert calls.count(source) == 1


def test_a_text_that_does_not_parse_gives_every_reader_nothing() -> None:
    source = a_module() + "\ndef broken(:\n"
    assert parsed(source) is None
    assert regexes.uses_of(source) == ()
    assert indexes.pairs_of(source) == {}
    assert together.pairs_of(source) == {}
    assert formats.format_parameters(source) == {}


def test_parameter_names_are_what_a_caller_passes_in_order() -> None:
    tree = ast.parse("def f(self, a, /, b, *args, c, **kw): pass")
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert parameter_names(function) == ["a", "b", "c"]
