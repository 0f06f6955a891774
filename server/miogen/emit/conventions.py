"""The project's import conventions in generated tests: ``import datetime as dt`` where its ruff
configuration says so (flake8-import-conventions' aliases, ruff's ICN001), the tests' uses of
the module renamed to match (``dt.date(2024, 1, 2)``). Only plain ``import module`` lines of
the tests change, and only names used as ``module.attribute`` in code (not in strings).
"""

from __future__ import annotations

import dataclasses
import io
import tokenize
from collections.abc import Sequence

from miogen.emit.placement import GeneratedTest
from miogen.emit.style import Style
from miogen.emit.tokens import renamed


def conventional(
    imports: Sequence[str], tests: Sequence[GeneratedTest], style: Style
) -> tuple[list[str], list[GeneratedTest]]:
    """``imports`` and ``tests`` with the project's import aliases applied."""
    aliases = {
        module: alias
        for module, alias in style.import_aliases
        if f"import {module}" in imports and "." not in module and alias != module
    }
    taken = {name for test in tests for name in _names(test.source)}
    aliases = {module: alias for module, alias in aliases.items() if alias not in taken}
    if not aliases:
        return list(imports), list(tests)
    renamed = [
        f"{line} as {aliases[line.removeprefix('import ')]}"
        if line.removeprefix("import ") in aliases and line.startswith("import ")
        else line
        for line in imports
    ]
    changed = [
        dataclasses.replace(test, source=renamed_modules(test.source, aliases)) for test in tests
    ]
    return renamed, changed


def renamed_modules(source: str, aliases: dict[str, str]) -> str:
    """``source`` with each ``module.`` of ``aliases`` (a name, not an attribute, followed by a
    dot) written as its alias.

    >>> renamed_modules("x = datetime.date(1, 2, 3)  # datetime.\\n", {"datetime": "dt"})
    'x = dt.date(1, 2, 3)  # datetime.\\n'
    """
    return renamed(source, aliases, lambda before, after: before != "." and after == ".")


def _names(source: str) -> set[str]:
    """The names ``source`` uses, but keywords of calls (``localtime(dt=value)`` binds no
    ``dt``: the module may still go by that alias).

    >>> sorted(_names("result = localtime(dt=value)\\n"))
    ['localtime', 'result', 'value']
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return set()
    names, depth = set(), 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.NAME:
            after = tokens[index + 1] if index + 1 < len(tokens) else None
            keyword = depth > 0 and after is not None and after.string == "="
            if not keyword:
                names.add(token.string)
    return names
