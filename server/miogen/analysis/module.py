"""Reads a module's source (never importing it) into a ModuleModel: units, signatures, constants."""

from __future__ import annotations

import ast
import functools
import hashlib
import operator
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TypeGuard

from coverage.exceptions import NotPython

from miogen.analysis.bindings import ANNOTATED, ASSIGN, TYPE, top_level
from miogen.analysis.enrich import base_names, complete_model, has_own_code, with_pattern_examples
from miogen.analysis.examples import example_literals
from miogen.analysis.model import (
    NO_DEFAULT,
    ClassModel,
    Completion,
    ConstantPool,
    ModuleModel,
    Parameter,
    Signature,
    Target,
    Unit,
)
from miogen.analysis.source import read_source
from miogen.analysis.survey import (
    Survey,
    decorator_names,
    has_body,
    index_tree,
    is_abstract,
    statement_walk,
    survey,
)
from miogen.analysis.targets import (
    find_targets,
    parse_code,
    segment,
    share_tree,
    statements_in,
)
from miogen.analysis.typespec import TypeReader, TypeSpec
from miogen.common.errors import SourceSyntaxError
from miogen.common.syntax import parse

ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
NOT_BUILDABLE_BASES = frozenset({"Protocol", "ABC", "TypedDict"}) | ENUM_BASES
# Built from their annotated fields, like dataclasses (NamedTuple takes them as keywords).
FIELD_CLASS_BASES = frozenset({"BaseModel", "NamedTuple"})
EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning")


def parse_module(source: str, path: str = "<string>") -> ast.Module:
    """Parse or raise SourceSyntaxError with the line of the problem."""
    try:
        return parse(source, path)
    except SyntaxError as error:
        raise SourceSyntaxError(path, error.lineno or 1, error.msg) from None


def _parse_shared(source: str, path: str) -> ast.Module:
    """The module's tree, taken from coverage.py's parse of it when there is one (the targets
    need that parse anyway; parsing a long module twice costs a tenth of its analysis)."""
    try:
        code = parse_code(source)
    except NotPython:
        return parse_module(source, path)  # raises SourceSyntaxError with the line
    return code.tree if code.tree is not None else parse_module(source, path)


def analyze_file(path: str | Path, module_name: str | None = None) -> ModuleModel:
    path = Path(path)
    source = read_source(path)
    return analyze_source(source, str(path), module_name or path.stem)


def analyze_source(source: str, path: str = "<string>", module_name: str = "module") -> ModuleModel:
    """The whole static model of one module, analysed once per source text, path and name.

    The model is shared by every caller that asks for the same module (the units of one run, the
    language server's views of one saved text): treat it as read-only. It pickles, so a process
    that analysed a module can hand the model to another.
    """
    return _analyze(source, path, module_name)


def forget_analyses() -> None:
    """Drop the models analysed so far: the package modules they read may have changed."""
    _analyze.cache_clear()
    _outline.cache_clear()


@functools.lru_cache(maxsize=16)
def _analyze(source: str, path: str, module_name: str) -> ModuleModel:
    tree = _parse_shared(source, path)
    walked = survey(tree)
    found = _units_in_order(tree, walked.names)
    targets = find_targets(source, tree, found, walked)
    return _model(source, path, module_name, tree, walked, found, targets)


def _units_in_order(tree: ast.Module, names: Mapping[int, set[str]] | None = None) -> list[Unit]:
    """The module's units without their targets, public first (their target ids do not depend
    on the private ones), each with the ranges of the private helpers it calls (``names``: the
    names each top-level statement loads, by its index, as ``Survey.names``; when None, those
    of each unit are gathered by the walk that hashes it, and a helper's when it is reached)."""
    nodes = unit_nodes(tree)
    if names is None:
        loaded = _LoadedNames(tree.body)
        positions = {id(node): index for index, node in enumerate(tree.body)}
        found = []
        for node in nodes:
            hashed, loaded[positions[id(node)]] = hash_and_names(node)
            found.append(_unit(node, hashed))
        names = loaded
    else:
        found = [_unit(node, ast_hash(node)) for node in nodes]
    found = [u for u in found if not u.private] + [u for u in found if u.private]
    return _with_helper_ranges(tree, found, names)


class _LoadedNames(dict[int, set[str]]):
    """``Survey.names`` made on demand: the names a top-level statement loads, by its index,
    found when first asked for (a long module's statements that no unit reaches are not walked)."""

    def __init__(self, body: list[ast.stmt]) -> None:
        super().__init__()
        self.body = body

    def __missing__(self, index: int) -> set[str]:
        found = self[index] = _loaded_names(self.body[index])
        return found


def _model(
    source: str,
    path: str,
    module_name: str,
    tree: ast.Module,
    walked: Survey,
    found: list[Unit],
    targets: dict[str, list[Target]],
) -> ModuleModel:
    found = [replace(u, targets=tuple(targets.get(u.name, ()))) for u in found]
    units = [u for u in found if not u.private]
    model = ModuleModel(path, module_name, source, units, _complete, _constants(walked, tree))
    model.private_units = [u for u in found if u.private]
    model.has_module_state = _has_module_state(tree, walked)
    return model


def outline_source(source: str, path: str = "<string>", module_name: str = "module") -> ModuleModel:
    """``analyze_source`` without the targets: every unit as the analysis has it (name, lines,
    ranges, hash) but with no targets, from a parse and a walk of the tree (no bytecode, no
    coverage.py arcs: about a third of a long module's analysis). ``unit_targets`` gives the
    targets of the units asked for. Kept per source text, path and name, like the analysis."""
    return _outline(source, path, module_name)[0]


def outline_tree(source: str, path: str = "<string>", module_name: str = "module") -> ast.Module:
    """The tree ``outline_source`` read (kept with the outline; read-only)."""
    return _outline(source, path, module_name)[1]


@functools.lru_cache(maxsize=4)
def _outline(source: str, path: str, module_name: str) -> tuple[ModuleModel, ast.Module]:
    tree = parse_module(source, path)
    share_tree(source, tree)  # coverage.py's parse of the text, if asked for, takes this tree
    found = _units_in_order(tree)
    units = [u for u in found if not u.private]
    # The constants are read with the signatures (``_complete_outlined``): only the engine reads
    # them; walking every node of a long module for them was a sixth of its outline.
    model = ModuleModel(path, module_name, source, units, _complete_outlined)
    model.private_units = [u for u in found if u.private]
    model.has_module_state = _has_module_state(tree, None)
    return model, tree


def _complete_outlined(model: ModuleModel) -> Completion:
    """``_complete`` of an outlined model, whose constants are read first."""
    tree = _parse_shared(model.source, model.path)
    model.literals = _constants(survey(tree), tree)
    return _complete(model)


def _loaded_names(statement: ast.stmt) -> set[str]:
    """The ids of the ``ast.Name`` nodes in ``statement`` (the survey's walk, names only)."""
    found: set[str] = set()
    stack: list[ast.AST] = [statement]
    name_kind = ast.Name
    while stack:
        node = stack.pop()
        if type(node) is name_kind:
            found.add(node.id)
            continue
        for field_name in node._fields:
            value = getattr(node, field_name, None)
            if isinstance(value, ast.AST):
                stack.append(value)
            elif type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
    return found


def unit_targets(
    source: str, path: str, module_name: str, names: Collection[str]
) -> dict[str, tuple[Target, ...]]:
    """The targets of the units ``names`` (public or private), exactly as ``analyze_source``
    has them, from coverage.py's parse of their ``unit_segment`` (not of the whole text: a
    unit's targets, ids included, depend on its own code alone)."""
    model, tree = _outline(source, path, module_name)
    found = [u for u in [*model.units, *model.private_units] if u.name in names]
    ranges = [r for unit in found for r in unit.ranges]
    targets = find_targets(segment(source, tree, ranges), tree, found, statements_in(tree, ranges))
    return {name: tuple(targets[name]) for name in names if name in targets}


