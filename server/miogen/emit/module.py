"""The text of a generated test module: its imports and test functions, and names made apart.

The same text goes into the verification's scratch file (``run.verify``), the file the CLI
writes and the editor's WorkspaceEdit (``run.write``).
"""

from __future__ import annotations

import builtins
import dataclasses
import re
from collections.abc import Sequence

from miogen.common.records import TestRecord
from miogen.emit.loading import IMPORTLIB, bind_in_tests, importable
from miogen.emit.merge import GeneratedTest
from miogen.emit.parametrize import parametrize
from miogen.emit.state import MODULE_ALIAS, state_fixture
from miogen.emit.tokens import renamed

_DEF = re.compile(r"^(\s*(?:async\s+)?def\s+)\w+\b", re.MULTILINE)


def module_text(
    tests: Sequence[TestRecord], module_name: str, module_state: bool
) -> tuple[list[str], list[GeneratedTest]]:
    """Import lines and test functions for a set of generated tests of one module.

    A module with module-level state gets an autouse fixture that gives each test a fresh state,
    as the worker did while it searched (a test never depends on another test's leftovers).
    Tests that differ only in their literals become one parametrized test.
    """
    names = sorted({name for test in tests for name in test.imports})
    aliases = builtin_aliases(names, module_name)  # (an importable module's: see below)
    extra = {line for test in tests for line in test.extra_imports}
    functions = parametrize([GeneratedTest(t.name, t.source) for t in tests])
    if any(function.cases for function in functions):
        extra.add("import pytest")
    if module_state and tests:
        fixture_imports, fixture = state_fixture(module_name)
        extra |= set(fixture_imports)
        functions.insert(0, fixture)
    if not importable(module_name):  # my-mod.py: each test binds its names (emit/loading.py)
        extra = {line for line in extra if not line.endswith(f" as {MODULE_ALIAS}")}
        extra.add(IMPORTLIB)
        functions = bind_in_tests(functions, module_name, names, MODULE_ALIAS)
        return sorted(extra), functions
    if aliases:
        functions = [
            dataclasses.replace(f, source=renamed_names(f.source, aliases)) for f in functions
        ]
        names = [f"{name} as {aliases[name]}" if name in aliases else name for name in names]
    imports = sorted(extra) + ([f"from {module_name} import {', '.join(names)}"] if names else [])
    return imports, functions


def builtin_aliases(names: Sequence[str], module_name: str) -> dict[str, str]:
    """The module's names that would shadow a builtin in the test file, each with its alias:
    ``format`` of ``pkg.calendar`` is imported as ``calendar_format`` (a test that calls the
    unit never reads as one that calls the builtin; linters flag the shadowing, ruff's A004).

    >>> builtin_aliases(["Calendar", "format"], "pkg.calendar")
    {'format': 'calendar_format'}
    """
    prefix = module_name.rsplit(".", 1)[-1].strip("_")
    return {name: f"{prefix}_{name}" for name in names if hasattr(builtins, name)}


def renamed_names(source: str, aliases: dict[str, str]) -> str:
    """``source`` with each name of ``aliases`` written as its alias where it stands for the
    name itself: not an attribute (``x.format``) nor a keyword argument (``f(format=1)``).

    >>> renamed_names("assert format(x.format, format=1) == 'format'\\n", {"format": "f_"})
    "assert f_(x.format, format=1) == 'format'\\n"
    """
    return renamed(source, aliases, lambda before, after: before != "." and after != "=")


def unique_names(groups: Sequence[Sequence[TestRecord]]) -> list[list[TestRecord]]:
    """Tests of one module from separate jobs, renamed where their names clash.

    One job names its tests apart already; units of a module that ran in separate jobs (CTG's
    input seeding) may both have a ``test_area_returns_2``.
    """
    taken: set[str] = set()
    renamed: list[list[TestRecord]] = []
    for group in groups:
        renamed.append([])
        for test in group:
            name, counter = test.name, 2
            while name in taken:
                name, counter = f"{test.name}_{counter}", counter + 1
            taken.add(name)
            if name != test.name:
                source = _DEF.sub(rf"\g<1>{name}", test.source, count=1)
                test = dataclasses.replace(test, name=name, source=source)
            renamed[-1].append(test)
    return renamed
