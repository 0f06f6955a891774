"""The static structure the criteria need: callables, controlling branches, basic blocks."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from miogen.analysis.model import ModuleModel, Signature, Target, Unit
from miogen.analysis.targets import CodeMap
from miogen.analysis.typespec import TypeSpec
from miogen.assertions.mutants import overlaps
from miogen.instrument.counting import is_docstring
from miogen.testcase.model import Statement

_COMPOUND: tuple[type[ast.stmt], ...] = (
    ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.With, ast.AsyncWith,
    ast.Match,
)  # fmt: skip
_TERMINATORS: tuple[type[ast.stmt], ...] = (ast.Return, ast.Raise, ast.Break, ast.Continue)


@dataclass(frozen=True, slots=True)
class UnitCallable:
    """A callable a test can call directly: a function unit, or a class's constructor or method."""

    key: str  # "classify", "Triangle.__init__", "Triangle.area"
    kind: str  # as analysis' Signature.kind: function, method, property, constructor ...
    start: int  # lines of its ``def``; (0, 0) for a constructor the class does not write
    end: int
    returns: TypeSpec

    def contains(self, line: int) -> bool:
        return self.start <= line <= self.end


@dataclass
class Structure:
    """What one unit looks like to the criteria, read from the module's AST once.

    ``control[line]`` names the branch targets whose outcome a statement on ``line`` runs under
    (the innermost ``if``/``while``/``for``/``case`` around it, or the other side of an earlier
    guard clause; empty: free of dependencies): the goals' control-dependence graph. ``blocks`` are the basic blocks
    of the unit's functions as (first line, last line): a run of statements in one body that
    ends at a compound statement's header (where the condition is evaluated) or at a
    return/raise/break/continue. ``called_inside`` are the callables the module's own code
    refers to, which can run without the test calling them.
    """

    unit: Unit
    callables: dict[str, UnitCallable]
    control: dict[int, tuple[int, ...]] = field(default_factory=dict)
    blocks: list[tuple[int, int]] = field(default_factory=list)
    lines: set[int] = field(default_factory=set)
    called_inside: set[str] = field(default_factory=set)
    owner: dict[int, int] = field(default_factory=dict)  # statement line -> its function's def line
    # Callables whose call returns before their body runs (generators, coroutines): a test's
    # statement that calls one runs none of its branches.
    deferred: set[str] = field(default_factory=set)

    def callable_of(self, statement: Statement) -> str | None:
        """The key of the unit's callable a test statement calls, if it calls one."""
        kind, name, unit = statement.kind, statement.name, self.unit.name
        if self.unit.kind == "function":
            key = name if kind == "call" and name == unit else None
        elif kind == "construct":
            key = f"{unit}.__init__" if name == unit else None
        elif kind == "call":
            key = name if name.startswith(f"{unit}.") else None
        elif kind in ("method", "property"):
            key = f"{unit}.{name}"
        else:
            key = None
        return key if key in self.callables else None

    def callable_at(self, line: int) -> str | None:
        """The public callable whose ``def`` holds ``line`` (the innermost one)."""
        holding = [c for c in self.callables.values() if c.start and c.contains(line)]
        return max(holding, key=lambda c: c.start).key if holding else None


def read_structure(model: ModuleModel, unit: Unit, tree: ast.Module, code: CodeMap) -> Structure:
    """Read the unit's callables, control map, blocks and internal references from ``tree``."""
    functions = _unit_functions(tree, unit)
    callables = _callables(model, unit, functions)
    structure = Structure(unit, callables)
    outcomes = _outcomes(unit.targets)
    reader = _Reader(structure, outcomes, code)
    for function in functions:
        reader.function(function, function.lineno)
    structure.called_inside = _called_inside(tree, callables, unit)
    lazy = {(f.lineno, f.end_lineno or f.lineno) for f in functions if _deferred(f)}
    structure.deferred = {k for k, c in callables.items() if (c.start, c.end) in lazy}
    return structure


