"""Mutants of one unit: found in the unit's own statements, even where the whole module reruns."""

from __future__ import annotations

import ast

from miogen.analysis.module import analyze_file
from miogen.assertions import mutants as mutants_module
from miogen.assertions.mutants import MutantFactory

MODULE = """
CACHE = {}


def first(x: int) -> int:
    if x > 0:
        return 1
    return 0


def second(x: int) -> int:
    if x < 0:
        return -1
    return 0
"""


def test_a_units_mutants_are_looked_for_in_its_own_statements_only(write_module, monkeypatch):
    """A module with module-level state reruns whole per mutant, but walking every statement of
    the module for each unit cost urllib.parse's 34 units a second."""
    path = write_module("pair", MODULE)
    model = analyze_file(path, "pair")
    visited: list[int] = []
    original = mutants_module._Mutator.visit

    def visit(self: object, node: ast.AST) -> object:
        if isinstance(node, ast.stmt) and node.col_offset == 0:
            visited.append(node.lineno)
        return original(self, node)  # type: ignore[arg-type]

    monkeypatch.setattr(mutants_module._Mutator, "visit", visit)
    unit = model.unit("second")
    factory = MutantFactory(model.source, str(path), unit, "pair", base=None)
    assert factory.mutants and all(unit.contains(m.line) for m in factory.mutants)
    assert len(factory.statements) == 3  # the whole module reruns
    assert visited and all(unit.contains(line) for line in visited)