def unit_segment(source: str, path: str, module_name: str, names: Collection[str]) -> str:
    """The text of the units ``names`` and of the private helpers they call, each at its own
    lines, the other lines blank (``targets.segment``): what ``unit_targets`` parses."""
    model, tree = _outline(source, path, module_name)
    found = [u for u in [*model.units, *model.private_units] if u.name in names]
    return segment(source, tree, [r for unit in found for r in unit.ranges])


def unit_nodes(tree: ast.Module) -> list[ast.FunctionDef | ast.ClassDef]:
    """The module's units, public and private, in order: its top-level functions and the classes
    with code of their own. Read from the tree alone (no targets): a small part of an analysis."""
    class_nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    # A class with a public method has code of its own (``has_own_code``): its signatures
    # need not be read (most of this, on a long module). The others' are.
    with_code = {name for name, node in class_nodes.items() if _has_public_method(node)}
    others = {name: node for name, node in class_nodes.items() if name not in with_code}
    if others:
        reader = TypeReader(set(class_nodes), _type_aliases(tree))
        with_code.update(
            name
            for name, node in others.items()
            if has_own_code(
                _read_class(node, reader, class_nodes), node, class_nodes, reader, _read_signature
            )
        )
    return [node for node in definitions(tree.body) if _is_unit(node, with_code)]


def _has_public_method(node: ast.ClassDef) -> bool:
    """Whether ``_read_class`` finds a method of the class (its ``methods`` are not empty)."""
    return any(
        isinstance(item, ast.FunctionDef)
        and not item.name.startswith("_")
        and _method_kind(item) is not None
        for item in definitions(node.body)
    )


def unit_headers(tree: ast.Module) -> list[tuple[str, int]]:
    """The public units' names and first lines (decorators included), as the analysis has them."""
    return [(n.name, _first_line(n)) for n in unit_nodes(tree) if not n.name.startswith("_")]


def _complete(model: ModuleModel) -> Completion:
    """The signatures of the model's module with their types inferred, and its constants."""
    tree = _parse_shared(model.source, model.path)  # cached: the analysis parsed it already
    class_nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    reader = TypeReader(set(class_nodes), _type_aliases(tree))
    classes = {name: _read_class(node, reader, class_nodes) for name, node in class_nodes.items()}
    functions = {
        n.name: _read_signature(n, reader, "function")
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    location = (model.path, model.module_name)
    walked = index_tree(tree)
    classes, functions = complete_model(
        tree, classes, functions, _read_signature, location, _sibling_classes, walked
    )
    return Completion(classes, functions, with_pattern_examples(tree, model.literals, walked))


_CONTAINER_CALLS = {"list", "dict", "set", "defaultdict", "deque", "Counter", "OrderedDict"}
_MUTATORS = {
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "add", "discard",
    "update", "setdefault", "appendleft", "extendleft", "sort", "reverse",
}  # fmt: skip


def _sibling_classes(path: Path, module_name: str) -> dict[str, ClassModel]:
    """How to build the classes of another module of the package (its own imports not read)."""
    tree = parse_module(read_source(path), str(path))
    class_nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    reader = TypeReader(set(class_nodes), _type_aliases(tree))
    classes = {name: _read_class(node, reader, class_nodes) for name, node in class_nodes.items()}
    return complete_model(tree, classes, {}, _read_signature, (str(path), module_name))[0]


def _has_module_state(tree: ast.Module, walked: Survey | None) -> bool:
    """Whether functions rebind globals or change module-level containers (a constant table is
    fine). ``walked``: the tree's survey, made here only if needed when None."""
    if any(isinstance(node, ast.Global) for node in statement_walk(tree)):
        return True
    containers = set()
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        is_container = isinstance(value, ast.List | ast.Dict | ast.Set) or (
            isinstance(value, ast.Call)
            and getattr(value.func, "id", getattr(value.func, "attr", "")) in _CONTAINER_CALLS
        )
        if is_container:
            containers |= {t.id for t in targets if isinstance(t, ast.Name)}
    if not containers:
        return False
    walked = walked or survey(tree)
    return any(_changes(node, containers) for node in walked.in_function_calls)


def _changes(node: ast.AST, containers: set[str]) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        return (
            isinstance(owner, ast.Name) and owner.id in containers and node.func.attr in _MUTATORS
        )
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        return isinstance(node.value, ast.Name) and node.value.id in containers
    return False


def ast_hash(node: ast.AST) -> str:
    """A hash of the code's structure: blind to formatting, comments and line numbers.

    The text hashed is exactly ``ast.dump(node, annotate_fields=False)`` (hashes are stored in
    the continuous-generation history), written by ``_dump``, which is about twice as fast.
    """
    return hash_and_names(node)[0]


def hash_and_names(node: ast.AST) -> tuple[str, set[str]]:
    """``ast_hash(node)`` and the ids of the ``ast.Name`` nodes in it (what ``Survey.names``
    has of a top-level statement), from one walk: walking a long module's units once for their
    hashes and again for the helpers they call was a fifth of its outline."""
    parts: list[str] = []
    names: set[str] = set()
    _dump(node, parts, names)
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:16], names


