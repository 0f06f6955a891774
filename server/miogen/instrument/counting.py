"""AST transform: a counter before every statement in functions, and probes on mutation sites.

Applied to the parsed module before the condition probes (``rewrite.instrument_tree``), so that
only the user's statements are counted. The counts give line coverage (a statement's counter
runs when the statement starts, as coverage.py's line event does, so a raise part-way through a
block leaves the rest uncounted) and aDynaMOSA's production-code proxies; the operand probes give
weak mutation's infection distances (``tally.operand``). Everything lands on the statement's or
operand's first line: no new line events, line numbers unchanged.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from miogen.analysis.survey import children, walk
from miogen.instrument import tally
from miogen.instrument.tally import Mutation

TALLY = "__miogen_tally__"  # the tally module, bound in the instrumented module's globals

# Calls that build a new object (besides classes, found by their CapWords names).
BUILTIN_CONSTRUCTORS = frozenset(
    {"list", "dict", "set", "frozenset", "bytearray", "object", "deque", "defaultdict"}
)
_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_STATEMENT_LISTS = ("body", "orelse", "finalbody")
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)  # nodes whose fields hold statements


@dataclass(frozen=True, slots=True)
class Probe:
    """A weak-mutation probe to place: ``node`` (Compare, BinOp or BoolOp) and one of its mutants."""

    node: ast.AST
    mutation: Mutation


ProbeFinder = Callable[[ast.Module], Sequence[Probe]]


@dataclass(frozen=True)
class CounterMap:
    """What the counters of one instrumented module mean; site numbers are local (0 = ``start``).

    ``lines[s]`` is the first line of statement site s, ``allocations[s]`` how many objects its
    own expressions create when it runs (list/dict/set displays and comprehensions, calls of
    classes), ``entries`` the first statement of every function (its calls), ``loop_bodies`` the
    first statement of every loop body (its iterations), ``probed`` the mutants with probes.
    """

    start: int
    lines: tuple[int, ...]
    allocations: tuple[int, ...]
    entries: tuple[int, ...]
    loop_bodies: tuple[int, ...]
    probed: frozenset[int] = frozenset()

    def of(self, counts: Sequence[int]) -> Sequence[int]:
        """This module's counts out of an execution's (all modules') counts."""
        return counts[self.start : self.start + len(self.lines)]

    def executed_lines(self, counts: Sequence[int]) -> set[int]:
        """First lines of the statements that started at least once."""
        lines = self.lines
        return {lines[site] for site, count in enumerate(self.of(counts)) if count}


@dataclass
class Counting:
    """The transform ``load_instrumented`` applies; ``map`` is filled when it has run.

    ``probes`` finds the weak-mutation probes in the tree about to be instrumented (the caller
    knows the unit's mutants; instrumentation does not).
    """

    probes: ProbeFinder | None = None
    map: CounterMap | None = field(default=None, init=False)

    def __call__(self, tree: ast.Module) -> ast.Module:
        probed: set[int] = set()
        if self.probes is not None:
            probed = _place_probes(self.probes(tree))
        counter = _StatementCounter()
        counter.visit(tree)
        start = tally.register_statements(len(counter.lines))
        counter.number(start)
        self.map = CounterMap(
            start, tuple(counter.lines), tuple(counter.allocations), tuple(counter.entries),
            tuple(counter.loop_bodies), frozenset(probed),
        )  # fmt: skip
        return tree  # every node added has its location (``_on_line``)


# ---------------------------------------------------------------- statement counters


class _StatementCounter(ast.NodeTransformer):
    """Puts ``__miogen_tally__.COUNTS[site] += 1`` before each statement inside a function.

    Sites are numbered locally while walking (inner statement lists first); ``number`` then
    writes the global index into every counter once the module's block is reserved.
    """

    def __init__(self) -> None:
        self.lines: list[int] = []
        self.allocations: list[int] = []
        self.entries: list[int] = []
        self.loop_bodies: list[int] = []
        self.depth = 0
        self._indices: list[tuple[ast.Constant, int]] = []

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return self.visit_FunctionDef(node)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        self.depth += 1
        self.generic_visit(node)
        start = 1 if is_docstring(node.body[0]) else 0
        node.body[start:] = self._counted(node.body[start:])
        if len(node.body) > start:
            self.entries.append(self._site_of(node.body[start]))
        self.depth -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def generic_visit(self, node: ast.AST) -> ast.AST:
        # Only statements hold statements (expressions, lambdas included, hold none): the walk
        # goes down statement lists alone, in field order, as a full walk would reach them.
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _HOLDERS):
                        self.visit(item)
        if self.depth and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for name in _STATEMENT_LISTS:
                statements = getattr(node, name, None)
                if (
                    isinstance(statements, list)
                    and statements
                    and isinstance(statements[0], ast.stmt)
                ):
                    setattr(node, name, self._counted(statements))
            if isinstance(node, ast.For | ast.AsyncFor | ast.While):
                self.loop_bodies.append(self._site_of(node.body[0]))
        return node

    def _counted(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        counted: list[ast.stmt] = []
        for statement in statements:
            counted.append(self._counter(statement))
            counted.append(statement)
        return counted

    def _counter(self, statement: ast.stmt) -> ast.stmt:
        site = len(self.lines)
        self.lines.append(statement.lineno)
        self.allocations.append(_allocations(statement))
        index = ast.Constant(site)
        self._indices.append((index, site))
        counts = ast.Attribute(ast.Name(TALLY, ast.Load()), "COUNTS", ast.Load())
        target = ast.Subscript(counts, index, ast.Store())
        increment = ast.AugAssign(target, ast.Add(), ast.Constant(1))
        increment._miogen_site = site  # type: ignore[attr-defined]
        _on_line(increment, statement.lineno)
        return increment

    @staticmethod
    def _site_of(counter: ast.stmt) -> int:
        site: int = counter._miogen_site  # type: ignore[attr-defined]
        return site

    def number(self, start: int) -> None:
        for index, site in self._indices:
            index.value = start + site


def _allocations(statement: ast.stmt) -> int:
    """Objects a statement's own expressions create (not those of nested statements or lambdas)."""
    count = 0
    for expression in _own_expressions(statement):
        for node in _walk_without_lambdas(expression):
            if isinstance(node, _DISPLAYS):
                count += 1
            elif isinstance(node, ast.Call) and _constructs(node.func):
                count += 1
    return count


def _own_expressions(statement: ast.stmt) -> list[ast.AST]:
    if isinstance(statement, ast.If | ast.While):
        return [statement.test]
    if isinstance(statement, ast.For | ast.AsyncFor):
        return [statement.iter]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return list(statement.items)
    if isinstance(statement, ast.Match):
        return [statement.subject]
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return list(statement.decorator_list)
    if isinstance(statement, ast.Try):
        return []
    return [statement]


def _walk_without_lambdas(node: ast.AST) -> list[ast.AST]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        if not isinstance(current, ast.Lambda):
            stack.extend(children(current))
    return found


def _constructs(function: ast.expr) -> bool:
    name = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "")
    return name in BUILTIN_CONSTRUCTORS or (name[:1].isupper() and not name.isupper())


