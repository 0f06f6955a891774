"""Reads a module's source (never importing it) into a ModuleModel: units, signatures, constants."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from miogen.analysis.enrich import complete_model, with_pattern_examples
from miogen.analysis.model import (
    NO_DEFAULT,
    ClassModel,
    ConstantPool,
    ModuleModel,
    Parameter,
    Signature,
    Unit,
)
from miogen.analysis.targets import find_targets
from miogen.analysis.typespec import TypeReader, TypeSpec
from miogen.errors import SourceSyntaxError

ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
NOT_BUILDABLE_BASES = frozenset({"Protocol", "ABC", "TypedDict", "NamedTuple"}) | ENUM_BASES
EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning")


def parse_module(source: str, path: str = "<string>") -> ast.Module:
    """Parse or raise SourceSyntaxError with the line of the problem."""
    try:
        return ast.parse(source, filename=path)
    except SyntaxError as error:
        raise SourceSyntaxError(path, error.lineno or 1, error.msg) from None


def analyze_file(path: str | Path, module_name: str | None = None) -> ModuleModel:
    path = Path(path)
    source = path.read_text(encoding="utf-8")
    return analyze_source(source, str(path), module_name or path.stem)


def analyze_source(source: str, path: str = "<string>", module_name: str = "module") -> ModuleModel:
    """The whole static model of one module."""
    tree = parse_module(source, path)
    class_nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    reader = TypeReader(set(class_nodes), _type_aliases(tree))
    classes = {name: _read_class(node, reader, class_nodes) for name, node in class_nodes.items()}
    functions = {
        n.name: _read_signature(n, reader, "function")
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    classes, functions = complete_model(
        tree, classes, functions, _read_signature, (path, module_name), _sibling_classes
    )
    units = [_unit(node) for node in tree.body if _is_unit(node, classes)]
    units = _with_helper_ranges(tree, units)
    targets = find_targets(source, tree, units)
    units = [Unit(**{**_fields(u), "targets": tuple(targets.get(u.name, ()))}) for u in units]
    constants = with_pattern_examples(tree, _constants(tree))
    model = ModuleModel(path, module_name, source, units, classes, functions, constants)
    model.has_module_state = _has_module_state(tree)
    return model


_CONTAINER_CALLS = {"list", "dict", "set", "defaultdict", "deque", "Counter", "OrderedDict"}
_MUTATORS = {
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "add", "discard",
    "update", "setdefault", "appendleft", "extendleft", "sort", "reverse",
}  # fmt: skip


def _sibling_classes(path: Path, module_name: str) -> dict[str, ClassModel]:
    """How to build the classes of another module of the package (its own imports not read)."""
    tree = parse_module(path.read_text(encoding="utf-8"), str(path))
    class_nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    reader = TypeReader(set(class_nodes), _type_aliases(tree))
    classes = {name: _read_class(node, reader, class_nodes) for name, node in class_nodes.items()}
    return complete_model(tree, classes, {}, _read_signature)[0]


def _has_module_state(tree: ast.Module) -> bool:
    """Whether functions rebind globals or change module-level containers (a constant table is fine)."""
    if any(isinstance(n, ast.Global) for n in ast.walk(tree)):
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
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return any(_changes(node, containers) for f in functions for node in ast.walk(f))


def _changes(node: ast.AST, containers: set[str]) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        return (
            isinstance(owner, ast.Name) and owner.id in containers and node.func.attr in _MUTATORS
        )
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        return isinstance(node.value, ast.Name) and node.value.id in containers
    return False


def _fields(unit: Unit) -> dict:
    return {name: getattr(unit, name) for name in Unit.__slots__}


def ast_hash(node: ast.AST) -> str:
    """A hash of the code's structure: blind to formatting, comments and line numbers."""
    dumped = ast.dump(node, annotate_fields=False, include_attributes=False)
    return hashlib.sha256(dumped.encode()).hexdigest()[:16]


def _with_helper_ranges(tree: ast.Module, units: list[Unit]) -> list[Unit]:
    """Private top-level functions belong to the units that call them (transitively)."""
    helpers = {
        n.name: n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("_")
    }
    nodes = {getattr(n, "name", None): n for n in tree.body}
    result = []
    for unit in units:
        ranges = [(unit.line, unit.end_line)]
        pending, seen = [nodes[unit.name]], set()
        while pending:
            for name in _loaded_names(pending.pop()):
                if name in helpers and name not in seen and name != unit.name:
                    seen.add(name)
                    helper = helpers[name]
                    ranges.append((_first_line(helper), helper.end_lineno or helper.lineno))
                    pending.append(helper)
        result.append(Unit(**{**_fields(unit), "ranges": tuple(sorted(ranges))}))
    return result


def _loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def _is_unit(node: ast.stmt, classes: dict[str, ClassModel]) -> bool:
    if isinstance(node, ast.FunctionDef):
        return not node.name.startswith("_")
    if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
        model = classes[node.name]
        has_code = bool(model.methods or model.special) or (
            model.constructor and model.constructor.line > 0
        )
        return bool(has_code) and not node.name.endswith(EXCEPTION_SUFFIXES)
    return False


def _unit(node: ast.FunctionDef | ast.ClassDef) -> Unit:
    first = _first_line(node)
    kind = "class" if isinstance(node, ast.ClassDef) else "function"
    end = node.end_lineno or node.lineno
    return Unit(node.name, kind, first, end, ast_hash(node), ranges=((first, end),))


def _type_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    aliases: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Subscript | ast.BinOp):
                aliases[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if ast.unparse(node.annotation).endswith("TypeAlias") and node.value is not None:
                aliases[node.target.id] = node.value
        elif hasattr(ast, "TypeAlias") and isinstance(node, getattr(ast, "TypeAlias", ())):
            aliases[node.name.id] = node.value  # pragma: no cover - Python 3.12+
    return aliases


def _base_names(node: ast.ClassDef) -> set[str]:
    names = set()
    for base in node.bases:
        expr = base.value if isinstance(base, ast.Subscript) else base
        if isinstance(expr, ast.Name):
            names.add(expr.id)
        elif isinstance(expr, ast.Attribute):
            names.add(expr.attr)
    return names


def _decorator_names(node: ast.FunctionDef | ast.ClassDef) -> set[str]:
    names = set()
    for deco in node.decorator_list:
        expr = deco.func if isinstance(deco, ast.Call) else deco
        names.add(expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", ""))
    return names


def _read_class(
    node: ast.ClassDef, reader: TypeReader, class_nodes: dict[str, ast.ClassDef]
) -> ClassModel:
    bases = _base_names(node)
    methods = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
            decorators = _decorator_names(item)
            kind = (
                "property"
                if "property" in decorators or "cached_property" in decorators
                else "static"
                if "staticmethod" in decorators
                else "classmethod"
                if "classmethod" in decorators
                else "method"
            )
            if kind != "property" and any(d.endswith("setter") for d in decorators):
                continue
            methods.append(_read_signature(item, reader, kind))
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
    is_dataclass = "dataclass" in _decorator_names(node)
    return ClassModel(
        node.name,
        node.lineno,
        node.end_lineno or node.lineno,
        constructor,
        tuple(methods),
        enum_members,
        is_dataclass,
    )


def _constructor(
    node: ast.ClassDef, reader: TypeReader, class_nodes: dict[str, ast.ClassDef], seen: set[str]
) -> Signature:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return _read_signature(item, reader, "constructor")
    if "dataclass" in _decorator_names(node) or _base_names(node) & {"BaseModel"}:
        return Signature(
            "__init__", _dataclass_fields(node, reader), TypeSpec("none"), 0, "constructor"
        )
    seen.add(node.name)
    for base in _base_names(node):
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
                params.append(
                    Parameter(item.target.id, reader.read(item.annotation), default, has_default)
                )
            continue
        params.append(Parameter(item.target.id, reader.read(item.annotation), default, has_default))
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
        params.append(Parameter(arg.arg, reader.read(arg.annotation), default, has_default))
    for arg, default_node in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        default, has_default = _literal_default(default_node)
        params.append(Parameter(arg.arg, reader.read(arg.annotation), default, has_default, True))
    returns = reader.read(node.returns)
    return Signature(node.name, tuple(params), returns, node.lineno, kind)


def _constants(tree: ast.Module) -> ConstantPool:
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    ints: set[int] = set()
    floats: set[float] = set()
    strings: set[str] = set()
    raw: set[bytes] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in docstrings:
            continue
        value = node.value
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