# Per node class: (field name, whether the class's default for it is None).
_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}
# The text of each node class without fields (``Load()``, ``Add()``: a good part of the nodes).
_LEAVES: dict[type, str] = {}


def _dump(value: object, parts: list[str], names: set[str]) -> None:
    """Append ``ast.dump``'s text of ``value`` (no field names, no positions) to ``parts``
    (its own values written here, without a call each: most are strings and contexts), and
    the id of each ``ast.Name`` in it to ``names``."""
    if not isinstance(value, ast.AST):
        if isinstance(value, list):
            _dump_list(value, parts, names)
        else:
            parts.append(repr(value))
        return
    kind = type(value)
    if kind is ast.Name:
        names.add(value.id)  # type: ignore[attr-defined]
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(
            (name, getattr(kind, name, ...) is None) for name in kind._fields
        )
        if not fields:
            _LEAVES[kind] = kind.__name__ + "()"
    append = parts.append
    append(kind.__name__ + "(")
    named, first = False, True
    for name, optional in fields:
        try:
            item = getattr(value, name)
        except AttributeError:
            named = True  # from here on ast.dump names the fields it writes
            continue
        if item is None and optional:
            named = True
            continue
        if not first:
            append(", ")
        first = False
        if named:
            append(name + "=")
        if type(item) is str:
            append(repr(item))
        elif isinstance(item, ast.AST):
            leaf = _LEAVES.get(type(item))
            if leaf is None:
                _dump(item, parts, names)
            else:
                append(leaf)
        elif isinstance(item, list):
            _dump_list(item, parts, names)
        else:
            append(repr(item))
    append(")")


def _dump_list(values: list[object], parts: list[str], names: set[str]) -> None:
    parts.append("[")
    for index, item in enumerate(values):
        if index:
            parts.append(", ")
        leaf = _LEAVES.get(type(item))
        if leaf is None:
            _dump(item, parts, names)
        else:
            parts.append(leaf)
    parts.append("]")


def _with_helper_ranges(
    tree: ast.Module, units: list[Unit], names: Mapping[int, set[str]]
) -> list[Unit]:
    """Private top-level functions and classes belong to the units that call them
    (transitively): a public check that builds a private checker object reaches its branches."""
    helpers = {
        n.name: n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.name.startswith("_")
    }
    index = {getattr(n, "name", None): i for i, n in enumerate(tree.body)}
    result = []
    for unit in units:
        ranges = [(unit.line, unit.end_line)]
        pending, seen = [unit.name], set()
        while pending:
            for name in names[index[pending.pop()]]:
                if name in helpers and name not in seen and name != unit.name:
                    seen.add(name)
                    helper = helpers[name]
                    ranges.append((_first_line(helper), helper.end_lineno or helper.lineno))
                    pending.append(name)
        result.append(replace(unit, ranges=tuple(sorted(ranges))))
    return result


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def _is_unit(node: ast.stmt, with_code: set[str]) -> TypeGuard[ast.FunctionDef | ast.ClassDef]:
    """Top-level functions, and classes with code of their own to run (private ones too: they
    are units when named; dunder names never are). Interfaces (``Protocol``, classes whose
    methods are all abstract or empty) and exceptions are not units."""
    if isinstance(node, ast.FunctionDef):
        return not _is_dunder(node.name)
    if isinstance(node, ast.ClassDef) and not _is_dunder(node.name):
        return (
            node.name in with_code
            and not node.name.endswith(EXCEPTION_SUFFIXES)
            and not _is_interface(node)
        )
    return False


