"""Which generated tests go into a file, under which names: bodies already there are skipped."""

from __future__ import annotations

import ast
import copy
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from miogen.common.syntax import parse
from miogen.emit.text import LINE_BREAK

_DEF = r"^(\s*(?:async\s+)?def\s+){}\b"


@dataclass(frozen=True)
class GeneratedTest:
    """One generated test function: ``source`` starts with ``def name(`` (or its decorators)."""

    name: str
    source: str
    # A parametrized test made of several generated ones: (pytest id, original name) per case.
    cases: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Placement:
    """The tests that go in, under their final names, and what happened to the others."""

    sources: list[str]  # "\n"-terminated, final names
    added: list[str]
    renamed: dict[str, str]
    skipped: list[str]
    # names only skipped tests use: their imports are left out (the twins in the file have
    # theirs already)
    only_skipped: frozenset[str] = frozenset()


def place_tests(
    tests: Sequence[GeneratedTest], taken: set[str], existing: ast.Module | None = None
) -> Placement:
    """Skip tests whose body the ``existing`` file has already; rename the rest away from
    ``taken`` names."""
    taken = set(taken)
    bodies = test_bodies(existing) if existing is not None else set()
    placement = Placement([], [], {}, [])
    wanted: set[str] = set()  # names the tests use
    used: set[str] = set()  # names the tests that go in use (a rename changes no name used)
    for test in tests:
        source = LINE_BREAK.sub("\n", test.source).rstrip() + "\n"
        function = _parse_test(test.name, source)  # the test's one parse
        names = _names_used(function)
        wanted |= names
        body = _body_key(function)
        if body in bodies:
            placement.skipped.append(test.name)
            continue
        used |= names
        bodies.add(body)
        name = _free_name(test.name, taken)
        taken.add(name)
        if name != test.name:
            placement.renamed[test.name] = name
            source = _rename(source, function.lineno, test.name, name)
        placement.sources.append(source)
        placement.added.append(name)
    return dataclasses.replace(placement, only_skipped=frozenset(wanted - used))


def _names_used(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}


def _parse_test(name: str, source: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    try:
        body = parse(source).body
    except SyntaxError as error:
        raise ValueError(f"generated test {name} does not parse: {error}") from error
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        raise ValueError(f"generated test {name} is not a single function definition")
    if body[0].name != name:
        raise ValueError(f"generated test {name} defines {body[0].name}")
    return body[0]


def _body_key(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function without its name: two tests with equal keys test the same thing."""
    anonymous = copy.copy(function)
    anonymous.name = ""
    return ast.dump(anonymous)


def test_bodies(tree: ast.Module) -> set[str]:
    return {
        _body_key(node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    }


def _free_name(name: str, taken: set[str]) -> str:
    candidate, counter = name, 2
    while candidate in taken:
        candidate, counter = f"{name}_{counter}", counter + 1
    return candidate


def _rename(source: str, row: int, old: str, new: str) -> str:
    """Rename the ``def`` on ``row`` (1-based) and nothing else."""
    lines = source.split("\n")
    renamed = re.sub(_DEF.format(re.escape(old)), rf"\g<1>{new}", lines[row - 1], count=1)
    if renamed == lines[row - 1]:
        raise ValueError(f"cannot find 'def {old}' on line {row} of its source")
    lines[row - 1] = renamed
    return "\n".join(lines)
