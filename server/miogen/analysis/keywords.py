"""The keyword arguments a ``**options`` parameter expects: the keys its function's body reads.

``def grid(**interface)`` that reads ``interface["imports"]`` and ``interface.get("width", 80)``
takes ``imports`` (required: without it the read raises ``KeyError``) and ``width`` (optional,
default 80). Each key's type is inferred as a parameter's is, from what the body does with
``interface["imports"]``: a copy of the function where every read of the key is a plain name.
"""

from __future__ import annotations

import ast
import keyword
from dataclasses import dataclass, replace

from miogen.analysis.inference import FunctionNode, ModuleFacts, call_key, infer_parameter
from miogen.analysis.model import NO_DEFAULT, Parameter, Signature
from miogen.analysis.survey import walk
from miogen.analysis.typespec import ANY

MAX_HANDED_ON = 3  # functions followed through ``helper(**options)``
KEY_NAME = "_miogen_key_"  # prefix of the name a key's reads become in the rewritten copy
_READERS = ("get", "pop", "setdefault")  # options.get("key", default)


@dataclass
class _Key:
    required: bool = False  # read by subscript, never tested with ``in`` nor read with a default
    optional: bool = False
    default: object = NO_DEFAULT


def keyword_parameters(
    node: FunctionNode,
    mapping: str,
    taken: set[str],
    facts: ModuleFacts,
    owner: str,
    depth: int = 0,
) -> list[Parameter]:
    """Keyword-only parameters for the keys the body reads from ``**mapping``, in reading order,
    then those of the module's functions it hands ``**mapping`` on to."""
    keys = read_keys(node, mapping)
    wanted = {k: v for k, v in keys.items() if _usable(k) and k not in taken}
    found = _read_keys(node, mapping, wanted, facts, owner) if wanted else []
    if depth < MAX_HANDED_ON:
        taken = taken | {p.name for p in found}
        found += _handed_on(node, mapping, taken, facts, owner, depth)
    return found


def _read_keys(
    node: FunctionNode, mapping: str, wanted: dict[str, _Key], facts: ModuleFacts, owner: str
) -> list[Parameter]:
    rewritten = _KeyReads(mapping).visit(_copy(node))
    facts.keep.append(rewritten)  # inference caches by id(): the copy must outlive the module's
    found = []
    for key, seen in wanted.items():
        given = seen.default is not NO_DEFAULT
        read = Parameter(KEY_NAME + key, ANY, seen.default, given)
        spec = infer_parameter(rewritten, read, facts, owner)
        found.append(Parameter(key, spec, seen.default, seen.optional, keyword_only=True))
    return found


def _handed_on(
    node: FunctionNode, mapping: str, taken: set[str], facts: ModuleFacts, owner: str, depth: int
) -> list[Parameter]:
    """``helper(flag=True, **options)``: the helper's parameters that the call leaves open."""
    found: list[Parameter] = []
    for call in [n for n in walk(node) if isinstance(n, ast.Call)]:
        if not any(k.arg is None and _named(k.value, mapping) for k in call.keywords):
            continue
        key = call_key(call.func, owner, facts)
        signature, callee = facts.callables[key] if key is not None else (None, None)
        if key is None or signature is None or callee is None or callee is node:
            continue
        given = {k.arg for k in call.keywords if k.arg} | taken | {p.name for p in found}
        found += _open_parameters(signature, callee, len(call.args), given, facts, key[0])
        if callee.args.kwarg is not None:
            given |= {p.name for p in found}
            more = keyword_parameters(
                callee, callee.args.kwarg.arg, given, facts, key[0], depth + 1
            )
            found += more
    return found


def _open_parameters(
    signature: Signature,
    callee: FunctionNode,
    positional: int,
    given: set[str],
    facts: ModuleFacts,
    owner: str,
) -> list[Parameter]:
    """The callee's parameters that can go by keyword, past the ``positional`` ones given."""
    skipped = {a.arg for a in callee.args.posonlyargs}
    skipped |= {p.name for p in [q for q in signature.params if not q.keyword_only][:positional]}
    found = []
    for parameter in signature.params:
        if parameter.name in skipped or parameter.name in given or not _usable(parameter.name):
            continue
        spec = parameter.type
        if spec == ANY:
            spec = infer_parameter(callee, parameter, facts, owner)
        found.append(replace(parameter, type=spec, keyword_only=True))
    return found


def _copy(node: FunctionNode) -> FunctionNode:
    """A deep copy of a function's tree (``copy.deepcopy`` is several times slower on ASTs)."""
    copied = _clone(node)
    assert isinstance(copied, ast.FunctionDef | ast.AsyncFunctionDef)
    return copied


def _clone(value: object) -> object:
    if isinstance(value, ast.AST):
        kind = type(value)
        copied = kind()
        for name in (*kind._fields, *kind._attributes):
            if hasattr(value, name):
                setattr(copied, name, _clone(getattr(value, name)))
        return copied
    if isinstance(value, list):
        return [_clone(item) for item in value]
    return value  # names, numbers, strings, None: shared, never changed


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


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
    return [n for n in walk(node) if isinstance(n, ast.Subscript | ast.Call | ast.Compare)]


def _constant_key(holder: ast.expr, key: ast.expr, mapping: str) -> bool:
    return _named(holder, mapping) and isinstance(key, ast.Constant) and isinstance(key.value, str)


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
    return any(isinstance(n, ast.AugAssign) and n.target is subscript for n in walk(node))


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
