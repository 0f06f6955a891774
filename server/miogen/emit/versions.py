"""Spellings that depend on the Python version: the project's minimum (``requires-python``).

Literals are rendered in the form every Python has (``datetime.timezone.utc``); where the
project needs 3.11 or later (or declares no minimum and the tests are made on 3.11 or later)
the file gets the newer spelling its linters ask for (ruff's UP017: ``datetime.UTC``).

    >>> lower_bound(">=3.8, <4")
    (3, 8)
    >>> spelled("x = datetime.timezone.utc  # 'datetime.timezone.utc'\\n", (3, 11))
    "x = datetime.UTC  # 'datetime.timezone.utc'\\n"
"""

from __future__ import annotations

import configparser
import io
import re
import sys
import tokenize
from pathlib import Path

from miogen.emit.style import _config_root, _toml

_BOUND = re.compile(r"(>=|~=|==|>)\s*(\d+)\.(\d+)")
_OLD_UTC = ("datetime", ".", "timezone", ".", "utc")


def lower_bound(specifier: str) -> tuple[int, int] | None:
    """The least ``major.minor`` a ``requires-python`` specifier admits, None if it sets none."""
    found = [(int(m[2]), int(m[3]) + (1 if m[1] == ">" else 0)) for m in _BOUND.finditer(specifier)]
    return min(found) if found else None


def minimum_python(test_path: Path) -> tuple[int, int] | None:
    """The minimum Python of the project the test file belongs to (pyproject's
    ``requires-python``, else setup.cfg's ``python_requires``), None when it declares none."""
    root = _config_root(Path(test_path).resolve().parent)
    if root is None:
        return None
    specifier = _toml(root / "pyproject.toml").get("project", {}).get("requires-python")
    if not isinstance(specifier, str) and (root / "setup.cfg").exists():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(root / "setup.cfg", encoding="utf-8")
            specifier = parser.get("options", "python_requires", fallback=None)
        except (configparser.Error, UnicodeDecodeError):
            specifier = None
    return lower_bound(specifier) if isinstance(specifier, str) else None


def spelled(source: str, minimum: tuple[int, int] | None) -> str:
    """``source`` with ``datetime.timezone.utc`` as ``datetime.UTC`` where every Python the
    project supports has it (code only: strings and comments stay)."""
    if (minimum or sys.version_info[:2]) < (3, 11) or "timezone" not in source:
        return source
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    spans = []
    for index in range(len(tokens) - len(_OLD_UTC) + 1):
        window = tokens[index : index + len(_OLD_UTC)]
        if tuple(t.string for t in window) == _OLD_UTC and window[0].start[0] == window[-1].end[0]:
            spans.append((window[0].start, window[-1].end))
    for (row, start), (_, end) in reversed(spans):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + "datetime.UTC" + line[end:]
    return "".join(lines)