def _deferred(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether calling ``function`` returns a generator or coroutine without running its body:
    ``async def``, or a ``yield`` of its own (not of a nested function, lambda or class)."""
    if isinstance(function, ast.AsyncFunctionDef):
        return True
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    pending: list[ast.AST] = [s for s in function.body if not isinstance(s, nested)]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        pending += [c for c in ast.iter_child_nodes(node) if not isinstance(c, nested)]
    return False


def _unit_functions(tree: ast.Module, unit: Unit) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function defined at module or class level inside the unit's ranges (helpers too)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if not unit.contains(node.lineno):
            continue
        if isinstance(node, ast.ClassDef):
            found += [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node)
    return found


def _callables(
    model: ModuleModel, unit: Unit, functions: Sequence[ast.FunctionDef | ast.AsyncFunctionDef]
) -> dict[str, UnitCallable]:
    spans = {(f.name, f.lineno): (f.lineno, f.end_lineno or f.lineno) for f in functions}

    def make(key: str, signature: Signature) -> UnitCallable:
        start, end = spans.get((signature.name, signature.line), (0, 0))
        return UnitCallable(key, signature.kind, start, end, signature.returns)

    if unit.kind == "function":
        function = model.functions[unit.name]
        return {unit.name: make(unit.name, function)}
    cls = model.classes[unit.name]
    found: dict[str, UnitCallable] = {}
    if cls.constructor is not None:
        found[f"{unit.name}.__init__"] = make(f"{unit.name}.__init__", cls.constructor)
    for method in cls.methods:
        found[f"{unit.name}.{method.name}"] = make(f"{unit.name}.{method.name}", method)
    return found


def _outcomes(targets: Iterable[Target]) -> dict[tuple[int, bool], tuple[int, ...]]:
    """(branch line, outcome) -> the branch targets (coverage.py arcs) of that outcome."""
    found: dict[tuple[int, bool], list[int]] = {}
    for target in targets:
        if target.kind == "branch":
            found.setdefault((target.line, target.positive), []).append(target.id)
    return {key: tuple(ids) for key, ids in found.items()}


class _Reader:
    """Walks function bodies, recording each statement's controlling branch and the blocks."""

    def __init__(
        self,
        structure: Structure,
        outcomes: dict[tuple[int, bool], tuple[int, ...]],
        code: CodeMap,
    ) -> None:
        self.structure, self.outcomes, self.code = structure, outcomes, code
        self.owner = 0  # def line of the function being read

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, owner: int
    ) -> None:
        body = node.body
        if body and is_docstring(body[0]):
            body = body[1:]
        previous, self.owner = self.owner, owner
        self.statements(body, ())  # a function's body runs whenever it is called: free
        self.owner = previous

    def statements(self, statements: Sequence[ast.stmt], control: tuple[int, ...]) -> None:
        block: list[int] = []
        for statement in statements:
            line = self.code.first_line(statement.lineno)
            if line in self.code.statements:
                self.structure.control[line] = control
                self.structure.lines.add(line)
                self.structure.owner[line] = self.owner
                block.append(line)
            self.nested(statement, control)
            if isinstance(statement, ast.If):
                control = self.after_guard(statement, line, control)
            if isinstance(statement, _COMPOUND + _TERMINATORS):
                self.close(block)
                block = []
        self.close(block)

    def after_guard(
        self, statement: ast.If, line: int, control: tuple[int, ...]
    ) -> tuple[int, ...]:
        """What controls the statements after an ``if``: its other side, if one side always exits.

        ``if not x: return`` followed by more code is the common guard clause: the code after
        it runs only when the condition is false, as a control-dependence graph built from
        post-dominators says (nesting alone would call it free).
        """
        body_exits = _always_exits(statement.body)
        else_exits = bool(statement.orelse) and _always_exits(statement.orelse)
        if body_exits and not else_exits:
            return self.outcomes.get((line, False), control)
        if else_exits and not body_exits:
            return self.outcomes.get((line, True), control)
        return control

    def close(self, block: list[int]) -> None:
        if block:
            self.structure.blocks.append((block[0], block[-1]))

    def nested(self, statement: ast.stmt, control: tuple[int, ...]) -> None:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(statement, statement.lineno)
        elif isinstance(statement, ast.ClassDef):
            self.function(statement, self.owner)  # a class body runs where it is defined
        elif isinstance(statement, ast.If | ast.While | ast.For | ast.AsyncFor):
            line = self.code.first_line(statement.lineno)
            self.statements(statement.body, self.outcomes.get((line, True), control))
            self.statements(statement.orelse, self.outcomes.get((line, False), control))
        elif isinstance(statement, ast.Match):
            for case in statement.cases:
                line = self.code.first_line(case.pattern.lineno)
                self.statements(case.body, self.outcomes.get((line, True), control))
        else:
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(statement, name, None)
                if inner and isinstance(inner[0], ast.stmt):
                    self.statements(inner, control)
            for handler in getattr(statement, "handlers", ()):
                self.statements(handler.body, control)


def _always_exits(statements: Sequence[ast.stmt]) -> bool:
    """True if running ``statements`` always ends in return, raise, break or continue."""
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, _TERMINATORS):
        return True
    if isinstance(last, ast.If):
        return bool(last.orelse) and _always_exits(last.body) and _always_exits(last.orelse)
    return False


def _called_inside(tree: ast.Module, callables: dict[str, UnitCallable], unit: Unit) -> set[str]:
    """Callables whose name the unit's own code uses (``self.area()``, ``Triangle(...)``)."""
    used: set[str] = set()
    inside = [statement for statement in tree.body if overlaps(statement, unit)]
    for node in (node for statement in inside for node in ast.walk(statement)):
        if not unit.contains(getattr(node, "lineno", 0)):
            continue
        if isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            used.add(node.id)
    called = set()
    for key in callables:
        name = key.rpartition(".")[2]
        if name == "__init__":
            name = unit.name
        if name in used:
            called.add(key)
    return called
