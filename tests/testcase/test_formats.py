"""Format specs and format strings for the parameters that are such (issue 23: parse's
``extract_format`` takes ``[[fill]align][sign][0][width][.precision][type]`` apart by hand, and
its ``Parser`` escapes a fill that is a pattern's metacharacter, which random text never is)."""

from __future__ import annotations

import random
import re
import string

import pytest
from miogen.analysis.formats import SPEC, STRING
from miogen.analysis.model import Parameter
from miogen.analysis.typespec import TypeSpec
from miogen.testcase import formats
from miogen.testcase.formats import for_parameter, format_string, spec
from worker.helpers import missed_by_mio

GRAMMAR = re.compile(r"(?:.?[<>=^])?[-+ ]?#?0?(?:\d+)?[,_]?(?:\.\d+)?[bcdeEfFgGnosxX%]?")
TRIES = 400


def test_specs_follow_the_mini_language_and_vary_in_every_part():
    rng = random.Random(0)
    specs = [spec(rng) for _ in range(TRIES)]
    assert all(GRAMMAR.fullmatch(s) for s in specs)
    with_fill = [s for s in specs if len(s) > 1 and s[1] in "<>=^"]
    assert {s[0] for s in with_fill} & set(r".\+?*[](){}^$")  # metacharacters as fills
    assert any("." in s for s in specs) and any(s[-1:] == "f" for s in specs)


def test_format_strings_are_valid_with_fields_whose_names_meet():
    rng = random.Random(0)
    texts = [format_string(rng) for _ in range(TRIES)]
    names = []
    for text in texts:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
        assert 1 <= len(fields) <= formats.MAX_FIELDS
        names.append(fields)
    # the same field as a name and as an identifier: ``{a.b}`` and ``{a_b}``, ``{a[0]}``, ``{a_0_}``
    assert any("a.b" in n and "a_b" in n for n in names)
    assert any(any("[" in f for f in n) and any(f.endswith("_") for f in n) for n in names)


def test_only_a_parameter_found_to_be_a_format_gets_format_texts():
    rng = random.Random(0)
    kinds = (("spec", SPEC), ("template", STRING))
    given = {
        name: [for_parameter(kinds, Parameter(name, TypeSpec(kind)), rng) for _ in range(50)]
        for name, kind in (("spec", "str"), ("template", "any"), ("other", "str"))
    }
    assert all(t is None or GRAMMAR.fullmatch(t) for t in given["spec"])
    assert any(t and "{" in t for t in given["template"])
    assert given["other"] == [None] * 50
    assert for_parameter(kinds, Parameter("spec", TypeSpec("int")), rng) is None


EVALUATIONS = 300
TOYS = {
    # a spec parsed by hand: the escaped fill needs a fill, an alignment and a metacharacter
    "spec_by_hand": """
        def padding(spec: str) -> str:
            fill = align = ""
            if spec[:1] in "<>=^":
                align, spec = spec[0], spec[1:]
            elif spec[1:2] and spec[1] in "<>=^":
                fill, align, spec = spec[0], spec[1], spec[2:]
            if fill and fill in ".*+?$^()[]":
                fill = "\\\\" + fill
            if align == "^" and spec.isdigit():
                return fill + "centered"
            return fill + align
        """,
    # a format string split by a pattern that finds its fields, kept in ``self`` first
    "fields_by_pattern": """
        import re

        FIELD = re.compile(r"\\{([\\w.\\[\\]]*)(?::([^}]*))?\\}")

        class Template:
            def __init__(self, text: str) -> None:
                self.text = text

            def groups(self) -> list[str]:
                seen = {}
                for name, spec in FIELD.findall(self.text):
                    group = re.sub(r"\\W", "_", name)
                    if group in seen and seen[group] != name:
                        raise KeyError(name)
                    seen[group] = name
                    if spec.endswith("d"):
                        seen[group] = spec
                return list(seen)
        """,
}
UNITS = {"spec_by_hand": "padding", "fields_by_pattern": "Template"}


@pytest.mark.parametrize("toy", sorted(TOYS))
def test_every_branch_is_covered_with_format_texts_and_not_without(write_module, toy, monkeypatch):
    path = write_module(toy, TOYS[toy])
    assert missed_by_mio(path, UNITS[toy], EVALUATIONS) == []
    monkeypatch.setattr(formats, "FORMAT_PROBABILITY", 0.0)
    assert missed_by_mio(path, UNITS[toy], EVALUATIONS) != []
