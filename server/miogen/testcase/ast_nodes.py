"""Syntax tree nodes for parameters annotated with the ``ast`` module's classes.

A parameter of ``expr``, ``Constant``, ``Sequence[stmt]`` or ``Union[Import, ImportFrom]``
(code that reads Python source, such as a documentation generator's parser) takes a node of
that class: one of the nodes of short sources below (``x``, ``f(x)``, ``x: int = 1``,
``from os import path``), built as the parser builds them. Without them such a parameter read
as ``any`` and was given strings and bools, which no type checker takes.

A node is a ``value`` statement like a date; the executor passes a copy of it each run (the
code may change a node in place, as a ``NodeTransformer`` does); the test writes it as its
constructor (``ast.Name(id="x", ctx=ast.Load())``) and never asserts one (nodes compare by
identity). In JSON a node is its source and its place in that source's ``ast.walk`` order.
"""

from __future__ import annotations

import ast
import functools
import random

from miogen.common.syntax import parse

# Short sources whose nodes cover the classes annotations name: expressions, statements, the
# parts of a definition (``arg``, ``arguments``, ``keyword``, ``alias``).
SOURCES = (
    "x",
    "1",
    '"a"',
    "None",
    "True",
    "a.b",
    "f(x, key=1)",
    "x[0]",
    "List[int]",
    "int | None",
    "(1, 2)",
    "[1]",
    "{1}",
    '{"a": 1}',
    "-x",
    "x + 1",
    "x = 1",
    "x: int = 1",
    "import os",
    "from os import path",
    "def f(a, b: int = 1, *args, c=None, **kw):\n    return a",
    "async def f():\n    pass",
    "class C(Base):\n    pass",
    "del x",
    "if x:\n    pass",
    "try:\n    pass\nexcept ValueError:\n    pass",
)
POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")
ORIGIN = "_miogen_origin"  # (source index, walk index): how a node is kept in JSON


@functools.cache
def _nodes() -> tuple[ast.AST, ...]:
    found: list[ast.AST] = []
    for number, source in enumerate(SOURCES):
        for place, node in enumerate(ast.walk(parse(source))):
            if isinstance(node, ast.Module | ast.expr_context):
                continue
            for position in POSITIONS:  # as the test's constructor builds it: no positions
                if hasattr(node, position):
                    delattr(node, position)
            if isinstance(node, ast.stmt):
                node.lineno = 1  # but a statement's line (ast.unparse reads it)
            setattr(node, ORIGIN, (number, place))
            found.append(node)
    return tuple(found)


def node_class(name: str) -> type[ast.AST] | None:
    """The ``ast`` class ``name`` names ("ast.expr", "ast.Constant"), if it is one."""
    module, _, last = name.rpartition(".")
    found = getattr(ast, last, None) if module == "ast" else None
    return found if isinstance(found, type) and issubclass(found, ast.AST) else None


def can_build(name: str) -> bool:
    cls = node_class(name)
    return cls is not None and any(isinstance(node, cls) for node in _nodes())


def sample(name: str, rng: random.Random) -> ast.AST | None:
    """A node of the named class, or None when no source has one."""
    cls = node_class(name)
    fitting = [node for node in _nodes() if cls is not None and isinstance(node, cls)]
    return rng.choice(fitting) if fitting else None


def encode(node: ast.AST) -> list[int] | None:
    origin = getattr(node, ORIGIN, None)
    return list(origin) if origin is not None else None


def decode(data: list[int]) -> ast.AST | None:
    number, place = data
    if not 0 <= number < len(SOURCES):
        return None
    return next((n for n in _nodes() if getattr(n, ORIGIN, None) == (number, place)), None)


def literal(node: ast.AST) -> str:
    """The constructor call that builds ``node``: every field but those that are None (before
    Python 3.13 a list left out is missing, not empty); no positions, as the sampled nodes."""
    fields = []
    for field in node._fields:
        value = getattr(node, field, None)
        if value is None and getattr(type(node), field, ...) is None:
            continue  # an optional field (``arg.annotation``): None when left out
        fields.append(f"{field}={_field(value)}")
    if isinstance(node, ast.stmt):
        fields.append("lineno=1")
    return f"ast.{type(node).__name__}({', '.join(fields)})"


def _field(value: object) -> str:
    if isinstance(value, ast.AST):
        return literal(value)
    if isinstance(value, list):
        return "[" + ", ".join(_field(item) for item in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)
