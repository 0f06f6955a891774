"""Match objects as a test's inputs: ``match = re.fullmatch(r"...", "...")``, then
``assert match is not None`` (which also tells type checkers it is a ``re.Match``)."""

from __future__ import annotations

import re

from miogen.assertions.observation import quoted
from miogen.testcase.model import Statement


def is_match(statement: Statement) -> bool:
    """A literal statement whose value is a match of a text pattern."""
    value = statement.value
    return (
        statement.kind == "value"
        and isinstance(value, re.Match)
        and isinstance(value.string, str)
        and isinstance(value.re.pattern, str)
    )


def match_lines(match: re.Match[str], taken: set[str]) -> tuple[str, list[str]]:
    """A new variable's name, and the lines that bind the match to it."""
    variable, counter = "match", 2
    while variable in taken:
        variable, counter = f"match_{counter}", counter + 1
    taken.add(variable)
    return variable, [f"{variable} = {match_call(match)}", f"assert {variable} is not None"]


def match_call(match: re.Match[str]) -> str:
    """``re.fullmatch(pattern, string[, flags])`` as the search made the match."""
    flags = re.RegexFlag(match.re.flags & ~re.UNICODE)
    arguments = [pattern_literal(match.re.pattern), quoted(match.string)]
    return f"re.fullmatch({', '.join(arguments + ([repr(flags)] if flags else []))})"


def pattern_literal(pattern: str) -> str:
    """A raw string where the pattern has backslashes and one can spell it, else quoted."""
    trailing = len(pattern) - len(pattern.rstrip("\\"))
    if "\\" in pattern and '"' not in pattern and pattern.isprintable() and trailing % 2 == 0:
        return f'r"{pattern}"'
    return quoted(pattern)
