"""Tests of a module whose name is no identifier (``my-mod.py``, ``my mod.py``).

Python imports such a module (``importlib.import_module("my-mod")`` finds ``my-mod.py`` on
``sys.path`` as it finds any other), but no ``import`` statement can name it. Each test (and the
module-state fixture) then binds the names it uses at its start, from the module Python imports:

    sign = importlib.import_module("my-mod").sign
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence

from miogen.common.syntax import parse
from miogen.emit.placement import GeneratedTest

IMPORTLIB = "import importlib"


def importable(module_name: str) -> bool:
    """Whether an ``import`` statement can name the module (every dotted part an identifier)."""
    return all(part.isidentifier() for part in module_name.split("."))


def bind_in_tests(
    tests: Sequence[GeneratedTest], module_name: str, names: Sequence[str], alias: str = ""
) -> list[GeneratedTest]:
    """``tests`` with the names of ``names`` (and ``alias``: the module itself) that each uses
    bound at the start of its body from ``importlib.import_module(module_name)``."""
    return [_bound(test, module_name, [*names, alias] if alias else names, alias) for test in tests]


def _bound(
    test: GeneratedTest, module_name: str, names: Sequence[str], alias: str
) -> GeneratedTest:
    tree = parse(test.source)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
    used = {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
    wanted = [name for name in names if name in used]
    if not wanted:
        return test
    first = function.body[0]
    indent = " " * first.col_offset
    module = f"importlib.import_module({json.dumps(module_name)})"
    lines = [
        f"{indent}{name} = {module}" if name == alias else f"{indent}{name} = {module}.{name}"
        for name in wanted
    ]
    decorators: list[ast.expr] = getattr(first, "decorator_list", [])
    row = min([first.lineno, *(node.lineno for node in decorators)]) - 1
    source = test.source.split("\n")
    source[row:row] = lines
    return GeneratedTest(test.name, "\n".join(source), test.cases)
