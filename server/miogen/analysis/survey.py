"""One walk over a module's syntax tree, shared by every pass of the analysis.

Each pass used to walk the whole tree again (some once per function, per unit or per condition);
on a 2,500-line module those walks were most of the analysis time. The survey visits every node
once and keeps what the passes ask: the nodes, which of them sit inside a function body, and
the names each top-level statement loads.
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, field
from typing import TypeVar

Node = TypeVar("Node", bound=ast.AST)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass
class Survey:
    """What the analysis passes read from every node of a module, from one walk.

    The walk keeps the names each top-level statement loads, the constants, and the calls and
    subscripts inside function bodies (what could change module state); the list of every node
    is made only when something asks for it (appending each of a long module's nodes to lists
    was a third of the walk).
    """

    tree: ast.Module
    # Names loaded anywhere inside each top-level statement, by the statement's index.
    names: dict[int, set[str]] = field(default_factory=dict)
    constants: list[ast.Constant] = field(default_factory=list)  # in the order of ``nodes``
    # The binary operations (``1 << 32``): what the module computes from its constants.
    operations: list[ast.BinOp] = field(default_factory=list)
    # The ``ast.Call`` and ``ast.Subscript`` nodes inside function bodies, in ``nodes``' order.
    in_function_calls: list[ast.AST] = field(default_factory=list)
    _every: tuple[list[ast.AST], list[ast.AST]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def nodes(self) -> list[ast.AST]:
        """Every node of the module (the module first, then each top-level statement's)."""
        return self._walk_all()[0]

    @property
    def in_functions(self) -> list[ast.AST]:
        """The nodes inside function bodies, in ``nodes``' order."""
        return self._walk_all()[1]

    def of_type(self, *kinds: type[Node]) -> list[Node]:
        """The nodes that are instances of ``kinds``: statements (``ast.stmt``, the module,
        ``except`` and ``case`` clauses) in ``ast.walk``'s order, constants and other nodes
        in ``nodes``' order."""
        if all(issubclass(kind, STATEMENTS) for kind in kinds):
            return [n for n in statement_walk(self.tree) if isinstance(n, kinds)]
        if kinds == (ast.Constant,):
            return list(self.constants)  # type: ignore[arg-type]
        return [node for node in self.nodes if isinstance(node, kinds)]

    def _walk_all(self) -> tuple[list[ast.AST], list[ast.AST]]:
        if self._every is None:
            self._every = _walk_all(self.tree)
        return self._every


# The nodes ``statement_walk`` visits.
STATEMENTS = (ast.Module, ast.stmt, ast.excepthandler, ast.match_case)


def children(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))``, in the same order, at a third of the cost."""
    found: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            found.append(value)
        elif isinstance(value, list):
            found.extend(item for item in value if isinstance(item, ast.AST))
    return found


def walk(node: ast.AST) -> list[ast.AST]:
    """``list(ast.walk(node))``: the same nodes in the same (breadth-first) order, faster."""
    found = [node]
    index = 0
    while index < len(found):
        found.extend(children(found[index]))
        index += 1
    return found


# Where statements are: a statement, an ``except`` clause or a ``case`` holds them in these fields.
STATEMENT_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def statement_walk(tree: ast.Module) -> tuple[ast.AST, ...]:
    """The module, its statements, ``except`` clauses and ``case`` clauses, in ``ast.walk``'s
    (breadth-first) order, without visiting the expressions (most of a tree's nodes): a
    definition, a docstring, a branch or an import is always found among them.

    Kept per tree while the tree lives (the coverage.py parse, the survey, the docstrings and
    the server's snapshot each walked a long module's statements again): a tree must not be
    changed once walked (the analysis's trees never are).
    """
    walked = _STATEMENTS.get(tree)
    if walked is None:
        found: list[ast.AST] = [tree]
        index = 0
        while index < len(found):
            node = found[index]
            index += 1
            for name in node._fields:
                if name in STATEMENT_FIELDS:
                    found.extend(getattr(node, name))
        walked = _STATEMENTS[tree] = tuple(found)
    return walked


_STATEMENTS: weakref.WeakKeyDictionary[ast.Module, tuple[ast.AST, ...]] = (
    weakref.WeakKeyDictionary()
)


Call = tuple[str, "ast.FunctionDef | ast.AsyncFunctionDef | None", ast.Call]


@dataclass
class TreeIndex:
    """Every node of a tree in source order (depth first, as the code reads), with its depth and
    where its subtree ends, so that the passes over one function or class read a slice of one
    walk instead of walking again; and every call with its class and function."""

    nodes: list[ast.AST]
    depth: list[int]
    end: list[int]  # nodes[i:end[i]] is the subtree of nodes[i]
    position: dict[int, int]  # id(node) -> its index
    calls: list[Call]  # (class or "", function or None, call), in source order

    def subtree(self, node: ast.AST) -> list[ast.AST] | None:
        """The nodes of ``node``'s subtree in ``ast.walk``'s order (breadth first); None for
        a node not in the tree (a rewritten copy)."""
        start = self.position.get(id(node))
        if start is None:
            return None
        stop = self.end[start]
        # Within one depth, breadth first and depth first orders agree: sort by depth, stably.
        order = sorted(range(start, stop), key=self.depth.__getitem__)
        return [self.nodes[i] for i in order]

    def inside(self, node: ast.AST) -> list[ast.AST]:
        """The nodes of ``node``'s subtree, ``node`` included, in source order."""
        start = self.position[id(node)]
        return self.nodes[start : self.end[start]]


def index_tree(tree: ast.Module) -> TreeIndex:
    """One depth-first walk of ``tree`` (iterative: deep nesting cannot overflow the stack)."""
    nodes: list[ast.AST] = []
    depths: list[int] = []
    calls: list[Call] = []
    pending: list[tuple[ast.AST, int, str, ast.FunctionDef | ast.AsyncFunctionDef | None]]
    pending = [(tree, 0, "", None)]
    while pending:
        node, depth, owner, function = pending.pop()
        nodes.append(node)
        depths.append(depth)
        if isinstance(node, ast.Call):
            calls.append((owner, function, node))
        for child in reversed(children(node)):
            if isinstance(child, ast.ClassDef):
                pending.append((child, depth + 1, child.name, None))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                pending.append((child, depth + 1, owner, child))
            else:
                pending.append((child, depth + 1, owner, function))
    end = [len(nodes)] * len(nodes)
    open_: list[int] = []  # nodes whose subtree has not ended yet
    for current, depth in enumerate(depths):
        while open_ and depths[open_[-1]] >= depth:
            end[open_.pop()] = current
        open_.append(current)
    position = {id(node): i for i, node in enumerate(nodes)}
    return TreeIndex(nodes, depths, end, position, calls)


def survey(tree: ast.Module) -> Survey:
    """Walk ``tree`` once (iteratively: deep nesting cannot overflow the stack).

    The walk of every node is a good part of a long module's analysis: the children are found
    inline (as ``children`` does), not by a call per node, and a name or a constant (most
    leaves) is not looked into.
    """
    result = Survey(tree)
    constants, calls, operations = result.constants, result.in_function_calls, result.operations
    name, constant, call, subscript, binary = (
        ast.Name,
        ast.Constant,
        ast.Call,
        ast.Subscript,
        ast.BinOp,
    )
    for index, statement in enumerate(tree.body):
        names: set[str] = set()
        result.names[index] = names
        stack: list[tuple[ast.AST, bool]] = [(statement, False)]
        pop, push = stack.pop, stack.append
        while stack:
            node, inside = pop()
            kind = type(node)
            if kind is name:
                names.add(node.id)  # type: ignore[attr-defined]
                continue  # its only child is its context
            if kind is constant:
                constants.append(node)  # type: ignore[arg-type]
                continue
            if kind is binary:
                operations.append(node)  # type: ignore[arg-type]
            if inside:
                if kind is call or kind is subscript:
                    calls.append(node)
            elif isinstance(node, FUNCTIONS):
                inside = True  # for the children: they are inside a function body
            for field_name in node._fields:
                value = getattr(node, field_name, None)
                if isinstance(value, ast.AST):
                    push((value, inside))
                elif type(value) is list:
                    for item in value:
                        if isinstance(item, ast.AST):
                            push((item, inside))
    return result


def _walk_all(tree: ast.Module) -> tuple[list[ast.AST], list[ast.AST]]:
    """Every node of ``tree`` (the module, then each top-level statement's, depth first, in the
    survey's order) and those inside function bodies."""
    nodes: list[ast.AST] = [tree]
    in_functions: list[ast.AST] = []
    for statement in tree.body:
        stack: list[tuple[ast.AST, bool]] = [(statement, False)]
        pop, push = stack.pop, stack.append
        while stack:
            node, inside = pop()
            nodes.append(node)
            if inside:
                in_functions.append(node)
            elif isinstance(node, FUNCTIONS):
                inside = True
            for child in children(node):  # in field order, as the survey pushes them
                push((child, inside))
    return nodes, in_functions


def decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str]:
    """The last name of each decorator: ``functools.cached_property`` -> ``cached_property``."""
    names = set()
    for decorator in node.decorator_list:
        expr = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.add(expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", ""))
    return names


def is_abstract(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return bool(decorator_names(node) & {"abstractmethod", "abstractproperty"})


def has_body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function does anything beyond a docstring, ``...``, ``pass`` or raising
    NotImplementedError (the bodies of interface methods)."""
    return any(not _placeholder(statement) for statement in node.body)


def _placeholder(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return True  # a docstring or ...
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return getattr(raised, "id", "") == "NotImplementedError"
    return False