# ---------------------------------------------------------------- weak-mutation probes


def _place_probes(probes: Sequence[Probe]) -> set[int]:
    """Wrap the operands of every probed expression in ``tally.operand`` calls (one site each)."""
    by_node: dict[int, tuple[ast.AST, list[Mutation]]] = {}
    for probe in probes:
        by_node.setdefault(id(probe.node), (probe.node, []))[1].append(probe.mutation)
    for node, mutations in by_node.values():
        operands = _operands(node)
        site = tally.register_site(len(operands), tuple(mutations))
        _set_operands(node, [_wrap(site, p, operand) for p, operand in enumerate(operands)])
    return {probe.mutation.mutant for probe in probes}


def _operands(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    raise TypeError(f"no weak-mutation probe for {type(node).__name__}")


def _set_operands(node: ast.AST, operands: list[ast.expr]) -> None:
    if isinstance(node, ast.Compare):
        node.left, node.comparators = operands[0], operands[1:]
    elif isinstance(node, ast.BinOp):
        node.left, node.right = operands
    elif isinstance(node, ast.BoolOp):
        node.values = operands


def _wrap(site: int, position: int, operand: ast.expr) -> ast.expr:
    function = ast.Attribute(ast.Name(TALLY, ast.Load()), "operand", ast.Load())
    call = ast.Call(function, [ast.Constant(site), ast.Constant(position), operand], [])
    _on_line(call, operand.lineno, keep=operand)
    return call


def _on_line(node: ast.AST, line: int, keep: ast.AST | None = None) -> ast.AST:
    """New nodes on one line, column 0 (as ``rewrite._on_line``): no new line events."""
    kept = {id(n) for n in walk(keep)} if keep is not None else set()
    for inner in walk(node):
        if id(inner) not in kept:
            inner.lineno = inner.end_lineno = line  # type: ignore[attr-defined]
            inner.col_offset = inner.end_col_offset = 0  # type: ignore[attr-defined]
    return node


def is_docstring(statement: ast.stmt) -> bool:
    """Whether ``statement`` is a string on its own (a docstring where it opens a body)."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )
