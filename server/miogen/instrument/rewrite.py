"""AST rewrite: conditions inside functions become probe calls that record branch distances."""

from __future__ import annotations

import ast
from typing import TypeVar

from miogen.analysis.survey import children, walk

PROBE = "__miogen_probe__"  # the runtime module, bound in the instrumented module's globals
_UNSAFE_IN_THUNK = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)


def instrument_tree(tree: ast.Module) -> ast.Module:
    """Rewrite the conditions of every function in the module; line numbers are kept."""
    rewritten: ast.Module = _FunctionConditions().visit(tree)
    return rewritten  # every node added has its location (``_on_line``, ``_thunk``)


Located = ast.expr | ast.stmt  # nodes with a position
N = TypeVar("N", bound=ast.AST)


def _hit(line: int, outcome: bool | None, node: Located) -> ast.Expr:
    call = _probe("hit", node, ast.Constant(line), ast.Constant(outcome))
    return _on_line(ast.Expr(call), node.lineno)


def _on_line(node: N, line: int, originals: tuple[ast.AST, ...] = ()) -> N:
    """Put the new nodes on one line (the statement's first), so they add no line events.

    CPython 3.11 attributes method loads and calls to the end line of a node: a probe that
    inherited a multi-line statement's end line would make the tracer see lines run twice.
    """
    keep = {id(n) for original in originals for n in walk(original)}
    for inner in walk(node):
        if id(inner) in keep:
            continue
        setattr(inner, "lineno", line)  # noqa: B010 - any AST node; ast.AST declares none
        setattr(inner, "end_lineno", line)  # noqa: B010
        setattr(inner, "col_offset", 0)  # noqa: B010
        setattr(inner, "end_col_offset", 0)  # noqa: B010
    return node


def probed_lines(tree: ast.Module) -> set[int]:
    """Lines whose branch outcomes the probes report exactly (if, while and for statements).

    The probes key outcomes by line, so a line with a second condition is not exact: in
    ``if len(s) > (254 if dot else 253):`` the ``if dot`` being true would read as the ``if``'s.
    """
    sites: dict[int, int] = {}  # probe line (``_branch``'s, the loop's) -> probes on it
    statements: dict[int, int] = {}  # the statement's line -> its probe's line
    for n in ast.walk(tree):
        if isinstance(n, ast.If | ast.While | ast.IfExp | ast.Assert):
            sites[n.test.lineno] = sites.get(n.test.lineno, 0) + 1
        elif isinstance(n, ast.For | ast.AsyncFor):
            sites[n.lineno] = sites.get(n.lineno, 0) + 1
        elif isinstance(n, ast.comprehension):
            for condition in n.ifs:
                sites[condition.lineno] = sites.get(condition.lineno, 0) + 1
        if isinstance(n, ast.If | ast.While):
            statements[n.lineno] = n.test.lineno
        elif isinstance(n, ast.For | ast.AsyncFor):
            statements[n.lineno] = n.lineno
    return {line for line, probe in statements.items() if sites[probe] == 1}


def _probe(
    name: str, node: Located, *args: ast.expr, keywords: list[ast.keyword] | None = None
) -> ast.Call:
    func = ast.Attribute(ast.Name(PROBE, ast.Load()), name, ast.Load())
    call = ast.Call(func, list(args), keywords or [])
    kept = [*args, *(k.value for k in keywords or [])]
    originals = tuple(a for a in kept if hasattr(a, "lineno") and not _is_new(a))
    return _on_line(call, node.lineno, originals)


def _is_new(node: ast.AST) -> bool:
    return getattr(node, "_miogen_new", False)


def _thunk(node: ast.expr) -> ast.Lambda:
    arguments = ast.arguments([], [], None, [], [], None, [])
    thunk = ast.Lambda(arguments, node)
    thunk.lineno = thunk.end_lineno = node.lineno
    thunk.col_offset = thunk.end_col_offset = 0
    return thunk


def _thunk_safe(node: ast.expr) -> bool:
    """Operands that may be deferred into a lambda without changing what they mean."""
    for inner in ast.walk(node):
        if isinstance(inner, _UNSAFE_IN_THUNK):
            return False
        if isinstance(inner, ast.Name) and inner.id in ("super", "locals", "vars"):
            return False
    return True


def distance_expr(node: ast.expr) -> ast.expr:
    """An expression that evaluates ``node`` and yields (value, distance to true, to false)."""
    if isinstance(node, ast.BoolOp):
        if not _thunk_safe(node):
            return _probe("truth", node, node)
        combine = "and_" if isinstance(node.op, ast.And) else "or_"
        result = distance_expr(node.values[0])
        for operand in node.values[1:]:
            result = _probe(combine, node, result, _thunk(distance_expr(operand)))
        return result
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _probe("not_", node, distance_expr(node.operand))
    if isinstance(node, ast.Compare):
        return _compare(node)
    if isinstance(node, ast.Call) and _is_measured_call(node):
        return _probe("call", node, node.func, *node.args, keywords=node.keywords)
    return _probe("truth", node, node)


# Calls whose result gets a distance (instrument.distances); the probe calls what the name
# refers to at run time, so a module's own `match` function is simply called, with a plain
# truth distance.
MEASURED_CALLS = frozenset(
    {"startswith", "endswith", "match", "fullmatch", "search"}
    | {"isdigit", "isalpha", "isalnum", "isspace", "isdecimal", "isnumeric", "isascii"}
    | {"isupper", "islower"}
)


def _is_measured_call(node: ast.Call) -> bool:
    """A call by name or attribute, with plain positional and keyword arguments."""
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    plain = not any(isinstance(a, ast.Starred) for a in node.args) and all(
        k.arg is not None for k in node.keywords
    )
    return name in MEASURED_CALLS and plain


def _compare(node: ast.Compare) -> ast.expr:
    ops = [_OPERATOR_TEXT[type(op)] for op in node.ops]
    if len(ops) == 1:
        return _probe("compare", node, ast.Constant(ops[0]), node.left, node.comparators[0])
    if not _thunk_safe(node):
        return _probe("truth", node, node)
    thunks = [_thunk(c) for c in node.comparators]
    names = ast.Tuple([ast.Constant(op) for op in ops], ast.Load())
    return _probe("chain", node, names, node.left, *thunks)


_OPERATOR_TEXT = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}


def _branch(test: ast.expr) -> ast.Call:
    return _probe("branch", test, ast.Constant(test.lineno), distance_expr(test))


FunctionNode = TypeVar("FunctionNode", ast.FunctionDef, ast.AsyncFunctionDef)


class _FunctionConditions(ast.NodeTransformer):
    """Rewrites conditions only inside function bodies: module and class bodies run once, at import.

    Every visit changes its node in place and returns it, so the walk need not rebuild the
    fields' lists as ``NodeTransformer.generic_visit`` does (a third of the rewrite's time).
    """

    def __init__(self) -> None:
        self.depth = 0

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for child in children(node):
            self.visit(child)
        return node

    def _function(self, node: FunctionNode) -> FunctionNode:
        self.depth += 1
        body = [self.visit(stmt) for stmt in node.body]
        self.depth -= 1
        start = 1 if _is_docstring(body[0]) else 0
        anchor = body[min(start, len(body) - 1)]
        # Function entry, as the line of its first statement: the goal of branchless functions.
        body.insert(start, _hit(anchor.lineno, None, anchor))
        node.body = body
        return node

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_If(self, node: ast.If) -> ast.If:
        self.generic_visit(node)
        if self.depth:
            node.test = _branch(node.test)
        return node

    def visit_While(self, node: ast.While) -> ast.While:
        self.generic_visit(node)
        if self.depth:
            node.test = _branch(node.test)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.IfExp:
        self.generic_visit(node)
        if self.depth:
            node.test = _branch(node.test)
        return node

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        self.generic_visit(node)
        if self.depth:
            node.test = _branch(node.test)
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.comprehension:
        self.generic_visit(node)
        if self.depth and not node.is_async:
            node.ifs = [_branch(condition) for condition in node.ifs]
        return node

    def visit_For(self, node: ast.For) -> ast.For:
        self.generic_visit(node)
        if self.depth:
            node.iter = _probe("loop", node.iter, ast.Constant(node.lineno), node.iter)
            # entered: the body starts; ran to completion: the else clause runs (no break).
            node.body.insert(0, _hit(node.lineno, True, node.body[0]))
            anchor = node.orelse[0] if node.orelse else node
            node.orelse.insert(0, _hit(node.lineno, False, anchor))
        return node

    visit_AsyncFor = visit_For  # type: ignore[assignment]  # the same fields as For


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )
