"""Parameter types written in docstrings: Google, NumPy and Sphinx styles, read into TypeSpecs."""

from __future__ import annotations

import re

from miogen.analysis.typespec import ANY, TypeReader, TypeSpec, union
from miogen.common.syntax import parse_expression

_SPHINX_TYPE = re.compile(r":type\s+\*{0,2}(\w+)\s*:\s*(.+)")
_SPHINX_PARAM = re.compile(r":param\s+([^:]+?)\s+\*{0,2}(\w+)\s*:")
_GOOGLE_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Keyword Args)\s*:\s*$")
_GOOGLE_ENTRY = re.compile(r"^\s*\*{0,2}(\w+)\s*\(([^)]*)\)\s*:")
_NUMPY_ENTRY = re.compile(r"^\s*\*{0,2}(\w+)\s*:\s*(.+?)\s*$")
_WORDS = {
    "string": "str",
    "strings": "str",
    "integer": "int",
    "integers": "int",
    "boolean": "bool",
    "number": "float | int",
    "numbers": "float | int",
    "mapping": "dict",
    "sequence": "list",
    "iterable": "list",
    "function": "Callable",
    "callable": "Callable",
    "array-like": "list",
    "array_like": "list",
}


def parameter_types(docstring: str) -> dict[str, str]:
    """The type text given for each parameter; the first style that names it wins.

    >>> parameter_types(":param text: what\\n:type text: str")
    {'text': 'str'}
    >>> parameter_types("Args:\\n    when (datetime.date): the day\\n")
    {'when': 'datetime.date'}
    >>> parameter_types("Parameters\\n----------\\nlow : float, optional\\n    bound\\n")
    {'low': 'float, optional'}
    """
    found: dict[str, str] = {}
    for match in _SPHINX_TYPE.finditer(docstring):
        found.setdefault(match[1], match[2].strip())
    for match in _SPHINX_PARAM.finditer(docstring):
        found.setdefault(match[2], match[1].strip())
    lines = docstring.expandtabs().splitlines()
    for name, text in [*_google(lines), *_numpy(lines)]:
        found.setdefault(name, text)
    return found


def _google(lines: list[str]) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    inside, indent = False, 0
    for line in lines:
        if _GOOGLE_HEADER.match(line):
            inside, indent = True, _indent(line)
            continue
        if inside and line.strip() and _indent(line) <= indent:
            inside = False
        match = _GOOGLE_ENTRY.match(line) if inside else None
        if match:
            entries.append((match[1], match[2]))
    return entries


def _numpy(lines: list[str]) -> list[tuple[str, str]]:
    entries: list[tuple[str, str]] = []
    inside, indent = False, 0
    for previous, line in zip(["", *lines], lines, strict=False):
        if set(line.strip()) == {"-"} and previous.strip() in ("Parameters", "Other Parameters"):
            inside, indent = True, _indent(previous)
            continue
        if inside and set(line.strip()) == {"-"}:  # the next section's underline
            inside = False
        match = _NUMPY_ENTRY.match(line) if inside and _indent(line) == indent else None
        if match:
            entries.append((match[1], match[2]))
    return entries


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def read_type_text(text: str, reader: TypeReader) -> TypeSpec:
    """A TypeSpec for prose such as "int or None", "list of str", "float, optional".

    >>> str(read_type_text("list of str, optional", TypeReader(set(), {})))
    'union[list[str], none]'
    """
    text = text.strip().rstrip(".")
    optional = bool(re.search(r"\boptional\b", text))
    text = re.sub(r",?\s*(optional|default[^,]*)\b.*$", "", text).strip()
    text = re.sub(r"[\w-]+", lambda m: _WORDS.get(m[0].lower(), m[0]), text)
    text = re.sub(r"\b(list|tuple|set)\s+of\s+([\w.]+)", r"\1[\2]", text)
    text = re.sub(r"\s+or\s+|\s*,\s*(?![^\[]*\])", " | ", text)
    try:
        spec = reader.read(parse_expression(text).body) if text else ANY
    except (SyntaxError, ValueError):
        spec = ANY
    if spec == ANY:
        return ANY
    return union([spec, TypeSpec("none")]) if optional else spec
