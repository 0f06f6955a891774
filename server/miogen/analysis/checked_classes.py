"""Standard-library classes the module checks values against, as classes the sampler builds.

``isinstance(obj, collections.OrderedDict)`` (or ``type(obj) is OrderedDict``) on an
unannotated parameter tells inference the parameter may be an OrderedDict, and a branch takes
one. The type reader knows the builtin types, a few value types of the standard library
(typespec.STDLIB_TYPES) and the package's own classes; a class of any other standard module was
read as unknown, and the branch stayed out of reach (marshmallow's ``pprint``).

``checked_classes`` finds the class names the module's ``isinstance`` checks and ``type(x) is
C`` comparisons use, resolves each through the module's imports to a class of a standard module,
and keeps the ones built from a value of the builtin type they derive from: ``OrderedDict``,
``Counter`` (a dict), ``UserString``'s kin that subclass ``str``, and so on (a class is kept when
``cls(base())`` works here; ``defaultdict``, whose first argument is a factory, is not). Each
becomes a ``ClassModel`` named where it is defined (``collections.OrderedDict``, however the
module imports it: ``import collections as _collections``, ``from collections import
OrderedDict``), with one positional parameter of the builtin type: the sampler builds it as it
builds the module's own classes, the type reader reads the module's spelling as that class, the
worker resolves the name through the module under test or imports its module, and the emitted
test imports the standard module (``ClassModel.module``).
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterable, Iterator

from miogen.analysis.model import ClassModel, Parameter, Signature
from miogen.analysis.typespec import STDLIB_TYPES, TypeSpec

# Builtin types a checked class may derive from, the most specific first (bool is an int).
_BASES: tuple[tuple[type, str], ...] = (
    (dict, "dict"),
    (list, "list"),
    (tuple, "tuple"),
    (set, "set"),
    (frozenset, "set"),
    (str, "str"),
    (bytes, "bytes"),
    (float, "float"),
    (int, "int"),
)
# Standard modules never imported to read a class: importing them does something.
_NOT_IMPORTED = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo"})


def checked_classes(nodes: Iterable[ast.AST], known: set[str]) -> dict[str, ClassModel]:
    """How the module writes a class (``_collections.OrderedDict``, ``OD``) -> a buildable
    class of a standard module, named by where it is defined (``collections.OrderedDict``),
    for the classes the module's type checks name (``nodes``: every node of the module).
    ``known`` names are left to the reader (the module's own classes, the package's)."""
    nodes = list(nodes)
    imports = _imports(nodes)
    found: dict[str, ClassModel] = {}
    for expression in _checked(nodes):
        text = ast.unparse(expression)
        if text in found or text in known or text.rpartition(".")[2] in STDLIB_TYPES:
            continue
        root, _, rest = text.partition(".")
        if root not in imports:
            continue
        origin = imports[root] + (f".{rest}" if rest else "")
        model = _buildable(*origin.rpartition(".")[::2])
        if model is not None and model.name not in known:
            found[text] = model
    return found


def _imports(nodes: list[ast.AST]) -> dict[str, str]:
    """bound name -> the dotted name it stands for, for the module's standard-library imports:
    ``import collections`` binds "collections", ``import collections as c`` binds "c" to
    "collections", ``from collections import OrderedDict as OD`` binds "OD" to
    "collections.OrderedDict"."""
    bound: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    bound[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return {k: v for k, v in bound.items() if _standard(v)}


def _standard(dotted: str) -> bool:
    top = dotted.split(".")[0]
    return top in sys.stdlib_module_names and top not in _NOT_IMPORTED and top != "builtins"


def _checked(nodes: list[ast.AST]) -> Iterator[ast.expr]:
    """The class expressions (names and dotted names) of ``isinstance(x, C)``, ``isinstance(x,
    (C, D))`` and ``type(x) is C``."""
    for node in nodes:
        if isinstance(node, ast.Call) and _named(node.func, "isinstance") and len(node.args) == 2:
            yield from _class_names(node.args[1])
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
                if isinstance(op, ast.Is | ast.IsNot | ast.Eq | ast.NotEq):
                    if _is_type_call(left):
                        yield from _class_names(right)
                    elif _is_type_call(right):
                        yield from _class_names(left)


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_type_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and _named(node.func, "type") and len(node.args) == 1


def _class_names(node: ast.expr) -> Iterator[ast.expr]:
    if isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from _class_names(element)
    elif isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and _dotted(node)):
        yield node


def _dotted(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _buildable(module_name: str, class_name: str) -> ClassModel | None:
    """The class ``module_name.class_name`` as a ClassModel of that name, when it derives from
    a builtin type and ``cls(base())`` builds one."""
    cls = _class(module_name, class_name)
    if cls is None:
        return None
    base = next(((kind, name) for kind, name in _BASES if issubclass(cls, kind)), None)
    if base is None:
        return None
    try:
        cls(base[0]())
    except Exception:  # noqa: BLE001 - a class that cannot be built so is not a candidate
        return None
    name = f"{module_name}.{class_name}"
    value = Parameter("/value", TypeSpec(base[1]))
    constructor = Signature(name, (value,), TypeSpec("class", name=name), 0, "constructor")
    # The emitted test imports the module (``import collections``: emit.render); the worker
    # reaches it through the module under test or imports it (worker.executor).
    return ClassModel(name, 0, 0, constructor, (), module=module_name)


def _class(module_name: str, class_name: str) -> type | None:
    if not module_name or not _standard(module_name):
        return None
    try:
        module = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - a module missing on this Python names no class
        return None
    cls = getattr(module, class_name, None)
    return cls if isinstance(cls, type) else None
