"""Parameters the code uses as format specs or format strings, found in its source."""

from __future__ import annotations

import textwrap

from miogen.analysis.formats import SPEC, STRING, format_parameters

SOURCE = """
import re
import string

FIELD = re.compile(r"\\{(\\w*)(?::([^}]*))?\\}")
WORD = re.compile(r"\\w+")


def show(value, spec, width):
    return format(value, spec) + str(width)


def nested(value, spec):
    return f"{value:{spec}}"


def fill(template, values, other):
    return template.format(*values) + str.format(other)


def by_formatter(text):
    return list(string.Formatter().parse(text))


def parse_spec(spec, name):
    if spec[0] in "<>=^":
        return spec[1:]
    if name in "abc":
        return name
    return spec


def words(text, other):
    return WORD.findall(text) + [other]


def passes_on(fmt, text):
    return Template(fmt, text)


class Template:
    def __init__(self, pattern, text):
        self._pattern = pattern
        self.text = text

    def fields(self):
        return FIELD.findall(self._pattern)

    def __format__(self, format_spec):
        return format_spec
"""


def found() -> dict[str, dict[str, str]]:
    """Function name -> parameter -> kind, for SOURCE."""
    source = textwrap.dedent(SOURCE)
    lines = source.splitlines()
    named = {}
    for line, pairs in format_parameters(source).items():
        name = lines[line - 1].split("def ")[1].split("(")[0]
        named[name] = dict(pairs)
    return named


def test_specs_and_format_strings_are_told_by_what_the_code_does_with_them():
    assert found() == {
        "show": {"spec": SPEC},
        "nested": {"spec": SPEC},
        "fill": {"template": STRING, "other": STRING},
        "by_formatter": {"text": STRING},
        "parse_spec": {"spec": SPEC},
        "passes_on": {"fmt": STRING},
        "__init__": {"pattern": STRING},
        "__format__": {"format_spec": SPEC},
    }


def test_source_that_does_not_parse_has_none():
    assert format_parameters("def f(:\n") == {}
