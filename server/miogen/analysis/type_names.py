"""Module-level names bound to builtin types, also inside version checks and ``try`` blocks.

Compatibility code names its types once and checks against the names: six binds
``binary_type = bytes`` and ``string_types = str,`` under ``if PY3:`` (and other types under
``else:``), then ``ensure_binary`` asks ``isinstance(s, binary_type)``. Read as unknown names,
such checks tell inference nothing, and a parameter that must be ``bytes`` to take a branch never
gets bytes. ``type_aliases`` reads each name bound at module level (in the module's body and in
the bodies of its top-level ``if``/``try`` statements, not in functions or classes) only to type
names or tuples of them, and gives it as the union of the known types among all its bindings
(``bytes | str`` for six's ``binary_type``, whose Python 2 side is ``str``), written as an
annotation the type reader resolves. A name bound anywhere at module level to something else
(a call, a constant) is left out: it is not a type name.
"""

from __future__ import annotations

import ast

from miogen.analysis.bindings import ASSIGN, module_bindings

# The builtin types the type reader knows by name (``TypeReader``'s primitives and containers).
BUILTIN_TYPES = frozenset(
    {"int", "float", "str", "bool", "bytes", "complex", "list", "set", "dict", "tuple"}
)


def type_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """name -> ``A | B`` for the module-level names bound only to builtin type names."""
    bound: dict[str, list[ast.expr]] = {}
    other: set[str] = set()
    for binding in module_bindings(tree):
        if binding.kind != ASSIGN or binding.value is None:
            continue
        target, value = binding.name, binding.value
        elements = value.elts if isinstance(value, ast.Tuple) else [value]
        if elements and all(isinstance(e, ast.Name | ast.Attribute) for e in elements):
            bound.setdefault(target, []).extend(e for e in elements if _known_type(e))
        else:
            other.add(target)
    aliases: dict[str, ast.expr] = {}
    for name, types in bound.items():
        unique = list({ast.dump(t): t for t in types}.values())
        if name in other or not unique:
            continue
        expression = unique[0]
        for following in unique[1:]:
            expression = ast.BinOp(expression, ast.BitOr(), following)
        aliases[name] = expression
    return aliases


def _known_type(node: ast.expr) -> bool:
    """``bytes``, ``builtins.bytes``: a builtin type the reader resolves."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name in BUILTIN_TYPES
