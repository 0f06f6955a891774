"""Mutants of one unit: found in the unit's own statements, even where the whole module reruns."""

from __future__ import annotations

import ast
import types

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


SPANS = """\
import functools


def scaled(x: int, factor: int = 2 * 3) -> int:
    total = (x
             + 1)
    if x > 10:
        return total * factor

    def inner(y: int = x - 1) -> int:
        return y

    return inner() + functools.reduce(lambda a, b: a * b, [x, 4], 1)


@functools.lru_cache(maxsize=128 + 1)
def cached(x: int) -> int:
    return x // 2
"""


def test_a_mutants_lines_run_it_and_its_definition_has_none(write_module):
    """The lines one of which runs whenever the mutant runs: its statement's first line to the
    expression's last; None for what runs as the function is defined (a default, a decorator)."""
    from miogen.assertions.mutants import list_mutants, mutant_lines

    path = write_module("spans.py", SPANS)
    model = analyze_file(path, "spans")
    assert model.source == SPANS
    found = {}
    for name in ("scaled", "cached"):
        unit = model.unit(name)
        for mutant in list_mutants(SPANS, unit):
            span = mutant_lines(SPANS, unit, mutant.index)
            found.setdefault((mutant.line, mutant.operator), set()).add(span)
    assert found[(4, "AOR")] == found[(4, "CRP")] == {None}  # the default 2 * 3, at the def
    # (x + 1) over two lines: from the assignment's first line to the expression's last
    assert found[(5, "AOR")] == found[(6, "CRP")] == {(5, 6)}
    assert found[(7, "ROR")] == found[(7, "CRP")] == found[(7, "COND")] == {(7, 7)}
    assert found[(8, "AOR")] == {(8, 8)}
    assert found[(10, "AOR")] == {(10, 10)}  # inner's default: computed as scaled runs
    assert found[(13, "AOR")] == {(13, 13)}  # in a lambda, in a call
    assert found[(16, "AOR")] == found[(16, "CRP")] == {None}  # the decorator's argument
    assert found[(18, "AOR")] == {(18, 18)}


def test_one_parse_serves_every_mutant_in_any_order_as_a_fresh_parse_would(write_module):
    """``MutantTexts`` applies each mutant to its one tree and undoes it: the texts and lines
    of every unit's mutants, asked for in any order, are those of a fresh parse per mutant."""
    from miogen.assertions.mutants import MutantTexts, list_mutants, mutant_lines, mutant_source

    path = write_module("spans.py", SPANS)
    model = analyze_file(path, "spans")
    asked = [
        (unit, mutant.index)
        for unit in (model.unit("scaled"), model.unit("cached"))
        for mutant in list_mutants(SPANS, unit)
    ]
    texts = MutantTexts(SPANS)
    for unit, index in [*reversed(asked), *asked]:
        assert texts.text(unit, index) == mutant_source(SPANS, unit, index)
        assert texts.lines(unit, index) == mutant_lines(SPANS, unit, index)
    assert texts.text(*asked[0]) != SPANS


PLAIN_VALUES = """\
def remaining(count: int) -> str:
    return f"{count - 1} left"


def share(total: float) -> float:
    return total / 2


def known(value: object) -> bool:
    return value is not None


def listed(name: str, names: list[str]) -> bool:
    return name in names


def greet(name: str, shout: bool = False) -> str:
    return name.upper() if shout else name


def scaled(x: float) -> float:
    return x + 1.0
"""


def mutated(path, unit_name: str, description: str) -> list[types.ModuleType]:
    """The modules of ``unit_name``'s mutants described so (``"Sub -> BitXor"``)."""
    model = analyze_file(path, "plain_values")
    factory = MutantFactory(model.source, str(path), model.unit(unit_name), "plain_values")
    return [factory.load(m.index) for m in factory.mutants if m.description == description]


def test_mutants_a_plain_value_hides_are_there_to_be_killed(write_module):
    """Issue 24: the mutation score under cosmic-ray fell as shrinking made values plain, by
    operators miogen had no mutant of: at ``count = 1`` ``count - 1`` and ``count ^ 1`` are
    both 0, at ``total = 2.0`` ``/`` and ``//`` agree, and a flag's default had no mutant at
    all. With a mutant each, a test that tells them apart is kept. ``is not`` and ``in`` keep
    none (as equal-to-line goals they cost branches: ``mutants``' docstring)."""
    path = write_module("plain_values", PLAIN_VALUES)
    [parity] = mutated(path, "remaining", "Sub -> BitXor")
    assert parity.remaining(1) == "0 left" and parity.remaining(2) == "3 left"
    [floor] = mutated(path, "share", "Div -> FloorDiv")
    assert floor.share(2.0) == 1.0 and floor.share(1.0) == 0.0
    assert not mutated(path, "known", "IsNot -> Is") and not mutated(path, "listed", "In -> NotIn")
    [flag] = mutated(path, "greet", "False -> True")
    assert flag.greet("hi") == "HI" and flag.greet("hi", shout=False) == "hi"
    # Only with an int literal: ``x + 1.0`` has no parity to hide, ``x ^ 1.0`` only raises.
    assert not mutated(path, "scaled", "Add -> BitXor")
