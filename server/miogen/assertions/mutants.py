"""Mutants of the unit under test: relational, arithmetic, constant and condition changes."""

from __future__ import annotations

import ast
import types
from collections.abc import Iterator
from dataclasses import dataclass

from miogen.analysis.model import Unit

# The subsuming relational mutants (digest section 5.1, after Kaminski et al.).
RELATIONAL = {
    ast.Eq: (ast.LtE, ast.GtE),
    ast.NotEq: (ast.Lt, ast.Gt),
    ast.Lt: (ast.LtE, ast.NotEq),
    ast.LtE: (ast.Lt, ast.Eq),
    ast.Gt: (ast.GtE, ast.NotEq),
    ast.GtE: (ast.Gt, ast.Eq),
}
# Each operator to its inverse and to one of another kind (never ** or shifts: a mutant that
# computes 2**(10**6) is a hang, not a fault anyone makes).
ARITHMETIC = {
    ast.Add: (ast.Sub, ast.Mult),
    ast.Sub: (ast.Add, ast.Mult, ast.FloorDiv),
    ast.Mult: (ast.Div, ast.Add),
    ast.Div: (ast.Mult, ast.Sub),
    ast.FloorDiv: (ast.Mult, ast.Div),
    ast.Mod: (ast.FloorDiv, ast.Mult),
}


@dataclass(frozen=True)
class Mutant:
    index: int
    line: int
    operator: str  # ROR | AOR | CRP (constant) | COND (negated condition) | LCR (and/or)
    description: str


class _Mutator(ast.NodeTransformer):
    """Walks the tree in a fixed order; counts mutation points; applies the one asked for."""

    def __init__(self, unit: Unit, apply: int | None = None) -> None:
        self.unit = unit
        self.apply = apply
        self.found: list[Mutant] = []

    def _point(self, node: ast.AST, operator: str, description: str) -> bool:
        """Register a mutation point; True when it is the one to apply."""
        index = len(self.found)
        self.found.append(Mutant(index, node.lineno, operator, description))
        return index == self.apply

    def _inside(self, node: ast.AST) -> bool:
        return self.unit.contains(getattr(node, "lineno", -1))

    def visit_Compare(self, node: ast.Compare):
        self.generic_visit(node)
        if not self._inside(node):
            return node
        for position, op in enumerate(node.ops):
            for replacement in RELATIONAL.get(type(op), ()):
                if self._point(node, "ROR", f"{type(op).__name__} -> {replacement.__name__}"):
                    node.ops[position] = replacement()
        return node

    def visit_BinOp(self, node: ast.BinOp):
        self.generic_visit(node)
        if not self._inside(node):
            return node
        for replacement in ARITHMETIC.get(type(node.op), ()):
            if self._point(node, "AOR", f"{type(node.op).__name__} -> {replacement.__name__}"):
                node.op = replacement()
        return node

    def visit_BoolOp(self, node: ast.BoolOp):
        self.generic_visit(node)
        if self._inside(node):
            swapped = ast.Or if isinstance(node.op, ast.And) else ast.And
            if self._point(node, "LCR", f"{type(node.op).__name__} -> {swapped.__name__}"):
                node.op = swapped()
        return node

    def visit_Constant(self, node: ast.Constant):
        value = node.value
        if self._inside(node) and isinstance(value, int | float) and not isinstance(value, bool):
            if self._point(node, "CRP", f"{value!r} -> {value + 1!r}"):
                return ast.copy_location(ast.Constant(value + 1), node)
        return node

    def _negate_test(self, node):
        self.generic_visit(node)
        if self._inside(node) and self._point(node, "COND", "condition negated"):
            node.test = ast.copy_location(ast.UnaryOp(ast.Not(), node.test), node.test)
        return node

    visit_If = _negate_test
    visit_While = _negate_test
    visit_IfExp = _negate_test


def list_mutants(source: str, unit: Unit) -> list[Mutant]:
    mutator = _Mutator(unit)
    mutator.visit(ast.parse(source))
    return mutator.found


def mutant_code(source: str, path: str, unit: Unit, index: int) -> types.CodeType:
    tree = _Mutator(unit, apply=index).visit(ast.parse(source))
    return compile(ast.fix_missing_locations(tree), path, "exec", dont_inherit=True)


def load_mutant(
    source: str, path: str, unit: Unit, index: int, module_name: str
) -> types.ModuleType:
    """The module with mutant ``index`` applied, as a fresh module object (not in sys.modules)."""
    module = types.ModuleType(module_name)
    module.__file__ = path
    module.__package__ = module_name.rpartition(".")[0]
    exec(mutant_code(source, path, unit, index), module.__dict__)
    return module


def sample_mutants(mutants: list[Mutant], limit: int) -> Iterator[Mutant]:
    """At most ``limit`` mutants, spread evenly over the list (deterministic)."""
    if len(mutants) <= limit:
        yield from mutants
        return
    step = len(mutants) / limit
    for position in range(limit):
        yield mutants[int(position * step)]
