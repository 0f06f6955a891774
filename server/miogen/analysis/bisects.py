"""Characters that fall in the rows of a sorted table the code searches with ``bisect``.

``uts46_remap`` looks each character up in a sorted tuple of rows, ``(first code point,
status[, mapping])``, with ``bisect.bisect_left(uts46data, (ord(c), 'Z')) - 1``, then branches
on the row's status: a branch taken only for a character in a row of one status ("I",
ignored: U+00AD) that random text never has. The table is a constant, not a dict keyed by code
points (``analysis.unicodeprops``' table rule), so nothing read its rows.

``groups_of`` finds the ``bisect`` calls (``bisect.bisect_left``, ``bisect_right``,
``bisect``, ``insort`` not: it changes the table; also ``from bisect import bisect_left``)
whose table is a name bound to a constant sequence, in the module or in a module of its
package it imports (``from .data import table``, at the top or in the function), and whose key
is a code point (``ord(c)``, a name assigned one, or a tuple that starts with one). The table's
value is read from the source without importing it: a literal, ``tuple(...)``/``list(...)``
of one, ``a + b``, or a call of a module function without arguments whose body returns one
(generated data modules split their tables so). From the table's rows it takes, per value of
each column with few distinct values (a status), a row's first code point: the characters
whose rows have each status; of a table of plain code points, a few spread over it.
"""

from __future__ import annotations

import ast
import functools
import unicodedata
from pathlib import Path

from miogen.analysis.source import parsed
from miogen.common.syntax import parse

FUNCTIONS = ("bisect_left", "bisect_right", "bisect")
MAX_VALUES = 16  # a column with at most this many distinct values is one the code branches on
PER_VALUE = 2  # rows per value: the first one, and the first whose character is a word's
SPREAD = 8  # characters of a table of plain code points
MAX_ROWS = 200_000
_WORD_CATEGORIES = ("L", "M", "Nd")
Row = tuple[object, ...]


@functools.lru_cache(maxsize=16)
def groups_of(source: str, path: str = "") -> tuple[tuple[int, str], ...]:
    """(line, characters) per ``bisect`` call on a constant table keyed by code points."""
    tree = parsed(source)
    if tree is None:
        return ()
    bisects = _bisect_names(tree)
    if not bisects[0] and not bisects[1]:
        return ()
    points = _code_point_names(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2 or not _is_bisect(node, bisects):
            continue
        table, key = node.args[0], node.args[1]
        if not isinstance(table, ast.Name) or not _is_code_point(key, points):
            continue
        rows = _table(tree, table.id, path)
        characters = _characters(rows) if rows else ""
        if characters:
            found.append((node.lineno, characters))
    return tuple(found)


def _bisect_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(names of the ``bisect`` module, names of its functions imported by name)."""
    modules: set[str] = set()
    functions: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name == "bisect"}
        elif isinstance(node, ast.ImportFrom) and node.module == "bisect" and not node.level:
            functions |= {a.asname or a.name for a in node.names if a.name in FUNCTIONS}
    return modules, functions


def _is_bisect(call: ast.Call, names: tuple[set[str], set[str]]) -> bool:
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        return function.value.id in names[0] and function.attr in FUNCTIONS
    return isinstance(function, ast.Name) and function.id in names[1]


def _code_point_names(tree: ast.Module) -> set[str]:
    """Names assigned ``ord(...)`` anywhere in the module."""
    return {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and is_ord(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def is_ord(node: ast.expr) -> bool:
    """``ord(x)`` with one argument (unicodeprops uses it too)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "ord"
        and len(node.args) == 1
    )


def _is_code_point(key: ast.expr, points: set[str]) -> bool:
    """``ord(c)``, a name assigned one, or a tuple whose first element is either."""
    if isinstance(key, ast.Tuple) and key.elts:
        key = key.elts[0]
    return is_ord(key) or (isinstance(key, ast.Name) and key.id in points)