def definitions(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of ``body`` in order, less ``@overload`` stubs and definitions that a
    later one of the same name replaces (only the last ``def``/``class`` runs)."""
    last: dict[str, int] = {}
    for index, statement in enumerate(body):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if "overload" not in decorator_names(statement):
                last[statement.name] = index
    return [
        statement
        for index, statement in enumerate(body)
        if last.get(getattr(statement, "name", ""), index) == index
        and not (isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
                 and "overload" in decorator_names(statement))
    ]  # fmt: skip


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _is_interface(node: ast.ClassDef) -> bool:
    """A Protocol, or a class whose every method is abstract or has no code (``...``, ``pass``,
    a docstring, ``raise NotImplementedError``): there is nothing of its own to run."""
    if "Protocol" in _base_names(node):
        return True
    methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return bool(methods) and all(is_abstract(m) or not has_body(m) for m in methods)


def _unit(node: ast.FunctionDef | ast.ClassDef, hashed: str) -> Unit:
    first = _first_line(node)
    kind = "class" if isinstance(node, ast.ClassDef) else "function"
    end = node.end_lineno or node.lineno
    return Unit(node.name, kind, first, end, hashed, ranges=((first, end),))


def _type_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """``X = A | B``, ``X = list[A]``, ``X: TypeAlias = ...`` and ``type X = ...``."""
    aliases: dict[str, ast.expr] = {}
    for b in top_level(tree, ASSIGN, ANNOTATED, TYPE):
        if b.kind == ASSIGN and not (b.sole and isinstance(b.value, ast.Subscript | ast.BinOp)):
            continue
        annotation = b.annotation
        if b.kind == ANNOTATED and not (
            annotation and ast.unparse(annotation).endswith("TypeAlias")
        ):
            continue
        if b.value is not None:
            aliases[b.name] = b.value
    return aliases


def _base_names(node: ast.ClassDef) -> set[str]:
    return set(base_names(node))


def _read_class(
    node: ast.ClassDef, reader: TypeReader, class_nodes: dict[str, ast.ClassDef]
) -> ClassModel:
    bases = _base_names(node)
    methods = []
    for item in definitions(node.body):
        if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
            kind = _method_kind(item)
            if kind is not None:
                methods.append(_read_signature(item, reader, kind))
    for alias, item in _method_aliases(node, class_nodes):
        kind = _method_kind(item)
        if kind is not None and kind != "property":
            methods.append(replace(_read_signature(item, reader, kind), name=alias))
    enum_members: tuple[str, ...] = ()
    constructor: Signature | None
    if bases & ENUM_BASES:
        enum_members = tuple(
            t.id
            for item in node.body
            if isinstance(item, ast.Assign)
            for t in item.targets
            if isinstance(t, ast.Name) and not t.id.startswith("_")
        )
        constructor = None
    elif bases & NOT_BUILDABLE_BASES:
        constructor = None
    else:
        constructor = _constructor(node, reader, class_nodes, set())
    is_dataclass = "dataclass" in decorator_names(node)
    return ClassModel(
        node.name,
        node.lineno,
        node.end_lineno or node.lineno,
        constructor,
        tuple(methods),
        enum_members,
        is_dataclass,
        generic=_generic(node, class_nodes, set()),
    )


_GENERIC_BASES = frozenset({"Generic", "Protocol"})


def _generic(node: ast.ClassDef, class_nodes: dict[str, ast.ClassDef], seen: set[str]) -> bool:
    """Whether the class takes a type parameter: ``Generic[T]`` (or ``Protocol[T]``) among its
    bases, a PEP 695 ``class Box[T]``, or a subscripted base of the module that is generic."""
    if getattr(node, "type_params", None):
        return True
    seen.add(node.name)
    for base in node.bases:
        if not isinstance(base, ast.Subscript):
            continue
        name = ast.unparse(base.value).rsplit(".", 1)[-1]
        if name in _GENERIC_BASES:
            return True
        parent = class_nodes.get(name)
        if parent is not None and name not in seen and _generic(parent, class_nodes, seen):
            return True
    return False


def _method_kind(item: ast.FunctionDef) -> str | None:
    """method | property | static | classmethod; None for a property's setter or deleter."""
    decorators = decorator_names(item)
    if "property" in decorators or "cached_property" in decorators:
        return "property"
    if any(d.endswith(("setter", "deleter")) for d in decorators):
        return None
    if "staticmethod" in decorators:
        return "static"
    return "classmethod" if "classmethod" in decorators else "method"


def _method_aliases(
    node: ast.ClassDef, class_nodes: dict[str, ast.ClassDef]
) -> list[tuple[str, ast.FunctionDef]]:
    """Public names a class body binds to a method (``get = __getitem__``, ``register =
    Tree.__setitem__``): callable by that name with the method's parameters."""
    found = []
    for item in node.body:
        if not (isinstance(item, ast.Assign) and len(item.targets) == 1):
            continue
        target, value = item.targets[0], item.value
        if not isinstance(target, ast.Name) or target.id.startswith("_"):
            continue
        owner, name = node, ""
        if isinstance(value, ast.Name):
            name = value.id
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
            owner, name = class_nodes.get(value.value.id, node), value.attr
            if value.value.id not in class_nodes:
                continue
        method = next(
            (f for f in owner.body if isinstance(f, ast.FunctionDef) and f.name == name), None
        )
        if method is not None:
            found.append((target.id, method))
    return found


def _constructor(
    node: ast.ClassDef, reader: TypeReader, class_nodes: dict[str, ast.ClassDef], seen: set[str]
) -> Signature:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return _read_signature(item, reader, "constructor")
    if "dataclass" in decorator_names(node) or _base_names(node) & FIELD_CLASS_BASES:
        return Signature(
            "__init__", _dataclass_fields(node, reader), TypeSpec("none"), 0, "constructor"
        )
    seen.add(node.name)
    for base in base_names(node):  # the first base that has one, as Python finds it
        if base in class_nodes and base not in seen:
            return _constructor(class_nodes[base], reader, class_nodes, seen)
    return Signature("__init__", (), TypeSpec("none"), 0, "constructor")


def _dataclass_fields(node: ast.ClassDef, reader: TypeReader) -> tuple[Parameter, ...]:
    params = []
    for item in node.body:
        if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
            continue
        if "ClassVar" in ast.unparse(item.annotation):
            continue
        default, has_default = _literal_default(item.value)
        if isinstance(item.value, ast.Call):  # field(default=...) / field(default_factory=...)
            has_default = any(k.arg in ("default", "default_factory") for k in item.value.keywords)
            for keyword in item.value.keywords:
                if keyword.arg == "init" and getattr(keyword.value, "value", True) is False:
                    break
            else:
                spec = reader.read(item.annotation)
                params.append(Parameter(item.target.id, spec, default, has_default, annotated=True))
            continue
        spec = reader.read(item.annotation)
        params.append(Parameter(item.target.id, spec, default, has_default, annotated=True))
    return tuple(params)


def _literal_default(node: ast.expr | None) -> tuple[object, bool]:
    if node is None:
        return NO_DEFAULT, False
    try:
        return ast.literal_eval(node), True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NO_DEFAULT, True


def _read_signature(
    node: ast.FunctionDef | ast.AsyncFunctionDef, reader: TypeReader, kind: str
) -> Signature:
    args = node.args
    positional = args.posonlyargs + args.args
    if kind in ("method", "classmethod", "property", "constructor") and positional:
        positional = positional[1:]  # self / cls
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = []
    for arg, default_node in zip(positional, defaults, strict=False):
        default, has_default = _literal_default(default_node)
        params.append(_parameter(arg, reader, default, has_default, keyword_only=False))
    for arg, default_node in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        default, has_default = _literal_default(default_node)
        params.append(_parameter(arg, reader, default, has_default, keyword_only=True))
    returns = reader.read(node.returns)
    return Signature(node.name, tuple(params), returns, node.lineno, kind)


def _parameter(
    arg: ast.arg, reader: TypeReader, default: object, has_default: bool, keyword_only: bool
) -> Parameter:
    annotated = arg.annotation is not None
    spec = reader.read(arg.annotation)
    return Parameter(arg.arg, spec, default, has_default, keyword_only, annotated=annotated)


def _constants(walked: Survey, tree: ast.Module) -> ConstantPool:
    """The source's literals, docstrings left out but for their doctest examples' (inputs the
    author knew to be valid: analysis.examples)."""
    docstrings = set()
    for scope in walked.of_type(ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef):
        first = getattr(scope, "body", None)
        if first and isinstance(first[0], ast.Expr) and isinstance(first[0].value, ast.Constant):
            docstrings.add(id(first[0].value))
    ints: set[int] = set()
    floats: set[float] = set()
    strings: set[str] = set()
    raw: set[bytes] = set()
    values = [n.value for n in walked.of_type(ast.Constant) if id(n) not in docstrings]
    # What the module computes from its constants alone (``(1 << 32) - 1``, ``2**31``): the
    # values it compares and masks with, never written as one literal.
    folded = [_folded(n) for n in walked.operations]
    values += [value for value in folded if value is not None]
    for value in [*values, *example_literals(tree)]:
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int) and abs(value) < 2**63:
            ints.update((value, value - 1, value + 1, -value))
        elif isinstance(value, float):
            floats.add(value)
        elif isinstance(value, str) and len(value) <= 200:
            strings.add(value)
        elif isinstance(value, bytes) and len(value) <= 200:
            raw.add(value)
    return ConstantPool(
        tuple(sorted(ints)), tuple(sorted(floats)), tuple(sorted(strings)), tuple(sorted(raw))
    )


