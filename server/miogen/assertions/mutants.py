"""Mutants of the unit under test: relational, arithmetic, constant and condition changes.

Besides the subsuming sets below, a few of the operators a mutation tool such as cosmic-ray
applies and these lack, each one a fault a test tells apart only with a value that is not the
plainest: ``n - 1`` as ``n ^ 1`` (equal for an odd ``n``: a test at ``n = 2``), ``a / b`` as
``a // b`` (equal for a whole quotient: a test at ``x = 0.5``) and a ``True`` default as
``False``. (``is``/``in`` swapped as cosmic-ray does were tried and left out: as equal-to-line
goals they took the search from branches, stdlib argparse -35 and configparser -19 of 626 and
269 at 500 evaluations.) Without them, a test's kills are all of mutants plain values
also kill, the suite reduction keeps no test for these, and shrinking makes the values plain
(issue 24: the mutation score under cosmic-ray fell as the values became 0 and 1).
"""

from __future__ import annotations
import __future__

import ast
import functools
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from miogen.analysis.model import Unit
from miogen.common.syntax import parse

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
    ast.Div: (ast.Mult, ast.Sub, ast.FloorDiv),  # // : a quotient that is not whole
    ast.FloorDiv: (ast.Mult, ast.Div),
    ast.Mod: (ast.FloorDiv, ast.Mult),
}

# With an int literal operand, + and - also to ^ (cosmic-ray's bitwise AOR): ``n - 1`` and
# ``n ^ 1`` differ only for an even ``n``, ``n + 1`` and ``n ^ 1`` only for an odd one, so a
# test that kills it does not sit on the parity where the plainest value (1, 0) falls.
PARITY = {ast.Add: ast.BitXor, ast.Sub: ast.BitXor}

# Bitwise operators to the other two (BOR; smart selection keeps a subset, criteria/selection.py).
BITWISE = {
    ast.BitAnd: (ast.BitOr, ast.BitXor),
    ast.BitOr: (ast.BitAnd, ast.BitXor),
    ast.BitXor: (ast.BitAnd, ast.BitOr),
}


@dataclass(frozen=True)
class Mutant:
    index: int
    line: int
    operator: str  # ROR | AOR | BOR | CRP (constant) | COND (negated condition) | LCR (and/or)
    description: str


@dataclass(frozen=True)
class MutationPoint:
    """Where a mutant changes the tree: the node, and for chained comparisons which operator."""

    mutant: Mutant
    node: ast.AST  # Compare, BinOp, BoolOp, Constant, If, While or IfExp
    position: int  # index of the changed operator in a comparison chain; 0 otherwise
    original: str  # the operator's AST name ("Lt", "Add", "And"); "" for constants and tests
    replacement: str


Undo = Callable[[], None]


class _Mutator(ast.NodeVisitor):
    """Walks the tree in a fixed order and records every mutation point with a way to apply it.

    Each mutation changes one node in place and hands back how to undo it, so that one parsed
    tree serves every mutant (parsing and walking a module per mutant cost more than the rest).
    """

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.found: list[Mutant] = []
        self.appliers: list[Callable[[], Undo]] = []
        self.points: list[MutationPoint] = []

    def _point(
        self,
        node: ast.expr | ast.stmt,
        operator: str,
        description: str,
        apply: Callable[[], Undo],
        position: int = 0,
    ) -> None:
        mutant = Mutant(len(self.found), node.lineno, operator, description)
        self.found.append(mutant)
        self.appliers.append(apply)
        original, _, replacement = description.partition(" -> ")
        if operator in ("CRP", "COND"):
            original = replacement = ""
        self.points.append(MutationPoint(mutant, node, position, original, replacement))

    def _inside(self, node: ast.AST) -> bool:
        return self.unit.contains(getattr(node, "lineno", -1))

    def visit_Compare(self, node: ast.Compare) -> None:
        self.generic_visit(node)
        if not self._inside(node):
            return
        for position, op in enumerate(node.ops):
            for replacement in RELATIONAL.get(type(op), ()):
                description = f"{type(op).__name__} -> {replacement.__name__}"
                apply = _swap_item(node.ops, position, replacement)
                self._point(node, "ROR", description, apply, position)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self.generic_visit(node)
        if not self._inside(node):
            return
        for replacement in ARITHMETIC.get(type(node.op), ()):
            description = f"{type(node.op).__name__} -> {replacement.__name__}"
            self._point(node, "AOR", description, _swap_attribute(node, "op", replacement))
        for bitwise in BITWISE.get(type(node.op), ()):
            description = f"{type(node.op).__name__} -> {bitwise.__name__}"
            self._point(node, "BOR", description, _swap_attribute(node, "op", bitwise))
        parity = PARITY.get(type(node.op))
        if parity is not None and (_int_literal(node.left) or _int_literal(node.right)):
            description = f"{type(node.op).__name__} -> {parity.__name__}"
            self._point(node, "AOR", description, _swap_attribute(node, "op", parity))

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self.generic_visit(node)
        if self._inside(node):
            swapped = ast.Or if isinstance(node.op, ast.And) else ast.And
            description = f"{type(node.op).__name__} -> {swapped.__name__}"
            self._point(node, "LCR", description, _swap_attribute(node, "op", swapped))

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if self._inside(node) and isinstance(value, bool):  # a flag's default, a literal flag

            def negate() -> Undo:
                node.value = not value
                return lambda: setattr(node, "value", value)

            self._point(node, "CRP", f"{value!r} -> {not value!r}", negate)
        elif self._inside(node) and isinstance(value, int | float):

            def apply() -> Undo:
                node.value = value + 1
                return lambda: setattr(node, "value", value)

            self._point(node, "CRP", f"{value!r} -> {value + 1!r}", apply)

    def _negate_test(self, node: ast.If | ast.While | ast.IfExp) -> None:
        self.generic_visit(node)
        if self._inside(node):

            def apply() -> Undo:
                test = node.test
                node.test = ast.copy_location(ast.UnaryOp(ast.Not(), test), test)
                return lambda: setattr(node, "test", test)

            self._point(node, "COND", "condition negated", apply)

    visit_If = _negate_test
    visit_While = _negate_test
    visit_IfExp = _negate_test


def _int_literal(node: ast.expr) -> bool:
    """An int written in the code (``1``, not ``True`` or ``1.0``)."""
    return isinstance(node, ast.Constant) and type(node.value) is int


def _swap_item(items: list[Any], position: int, replacement: type) -> Callable[[], Undo]:
    def apply() -> Undo:
        original = items[position]
        items[position] = replacement()
        return lambda: items.__setitem__(position, original)

    return apply


def _swap_attribute(node: ast.AST, name: str, replacement: type) -> Callable[[], Undo]:
    def apply() -> Undo:
        original = getattr(node, name)
        setattr(node, name, replacement())
        return lambda: setattr(node, name, original)

    return apply


def list_mutants(source: str, unit: Unit) -> list[Mutant]:
    mutator = _Mutator(unit)
    mutator.visit(parse(source))
    return mutator.found


def mutation_points(tree: ast.Module, unit: Unit) -> list[MutationPoint]:
    """The unit's mutants with the nodes of ``tree`` they change (same numbering as above).

    Weak mutation probes these nodes in the tree it instruments (criteria/unit.py). Only the
    top-level statements that overlap the unit are visited: the others hold none of its mutants,
    and a 2,000-line module has many units.
    """
    mutator = _Mutator(unit)
    for statement in tree.body:
        if overlaps(statement, unit):
            mutator.visit(statement)
    return mutator.points


class MutantFactory:
    """Builds mutant modules of one unit from one parsed tree.

    With a ``base`` module (the loaded original), a mutant module is a copy of its namespace in
    which only the unit's own top-level statements (its class or functions, private helpers
    included) run again, mutated: module-level code does not run once per mutant. Without one
    (modules that keep state at module level, whose containers must not be shared), the whole
    mutated module runs.
    """

    def __init__(
        self,
        source: str,
        path: str,
        unit: Unit,
        module_name: str,
        base: types.ModuleType | None = None,
    ) -> None:
        self.path, self.module_name, self.base = path, module_name, base
        self.tree = tree = parsed(source)
        self.flags = future_flags(tree)
        own = [s for s in tree.body if overlaps(s, unit)]
        self.statements = tree.body if base is None else own
        mutator = _Mutator(unit)
        for statement in own:  # the unit's mutants are in its own statements: walk only those
            mutator.visit(statement)
        self.mutants = mutator.found
        self._appliers = mutator.appliers
        # What one load compiles and runs, the size its cost is estimated by before any is timed.
        self.lines = sum((s.end_lineno or s.lineno) - s.lineno + 1 for s in self.statements)

    def code(self, index: int) -> types.CodeType:
        undo = self._appliers[index]()
        try:
            # The parsed statements have their locations, and the mutations only swap operators
            # or wrap a node in one copied from it: nothing to fix before compiling.
            module = ast.Module(body=self.statements, type_ignores=[])
            code: types.CodeType = compile(
                module, self.path, "exec", flags=self.flags, dont_inherit=True
            )
            return code
        finally:
            undo()

    def load(self, index: int) -> types.ModuleType:
        """The module with mutant ``index`` applied, as a fresh module object (not in sys.modules)."""
        code = self.code(index)
        module = types.ModuleType(self.module_name)
        if self.base is not None:
            module.__dict__.update(vars(self.base))
        else:  # the package a relative import starts from (the module itself for an __init__)
            module.__file__ = self.path
            package = self.path.endswith("__init__.py")
            module.__package__ = (
                self.module_name if package else self.module_name.rpartition(".")[0]
            )
        exec(code, module.__dict__)
        return module


@functools.lru_cache(maxsize=4)
def parsed(source: str) -> ast.Module:
    """One tree per module source, shared by its units' factories.

    A factory mutates the tree only while it compiles a mutant, and undoes it at once; units
    that share a private helper share its nodes without harm (one mutant at a time).
    """
    return parse(source)


def future_flags(tree: ast.Module) -> int:
    """The compiler flags of the module's ``from __future__`` imports."""
    flags = 0
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            for alias in statement.names:
                feature = getattr(__future__, alias.name, None)
                if feature is not None:
                    flags |= feature.compiler_flag
    return flags


def overlaps(statement: ast.stmt, unit: Unit) -> bool:
    """Whether a top-level statement (decorators included) overlaps the unit's lines."""
    decorators = getattr(statement, "decorator_list", [])
    start = min([statement.lineno, *(d.lineno for d in decorators)])
    end = statement.end_lineno or statement.lineno
    return any(s <= end and start <= e for s, e in unit.ranges)


def sample_mutants(mutants: list[Mutant], limit: int) -> Iterator[Mutant]:
    """At most ``limit`` mutants, spread evenly over the list (deterministic)."""
    if len(mutants) <= limit:
        yield from mutants
        return
    step = len(mutants) / limit
    for position in range(limit):
        yield mutants[int(position * step)]


def spread_order(count: int) -> list[int]:
    """``range(count)`` reordered so that every prefix is spread evenly over it (bit reversal).

    Mutants loaded in this order until a deadline cover the whole unit, not just its top.

    >>> spread_order(5)
    [0, 4, 2, 1, 3]
    """
    bits = max(count - 1, 0).bit_length()

    def reversed_bits(number: int) -> int:
        return int(f"{number:0{bits}b}"[::-1], 2) if bits else 0

    return sorted(range(count), key=reversed_bits)