def _table(tree: ast.Module, name: str, path: str) -> tuple[object, ...]:
    """The constant sequence ``name`` is bound to: in this module, or in the module of the
    package a relative import of it names (anywhere in the module); () when not known."""
    own = _value_in(tree, name)
    if own:
        return own
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not node.level or not path:
            continue
        for alias in node.names:
            if (alias.asname or alias.name) != name or not node.module:
                continue
            base = Path(path).parent
            for _ in range(node.level - 1):
                base = base.parent
            module = base.joinpath(*node.module.split("."))
            for candidate in (module.with_suffix(".py"), module / "__init__.py"):
                if candidate.is_file():
                    return _file_value(str(candidate), alias.name)
    return ()


@functools.lru_cache(maxsize=8)
def _file_value(path: str, name: str) -> tuple[object, ...]:
    try:
        tree = parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return ()
    return _value_in(tree, name)


def _value_in(tree: ast.Module, name: str) -> tuple[object, ...]:
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and not node.args.args and not node.args.posonlyargs
    }
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign | ast.AnnAssign)
            and statement.value is not None
            and any(
                isinstance(t, ast.Name) and t.id == name
                for t in (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
            )
        ):
            value = _evaluate(statement.value, functions, 0)
            return tuple(value) if isinstance(value, list | tuple) else ()
    return ()


def _evaluate(node: ast.expr, functions: dict[str, ast.FunctionDef], depth: int) -> object:
    """The value of a constant expression (see the module docstring); None when not one."""
    if depth > 3:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _evaluate(node.left, functions, depth)
        right = _evaluate(node.right, functions, depth)
        if isinstance(left, list | tuple) and isinstance(right, list | tuple):
            return [*left, *right]
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        called = node.func.id
        if called in ("tuple", "list") and len(node.args) == 1:
            return _evaluate(node.args[0], functions, depth)
        if called in functions and not node.args:
            body = [s for s in functions[called].body if not _is_docstring(s)]
            if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                return _evaluate(body[0].value, functions, depth + 1)
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _characters(rows: tuple[object, ...]) -> str:
    """Per value of each column with few distinct values, the characters starting rows with
    it; of a table of code points, ``SPREAD`` of them spread over it."""
    if len(rows) > MAX_ROWS:
        return ""
    if all(type(r) is int for r in rows):
        points = [p for p in rows if isinstance(p, int) and 0 <= p < 0x110000]
        step = max(1, len(points) // SPREAD)
        return "".join(dict.fromkeys(_char(p) for p in points[::step][:SPREAD]))
    tuples = [r for r in rows if isinstance(r, tuple) and r and type(r[0]) is int]
    if len(tuples) != len(rows):
        return ""
    found: dict[str, None] = {}
    width = min(len(r) for r in tuples)
    for column in range(1, width):
        values = dict.fromkeys(_hashable(r[column]) for r in tuples)
        if len(values) > MAX_VALUES:
            continue
        for value in values:
            found.update(dict.fromkeys(_rows_with(tuples, column, value)))
    return "".join(c for c in found if c)


def _rows_with(rows: list[Row], column: int, value: object) -> str:
    """Up to ``PER_VALUE`` characters of rows whose ``column`` is ``value``: the first row's,
    and the first whose character is a letter, mark or digit."""
    first = word = ""
    for row in rows:
        point = row[0]
        if _hashable(row[column]) != value or not isinstance(point, int):
            continue
        char = _char(point)
        if not char:
            continue
        first = first or char
        if unicodedata.category(char).startswith(_WORD_CATEGORIES):
            word = char
            break
    return "".join(dict.fromkeys(c for c in (first, word) if c))[:PER_VALUE]


def _char(point: int) -> str:
    return chr(point) if 0 <= point < 0x110000 and not 0xD800 <= point < 0xE000 else ""


def _hashable(value: object) -> object:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value