_FOLDS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}  # fmt: skip


def _folded(node: ast.expr) -> int | None:
    """The int an expression of int literals alone makes (``(1 << 32) - 1``: 4294967295);
    None for any other, or past 2**64 on the way (a shift or power is bounded first).

    >>> [_folded(ast.parse(text, mode="eval").body) for text in ("(1 << 32) - 1", "-2**31")]
    [4294967295, -2147483648]
    >>> [_folded(ast.parse(text, mode="eval").body) for text in ("x << 32", "10**100", "1 // 0")]
    [None, None, None]
    """
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
        operand = _folded(node.operand)
        if operand is None:
            return None
        if isinstance(node.op, ast.USub):
            return -operand
        return ~operand if isinstance(node.op, ast.Invert) else operand
    if not isinstance(node, ast.BinOp) or type(node.op) not in _FOLDS:
        return None
    left, right = _folded(node.left), _folded(node.right)
    if left is None or right is None:
        return None
    if isinstance(node.op, (ast.LShift, ast.RShift, ast.Pow)) and not 0 <= right <= 64:
        return None
    if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
        return None
    if isinstance(node.op, ast.Pow) and abs(left) > 2**16:
        return None
    value = _FOLDS[type(node.op)](left, right)
    return value if abs(value) <= 2**64 else None
