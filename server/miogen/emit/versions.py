"""Spellings that depend on the Python version: the project's minimum (``requires-python``).

Literals are rendered in the form every Python has (``datetime.timezone.utc``); where the
project needs 3.11 or later (or declares no minimum and the tests are made on 3.11 or later)
the file gets the newer spelling its linters ask for (ruff's UP017: ``datetime.UTC``). The
minimum is the project's ``Style.minimum_python`` (``emit.style``).

    >>> spelled("x = datetime.timezone.utc  # 'datetime.timezone.utc'\\n", (3, 11))
    "x = datetime.UTC  # 'datetime.timezone.utc'\\n"
"""

from __future__ import annotations

import io
import sys
import tokenize

_OLD_UTC = ("datetime", ".", "timezone", ".", "utc")


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
