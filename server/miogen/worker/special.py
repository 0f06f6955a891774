"""Runs the statement kinds beyond plain calls: operators, property setters, passed functions."""

from __future__ import annotations

from collections.abc import Callable

from miogen.analysis.special import SPECIAL_METHODS
from miogen.testcase import callables
from miogen.testcase.model import Statement

KINDS = frozenset({"operator", "assign", "callable"})


def split_arguments(
    statement: Statement, values: list[object]
) -> tuple[list[object], dict[str, object]]:
    """Positional values ("/x" and "*items" names) and keyword values, in the statement's order."""
    positional: list[object] = []
    keywords: dict[str, object] = {}
    for name, index in statement.args:
        if name[:1] in "/*":
            positional.append(values[index])
        else:
            keywords[name] = values[index]
    return positional, keywords


def run(statement: Statement, values: list[object], resolve: Callable[[str], object]) -> object:
    """The value of an ``operator``, ``assign`` or ``callable`` statement."""
    if statement.kind == "callable":
        return callables.resolve(statement.name, str(statement.value), resolve)
    receiver = values[statement.receiver]
    if statement.kind == "assign":
        setattr(receiver, statement.name, values[statement.args[0][1]])
        return None
    special = SPECIAL_METHODS[statement.name]
    if statement.name == "__call__":
        positional, keywords = split_arguments(statement, values)
        return special.run(receiver, *positional, **keywords)
    return special.run(receiver, *(values[index] for _, index in statement.args))
