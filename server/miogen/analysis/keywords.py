"""The keyword arguments a ``**options`` parameter expects: the keys its function's body reads.

``def grid(**interface)`` that reads ``interface["imports"]`` and ``interface.get("width", 80)``
takes ``imports`` (required: without it the read raises ``KeyError``) and ``width`` (optional,
default 80). Each key's type is inferred as a parameter's is, from what the body does with
``interface["imports"]``: a copy of the function where every read of the key is a plain name.
"""

from __future__ import annotations

import ast
import copy
import keyword
from dataclasses import dataclass

from miogen.analysis.inference import FunctionNode, ModuleFacts, infer_parameter
from miogen.analysis.model import NO_DEFAULT, Parameter
from miogen.analysis.typespec import ANY

KEY_NAME = "_miogen_key_"  # prefix of the name a key's reads become in the rewritten copy
_READERS = ("get", "pop", "setdefault")  # options.get("key", default)


@dataclass
class _Key:
    required: bool = False  # read by subscript, never tested with ``in`` nor read with a default
    optional: bool = False
    default: object = NO_DEFAULT


def keyword_parameters(
    node: FunctionNode, mapping: str, taken: set[str], facts: ModuleFacts, owner: str
) -> list[Parameter]:
    """Keyword-only parameters for the keys the body reads from ``**mapping``, in reading order."""
    keys = read_keys(node, mapping)
    wanted = {k: v for k, v in keys.items() if _usable(k) and k not in taken}
    if not wanted:
        return []
    rewritten = _KeyReads(mapping).visit(copy.deepcopy(node))
    facts.keep.append(rewritten)  # inference caches by id(): the copy must outlive the module's
    found = []
    for key, seen in wanted.items():
        given = seen.default is not NO_DEFAULT
        read = Parameter(KEY_NAME + key, ANY, seen.default, given)
        spec = infer_parameter(rewritten, read, facts, owner)
        found.append(Parameter(key, spec, seen.default, seen.optional, keyword_only=True))
    return found


def read_keys(node: FunctionNode, mapping: str) -> dict[str, _Key]:
    """Every constant key the function reads from ``mapping``, and how."""
    keys: dict[str, _Key] = {}
    for inner in sorted(_nodes(node), key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(inner, ast.Subscript) and _constant_key(inner.value, inner.slice, mapping):
            key = keys.setdefault(_text(inner.slice), _Key())
            key.required |= not isinstance(inner.ctx, ast.Store) or _is_augmented(inner, node)
        elif isinstance(inner, ast.Call) and _is_reader(inner, mapping):
            key = keys.setdefault(_text(inner.args[0]), _Key())
            key.optional = True
            if len(inner.args) > 1 and key.default is NO_DEFAULT:
                key.default = _literal(inner.args[1])
        elif isinstance(inner, ast.Compare) and len(inner.ops) == 1:
            if isinstance(inner.ops[0], ast.In | ast.NotIn):
                if _constant_key(inner.comparators[0], inner.left, mapping):
                    keys.setdefault(_text(inner.left), _Key()).optional = True
    return {k: v for k, v in keys.items() if v.required or v.optional}


def _nodes(node: FunctionNode) -> list[ast.expr]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Subscript | ast.Call | ast.Compare)]


def _constant_key(holder: ast.expr, key: ast.expr, mapping: str) -> bool:
    named = isinstance(holder, ast.Name) and holder.id == mapping
    return named and isinstance(key, ast.Constant) and isinstance(key.value, str)


def _is_reader(call: ast.Call, mapping: str) -> bool:
    function = call.func
    return (
        isinstance(function, ast.Attribute)
        and function.attr in _READERS
        and bool(call.args)
        and _constant_key(function.value, call.args[0], mapping)
    )


def _is_augmented(subscript: ast.Subscript, node: FunctionNode) -> bool:
    """``options["text"] += "x"`` reads the key before it writes it."""
    return any(isinstance(n, ast.AugAssign) and n.target is subscript for n in ast.walk(node))


def _text(key: ast.expr) -> str:
    assert isinstance(key, ast.Constant)
    return str(key.value)


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NO_DEFAULT


def _usable(key: str) -> bool:
    return key.isidentifier() and not keyword.iskeyword(key) and not key.startswith("_")


class _KeyReads(ast.NodeTransformer):
    """``mapping["key"]`` and ``mapping.get("key", ...)`` become the name ``_miogen_key_key``."""

    def __init__(self, mapping: str) -> None:
        self.mapping = mapping

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        if _constant_key(node.value, node.slice, self.mapping):
            return _name(_text(node.slice), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if _is_reader(node, self.mapping):
            return _name(_text(node.args[0]), node)
        return node


def _name(key: str, where: ast.expr) -> ast.Name:
    return ast.copy_location(ast.Name(KEY_NAME + key, ast.Load()), where)