class MutantTexts:
    """One module's mutants as text, and the lines each runs on, from one parse of the module.

    ``host.suite_kills`` plans every mutant it runs against the project's suite from one of
    these: the module is parsed once, and each unit's statements walked once, however many
    mutants there are. A mutant is applied to the tree while its text is made, and undone:
    one mutant at a time, in one thread.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.tree = parse(source)
        self._units: dict[str, tuple[_Mutator, dict[ast.AST, ast.AST]]] = {}

    def _unit(self, unit: Unit) -> tuple[_Mutator, dict[ast.AST, ast.AST]]:
        """The unit's mutation points (numbered as ``MutantFactory`` numbers them) and each node
        of its statements with its parent."""
        if unit.name not in self._units:
            own = [statement for statement in self.tree.body if overlaps(statement, unit)]
            mutator = _Mutator(unit)
            for statement in own:
                mutator.visit(statement)
            parents = {
                child: parent
                for statement in own
                for parent in ast.walk(statement)
                for child in ast.iter_child_nodes(parent)
            }
            self._units[unit.name] = (mutator, parents)
        return self._units[unit.name]

    def text(self, unit: Unit, index: int) -> str:
        """The module's text with the unit's mutant ``index`` applied, for a process that
        imports the mutant from text (the project's own tests run against it,
        ``host.suite_kills``). Only the changed expression's text is rewritten, in parentheses
        padded to its line count, so that every other line keeps its text and number; where
        that would not parse to the mutated tree, the whole tree is unparsed."""
        mutator, _ = self._unit(unit)
        point = mutator.points[index]
        undo = mutator.appliers[index]()
        try:
            node = point.node
            changed = node.test if isinstance(node, ast.If | ast.While | ast.IfExp) else node
            expected = ast.dump(self.tree)
            text = _spliced(self.source, changed)
            try:
                if ast.dump(parse(text)) == expected:
                    return text
            except SyntaxError:
                pass
            return ast.unparse(self.tree) + "\n"
        finally:
            undo()

    def lines(self, unit: Unit, index: int) -> tuple[int, int] | None:
        """The lines (first, last) one of which runs whenever the unit's mutant ``index`` runs:
        from the first line of the statement that holds it (its decorators' for a ``def`` or
        ``class``) to the changed expression's last. Any instruction of the changed expression
        is located at it or at an expression of that statement around it (a folded constant's),
        so a tracer sees one of these lines each time it runs. None where it runs when a
        function is defined, not when it is called (a default value, a decorator, an
        annotation, a class body): then no line tells which tests run it."""
        mutator, parents = self._unit(unit)
        node = mutator.points[index].node
        changed = node.test if isinstance(node, ast.If | ast.While | ast.IfExp) else node
        statement: ast.AST = node
        while not isinstance(statement, ast.stmt):
            statement = parents[statement]
        child, parent = node, parents.get(node)
        while parent is not None:  # up to the function whose body holds it, if one does
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and child in parent.body:
                break
            if isinstance(parent, ast.Lambda) and child is parent.body:
                break
            child, parent = parent, parents.get(parent)
        if parent is None:
            return None
        decorators = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(d.lineno for d in decorators)])
        line = getattr(changed, "lineno", first)
        return first, getattr(changed, "end_lineno", None) or line


def mutant_source(source: str, unit: Unit, index: int) -> str:
    """``MutantTexts.text`` of one mutant of ``source``."""
    return MutantTexts(source).text(unit, index)


def mutant_lines(source: str, unit: Unit, index: int) -> tuple[int, int] | None:
    """``MutantTexts.lines`` of one mutant of ``source``."""
    return MutantTexts(source).lines(unit, index)


def _spliced(source: str, node: ast.AST) -> str:
    """``source`` with ``node``'s span (AST offsets are UTF-8 bytes) replaced by its unparsed text."""
    data = source.encode("utf-8")
    starts = [0]
    for text_line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(text_line))
    line, end_line = getattr(node, "lineno", 1), getattr(node, "end_lineno", None) or 1
    begin = starts[line - 1] + getattr(node, "col_offset", 0)
    end = starts[end_line - 1] + (getattr(node, "end_col_offset", None) or 0)
    text = f"({ast.unparse(node)}{chr(10) * (end_line - line)})"
    return (data[:begin] + text.encode("utf-8") + data[end:]).decode("utf-8")
