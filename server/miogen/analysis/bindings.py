"""The names a module binds at its top level, read once per tree; and string annotations
resolved through the aliases among them.

Six passes read a module's aliases (type aliases for the type reader, builtin type names bound
under version checks, stdlib types imported under another name, a package's aliases, the
``Callable`` aliases decorators return, the names of other modules' classes), each walking the
module's body with its own filter. ``module_bindings`` walks it once and keeps every binding,
in order; each pass filters the record. ``resolve`` is the one way an annotation written as a
string, or as an alias's name, is read as the expression it stands for.
"""

from __future__ import annotations

import ast
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from miogen.common.syntax import parse_expression

ASSIGN = "assign"  # X = value (one binding per name target of the statement)
ANNOTATED = "annotated"  # X: annotation [= value]
TYPE = "type"  # type X = value (Python 3.12)
IMPORT = "import"  # import a.b [as c]
FROM = "from"  # from m import n [as k]


@dataclass(frozen=True, slots=True)
class Binding:
    """One name bound by one statement of the module's body, or of a block of a top-level
    ``if``/``try`` statement (``nested``, read only by passes that look there)."""

    name: str  # the name bound: ``c`` of ``import a.b as c``, ``a`` of ``import a.b``
    kind: str  # ASSIGN, ANNOTATED, TYPE, IMPORT or FROM
    statement: ast.stmt
    value: ast.expr | None = None  # ASSIGN, TYPE; ANNOTATED: None when no value is given
    annotation: ast.expr | None = None  # ANNOTATED
    sole: bool = True  # ASSIGN: the statement's only target (``a = b = 1`` has two)
    module: str = ""  # IMPORT: the dotted name imported; FROM: the module ("" for ``from .``)
    original: str = ""  # FROM: the name imported (``n`` of ``from m import n as k``)
    level: int = 0  # FROM: the dots of a relative import
    nested: bool = False  # in a block of a top-level ``if``/``try``, not the module's body


def module_bindings(tree: ast.Module) -> tuple[Binding, ...]:
    """The bindings of ``tree``'s body and of its top-level ``if``/``try`` blocks (recursively;
    an ``if``'s body then its ``else``, a ``try``'s body, ``else``, ``finally``, then its
    handlers), in that order. Kept per tree while it lives: a tree must not change once read
    (the analysis's never do)."""
    found = _READ.get(tree)
    if found is None:
        found = _READ[tree] = tuple(_bindings(tree.body, nested=False))
    return found


_READ: weakref.WeakKeyDictionary[ast.Module, tuple[Binding, ...]] = weakref.WeakKeyDictionary()


def _bindings(body: list[ast.stmt], nested: bool) -> Iterable[Binding]:
    for node in body:
        if isinstance(node, ast.Assign):
            sole = len(node.targets) == 1
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield Binding(target.id, ASSIGN, node, node.value, sole=sole, nested=nested)
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name):
                yield Binding(
                    node.target.id, ANNOTATED, node, node.value, node.annotation, nested=nested
                )
        elif isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                yield Binding(name, IMPORT, node, module=alias.name, nested=nested)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                yield Binding(
                    alias.asname or alias.name,
                    FROM,
                    node,
                    module=node.module or "",
                    original=alias.name,
                    level=node.level or 0,
                    nested=nested,
                )
        elif isinstance(node, ast.If):
            yield from _bindings(node.body, True)
            yield from _bindings(node.orelse, True)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _bindings(block, True)
            for handler in node.handlers:
                yield from _bindings(handler.body, True)
        elif hasattr(ast, "TypeAlias") and isinstance(node, getattr(ast, "TypeAlias", ())):
            alias_node: Any = node  # pragma: no cover - Python 3.12+
            yield Binding(alias_node.name.id, TYPE, node, alias_node.value, nested=nested)


def top_level(tree: ast.Module, *kinds: str) -> list[Binding]:
    """The bindings of the module's body itself (none from ``if``/``try`` blocks) of ``kinds``."""
    return [b for b in module_bindings(tree) if not b.nested and b.kind in kinds]


def bound_once(bindings: Iterable[Binding]) -> list[Binding]:
    """Those of ``bindings`` whose name no other of them binds: an alias rebound (under a
    version check, or to another value later) is not one a checker can follow."""
    listed = list(bindings)
    counts = Counter(b.name for b in listed)
    return [b for b in listed if counts[b.name] == 1]


def resolve(
    annotation: ast.expr | None, aliases: dict[str, ast.expr], follows: int = 5
) -> tuple[ast.expr, int] | None:
    """``annotation`` as the expression it stands for, and how many aliases were followed: a
    string form parsed (once per step), a name of ``aliases`` replaced by its value, at most
    ``follows`` times. None for no annotation, a string that does not parse, or an alias chain
    longer than ``follows`` (a cycle)."""
    node = annotation
    followed = 0
    while node is not None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = parse_expression(node.value).body
            except SyntaxError:
                return None
        if not (isinstance(node, ast.Name) and node.id in aliases):
            return node, followed
        if followed == follows:
            return None
        node = aliases[node.id]
        followed += 1
    return None


def resolved(annotation: ast.expr | None, aliases: dict[str, ast.expr]) -> ast.expr | None:
    """``resolve``'s expression alone (None where it gives None)."""
    found = resolve(annotation, aliases)
    return None if found is None else found[0]
