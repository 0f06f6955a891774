"""Parameters whose type the code checks: ``isinstance(text, str)``, or a helper that does.

Real code guards its entry points (``if not isinstance(text, str): raise TypeError``, or
``if not is_string(text)`` where the helper checks). A search that only passes values of the
annotated type never takes the guard's other side; a parameter marked here also gets, now and
then, a value of another type (testcase.sampling).
"""

from __future__ import annotations

import ast

from miogen.analysis.inference import FunctionNode, ModuleFacts

TYPE_CHECKS = frozenset({"isinstance", "issubclass", "type", "callable"})
MAX_DEPTH = 3  # helpers followed from the function: a check deeper down is not a guard of it


def type_checked(node: FunctionNode, name: str, facts: ModuleFacts, depth: int = 0) -> bool:
    """Whether ``node`` checks the type of its parameter ``name``, itself or through a module
    function it passes the parameter to (as the same positional or keyword argument)."""
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        position = _position(call, name)
        if position is None or not isinstance(call.func, ast.Name):
            continue
        callee = call.func.id
        if callee in TYPE_CHECKS and position == 0:
            return True
        found = facts.callables.get(("", callee))
        constructor = facts.callables.get((callee, "__init__"))
        if found is None and constructor is not None:  # a class: its __init__ takes self first
            found = constructor
            position = position + 1 if isinstance(position, int) else position
        if found is None or found[1] is None or depth >= MAX_DEPTH or found[1] is node:
            continue
        parameter = _parameter_at(found[1], position)
        if parameter is not None and type_checked(found[1], parameter, facts, depth + 1):
            return True
    return False


def _position(call: ast.Call, name: str) -> int | str | None:
    """Where ``name`` is passed as a whole: its position, or its keyword; None when it is not."""
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Name) and argument.id == name:
            return index
    for keyword in call.keywords:
        if isinstance(keyword.value, ast.Name) and keyword.value.id == name and keyword.arg:
            return keyword.arg
    return None


def _parameter_at(node: FunctionNode, position: int | str) -> str | None:
    arguments = node.args
    if isinstance(position, str):
        names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
        return position if position in names else None
    positional = arguments.posonlyargs + arguments.args
    return positional[position].arg if position < len(positional) else None
