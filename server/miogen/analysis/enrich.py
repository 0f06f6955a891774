"""Completes a module's model with what calling real code takes.

Constructors written as ``__new__``; special methods (operators, ``len``, ``in``, ``with``) and
property setters as callables; classes imported from the package's other modules, and the
standard library's that its type checks name (analysis.checked_classes); types for
unannotated parameters and the classes that factories return (analysis.inference); examples of
the module's regular expressions in the constant pool.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from miogen.analysis import (
    decorated,
    guards,
    inference,
    keywords,
    overloads,
    regexes,
    type_names,
)
from miogen.analysis.bindings import ASSIGN, FROM, Binding, top_level
from miogen.analysis.checked_classes import checked_classes
from miogen.analysis.inference import BUILTIN_ATTRIBUTES, FunctionNode, ModuleFacts
from miogen.analysis.model import ClassModel, ConstantPool, Parameter, Signature
from miogen.analysis.opaque import OpaqueNames
from miogen.analysis.source import read_source
from miogen.analysis.special import SPECIAL_METHODS
from miogen.analysis.survey import TreeIndex, index_tree
from miogen.analysis.typespec import ANY, TypeReader, TypeSpec, binding_aliases, union
from miogen.common.errors import SourceSyntaxError
from miogen.common.syntax import parse

ReadSignature = Callable[[FunctionNode, TypeReader, str], Signature]
Analyse = Callable[[Path, str], dict[str, ClassModel]]
# Special methods whose parameters mypy reads as positional-only (mypy.sharedparse's
# MAGIC_METHODS_POS_ARGS_ONLY: every special method but those that take keywords).
MAGIC_POSITIONAL = frozenset(
    {
        "__abs__", "__complex__", "__contains__", "__buffer__", "__del__", "__delattr__",
        "__delitem__", "__enter__", "__exit__", "__float__", "__getattr__",
        "__getattribute__", "__getitem__", "__hex__", "__int__", "__invert__", "__iter__",
        "__len__", "__long__", "__neg__", "__oct__", "__pos__", "__release_buffer__",
        "__repr__", "__reversed__", "__setitem__", "__str__",
    }
    | {
        f"__{name}__"
        for name in (
            "add and divmod eq floordiv ge gt iadd iand idiv ifloordiv ilshift imatmul imod "
            "imul ior ipow irshift isub itruediv ixor le lshift lt matmul mod mul ne or pow "
            "radd rand rdiv rfloordiv rlshift rmatmul rmod rmul ror rpow rrshift rshift rsub "
            "rtruediv rxor sub truediv xor"
        ).split()
    }
)  # fmt: skip
MAX_PACKAGE_FILES = 20  # sibling modules read for the classes a module imports


def complete_model(
    tree: ast.Module,
    classes: dict[str, ClassModel],
    functions: dict[str, Signature],
    read_signature: ReadSignature,
    location: tuple[str, str] = ("<string>", "module"),
    analyse: Analyse | None = None,
    tree_index: TreeIndex | None = None,
) -> tuple[dict[str, ClassModel], dict[str, Signature]]:
    """The module's classes (its own, then those it imports from its package) and functions,
    completed. ``location`` is (path, module name); ``analyse`` reads a sibling module's classes;
    ``tree_index`` is ``survey.index_tree(tree)`` when the caller has it.
    """
    tree_index = tree_index or index_tree(tree)
    imported = package_classes(tree, location, analyse) if analyse else {}
    imported = {name: cls for name, cls in imported.items() if name not in classes}
    nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    known = {**imported, **classes}
    # Standard-library classes the module's type checks name (analysis.checked_classes).
    spelled = checked_classes(tree_index.nodes, set(known))
    checked = {cls.name: cls for cls in spelled.values()}
    known = {**checked, **known}
    aliases = {
        **_generic_aliases(tree),  # ``_I = Union[Import, ImportFrom]``, read again with all names
        **package_aliases(tree, location),
        **type_names.type_aliases(tree),
        **binding_aliases(tree),
    }
    reader = TypeReader(
        set(known),
        {k: v for k, v in aliases.items() if k not in known},
        {text: cls.name for text, cls in spelled.items()},
    )
    facts = ModuleFacts(
        reader,
        _attribute_table(nodes, known, tree_index),
        _bases(nodes),
        _callables(tree, nodes, classes, functions, read_signature, reader),
        tree=tree_index,
        overloads=overloads.overload_stubs(tree),
        opaque=OpaqueNames(tree),
    )
    inference.call_sites(tree, facts, set(known))
    completed = {
        name: _complete_class(cls, nodes[name], nodes, facts, read_signature)
        for name, cls in classes.items()
    }
    arities = decorated.callable_arities(tree)  # what a decorator's type makes of a function
    functions = {
        name: decorated.as_decorated(
            _complete_signature(signature, _function_node(tree, name), facts, ""),
            arities.get(name),
        )
        for name, signature in functions.items()
    }
    return {**completed, **imported, **checked}, functions


def _generic_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``Name = Union[...]`` / ``Name = A | B``: the first reading of signatures
    has them (analysis.module), but not the names that the full reader knows (``ast`` nodes,
    classes imported from the package). A filter on the module's bindings (``analysis.
    bindings``, read once per tree): the sole target of a plain assignment in its body."""
    return {
        b.name: b.value
        for b in top_level(tree, ASSIGN)
        if b.sole and isinstance(b.value, ast.Subscript | ast.BinOp)
    }


def _function_node(tree: ast.Module, name: str) -> FunctionNode | None:
    """The definition that counts: the last one (``@overload`` stubs come before it)."""
    found = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            found = node
    return found


# -- classes -----------------------------------------------------------------------------------


def _complete_class(
    cls: ClassModel,
    node: ast.ClassDef,
    nodes: dict[str, ast.ClassDef],
    facts: ModuleFacts,
    read_signature: ReadSignature,
) -> ClassModel:
    constructor = _constructor(cls, node, nodes, facts.reader, read_signature)
    if constructor is not None:
        found = _defined(node, nodes, constructor.name)
        constructor = _complete_signature(constructor, found, facts, cls.name)
    methods = tuple(
        _complete_signature(m, _method_node(node, nodes, m.name), facts, cls.name)
        for m in cls.methods
    )
    special = tuple(_special(cls.name, node, nodes, facts, read_signature))
    return replace(cls, constructor=constructor, methods=methods, special=special)


def has_own_code(
    cls: ClassModel,
    node: ast.ClassDef,
    nodes: dict[str, ast.ClassDef],
    reader: TypeReader,
    read_signature: ReadSignature,
) -> bool:
    """Whether the completed class will have code of its own to run (methods, special methods,
    a constructor written in the module), read without inferring any type."""
    if cls.methods or any(True for _ in _special_members(node, nodes)) or _setter_nodes(node):
        return True
    constructor = _constructor(cls, node, nodes, reader, read_signature)
    return constructor is not None and constructor.line > 0


def _constructor(
    cls: ClassModel,
    node: ast.ClassDef,
    nodes: dict[str, ast.ClassDef],
    reader: TypeReader,
    read_signature: ReadSignature,
) -> Signature | None:
    """The constructor as the module writes it: ``__new__``, a namedtuple's fields, the last
    definition after ``@overload`` stubs (types not inferred yet)."""
    constructor = cls.constructor
    if constructor is not None and constructor.line == 0:
        created = _defined(node, nodes, "__new__")
        if created is not None and _defined(node, nodes, "__init__") is None:
            constructor = read_signature(created, reader, "constructor")
        elif not constructor.params:
            constructor = _namedtuple_constructor(node) or constructor
    if constructor is not None and constructor.kind == "constructor":
        defined = _defined(node, nodes, constructor.name)
        if defined is not None and defined.lineno != constructor.line:  # an overload stub
            constructor = read_signature(defined, reader, "constructor")
    return constructor


def _namedtuple_constructor(node: ast.ClassDef) -> Signature | None:
    """``class Point(namedtuple("Point", "x y"))``: the fields are the constructor's parameters."""
    for base in node.bases:
        if not (isinstance(base, ast.Call) and len(base.args) >= 2):
            continue
        function = base.func
        name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
        fields = base.args[1]
        if name != "namedtuple":
            continue
        if isinstance(fields, ast.Constant) and isinstance(fields.value, str):
            names = fields.value.replace(",", " ").split()
        elif isinstance(fields, ast.List | ast.Tuple):
            names = [str(e.value) for e in fields.elts if isinstance(e, ast.Constant)]
        else:
            continue
        params = tuple(Parameter(n, ANY) for n in names if n.isidentifier())
        return Signature("__new__", params, ANY, 0, "constructor")  # 0: no code of its own
    return None


def _defined(node: ast.ClassDef, nodes: dict[str, ast.ClassDef], name: str) -> FunctionNode | None:
    """The definition of a method in the class or its bases within the module: the class's last
    one (``@overload`` stubs come before it)."""
    for owner in _lineage(node, nodes):
        found = None
        for item in owner.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == name:
                found = item
        if found is not None:
            return found
    return None


def _method_node(
    node: ast.ClassDef, nodes: dict[str, ast.ClassDef], name: str
) -> FunctionNode | None:
    """The definition of a method, or of the method a class body binds the name to (``get =
    __getitem__``, ``register = Tree.__setitem__``)."""
    found = _defined(node, nodes, name)
    if found is not None:
        return found
    for owner in _lineage(node, nodes):
        for item in owner.body:
            if not (isinstance(item, ast.Assign) and len(item.targets) == 1):
                continue
            target, value = item.targets[0], item.value
            if not (isinstance(target, ast.Name) and target.id == name):
                continue
            if isinstance(value, ast.Name) and value.id != name:
                return _defined(owner, nodes, value.id)
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
                if value.value.id in nodes:
                    return _defined(nodes[value.value.id], nodes, value.attr)
    return None


def _lineage(node: ast.ClassDef, nodes: dict[str, ast.ClassDef]) -> Iterator[ast.ClassDef]:
    seen: set[str] = set()
    pending = [node]
    while pending:
        current = pending.pop(0)
        if current.name in seen:
            continue
        seen.add(current.name)
        yield current
        pending += [nodes[b] for b in base_names(current) if b in nodes]


def base_names(node: ast.ClassDef) -> list[str]:
    """The names of the class's bases as written (the order the method resolution follows)."""
    names = []
    for base in node.bases:
        expression = base.value if isinstance(base, ast.Subscript) else base
        if isinstance(expression, ast.Attribute):
            names.append(expression.attr)
        elif isinstance(expression, ast.Name):
            names.append(expression.id)
    return names


def _special(
    owner: str,
    node: ast.ClassDef,
    nodes: dict[str, ast.ClassDef],
    facts: ModuleFacts,
    read_signature: ReadSignature,
) -> Iterator[Signature]:
    """Special methods the class (or a base in the module) defines, and property setters."""
    for item, name in _special_members(node, nodes):
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _takes_parameters(name):
            signature = read_signature(item, facts.reader, "method")
            unannotated = {p.name for p in signature.params if p.type == ANY}
            signature = _complete_signature(signature, item, facts, owner)
        else:  # __add__, __radd__ = _operator_fallbacks(...): only the operand count is known
            operands = SPECIAL_METHODS[name].operands
            params = tuple(Parameter(f"other{i or ''}", ANY) for i in range(operands))
            signature = Signature(name, params, ANY, item.lineno)
            unannotated = {p.name for p in params}
        params = tuple(
            _operand(p, owner) if p.name.lstrip("/") in unannotated else p for p in signature.params
        )
        yield replace(signature, params=params, kind="operator")
    yield from _setters(owner, node, facts, read_signature)
    yield from _attribute_setters(owner, node, nodes, facts, read_signature)


def _special_members(
    node: ast.ClassDef, nodes: dict[str, ast.ClassDef]
) -> Iterator[tuple[ast.stmt, str]]:
    """(statement, name) of each special method that counts, the nearest definition of each."""
    seen: set[str] = set()
    has_exit = any(name == "__exit__" for _, name in _members(node, nodes))
    for item, name in _members(node, nodes):
        if name in seen or name not in SPECIAL_METHODS or (name == "__enter__" and not has_exit):
            continue
        seen.add(name)
        yield item, name


def _takes_parameters(name: str) -> bool:
    return SPECIAL_METHODS[name].takes_parameters


def _members(node: ast.ClassDef, nodes: dict[str, ast.ClassDef]) -> Iterator[tuple[ast.stmt, str]]:
    """(statement, name) of each method defined or assigned in the class and its bases."""
    for owner in _lineage(node, nodes):
        for item in owner.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                yield item, item.name
            elif isinstance(item, ast.Assign) and not _is_none(item.value):  # __hash__ = None
                for target in item.targets:
                    elements = target.elts if isinstance(target, ast.Tuple) else [target]
                    for element in elements:
                        if isinstance(element, ast.Name):
                            yield item, element.id


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _operand(parameter: Parameter, owner: str) -> Parameter:
    """An unannotated operand of an operator is most often another instance of the class, or a
    number; and the operator's ``NotImplemented`` branch wants anything else."""
    inferred = parameter.type.args if parameter.type.kind == "union" else (parameter.type,)
    options = [TypeSpec("class", name=owner), TypeSpec("int"), TypeSpec("float"), ANY]
    return replace(parameter, type=union([*inferred, *options]))


def _setters(
    owner: str, node: ast.ClassDef, facts: ModuleFacts, read_signature: ReadSignature
) -> Iterator[Signature]:
    for item in _setter_nodes(node):
        signature = read_signature(item, facts.reader, "method")
        signature = _complete_signature(signature, item, facts, owner)
        yield replace(signature, kind="setter")


FRESH_ATTRIBUTE = "extra"  # an attribute name the class does not use itself
MAX_ATTRIBUTES = 3  # of the class's own attributes, besides the fresh one


def _attribute_setters(
    owner: str,
    node: ast.ClassDef,
    nodes: dict[str, ast.ClassDef],
    facts: ModuleFacts,
    read_signature: ReadSignature,
) -> Iterator[Signature]:
    """``x.name = value`` for a class that defines ``__setattr__`` (a register, a proxy, a
    record that validates or converts what is set): a fresh name and the attributes its methods
    set, each with the type ``__setattr__`` gives its value."""
    hook = next(
        (
            item
            for item, name in _members(node, nodes)
            if name == "__setattr__" and isinstance(item, ast.FunctionDef)
        ),
        None,
    )
    if hook is None or len(hook.args.args) != 3:
        return
    signature = _complete_signature(
        read_signature(hook, facts.reader, "method"), hook, facts, owner
    )
    value = replace(signature.params[-1], name="value", has_default=False)
    yield Signature(FRESH_ATTRIBUTE, (value,), ANY, hook.lineno, "setter")
    # An attribute the class assigns has the type of its first value to type checkers
    # (``self.muted = False``: a bool), whatever ``__setattr__`` takes; one whose type is not
    # plain (a lambda, a dict of classes) is not set.
    declared = _declared_types(node, facts.reader)
    for name in _own_attributes(node)[:MAX_ATTRIBUTES]:
        spec = declared.get(name)
        if spec is not None:
            typed = replace(value, type=spec, annotated=True, type_checked=False, opaque=False)
            yield Signature(name, (typed,), ANY, hook.lineno, "setter")


_DECLARABLE = frozenset({"int", "float", "str", "bool", "bytes", "class", "stdlib"})


def _declared_types(node: ast.ClassDef, reader: TypeReader) -> dict[str, TypeSpec | None]:
    """The type of each ``self.x`` at its first assignment in the class's methods: its
    annotation, or the type of a literal it is given; None when that is not a plain one."""
    found: dict[str, TypeSpec | None] = {}
    for item in ast.walk(node):
        target: ast.expr | None = None
        spec: TypeSpec | None = None
        if isinstance(item, ast.AnnAssign):
            target, spec = item.target, reader.read(item.annotation)
        elif isinstance(item, ast.Assign) and len(item.targets) == 1:
            target = item.targets[0]
            value = item.value
            if isinstance(value, ast.Constant) and value.value is not None:
                spec = TypeSpec(type(value.value).__name__)
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
            continue
        if target.value.id == "self" and target.attr not in found:
            found[target.attr] = spec if spec is not None and spec.kind in _DECLARABLE else None
    return found


def _own_attributes(node: ast.ClassDef) -> list[str]:
    """Public ``self.x`` the class's methods assign, in order of first assignment."""
    found: dict[str, None] = {}
    for item in ast.walk(node):
        if isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store):
            if isinstance(item.value, ast.Name) and item.value.id == "self":
                if not item.attr.startswith("_") and item.attr != FRESH_ATTRIBUTE:
                    found.setdefault(item.attr)
    return list(found)


def _setter_nodes(node: ast.ClassDef) -> list[ast.FunctionDef]:
    """``@x.setter`` methods, once per setter decorator (as many as ``_setters`` yields)."""
    return [
        item
        for item in node.body
        if isinstance(item, ast.FunctionDef)
        for decorator in item.decorator_list
        if isinstance(decorator, ast.Attribute) and decorator.attr == "setter"
    ]


# -- signatures --------------------------------------------------------------------------------


def _complete_signature(
    signature: Signature, node: FunctionNode | None, facts: ModuleFacts, owner: str
) -> Signature:
    """Types inferred for unannotated parameters; positional-only ones marked "/"; ``*args``
    as "*name"; ``**options`` as the keys the body reads; parameters named ``_x`` with a
    default (internal switches) left out."""
    if node is None:
        return signature
    arguments = node.args
    positional_only = {a.arg for a in arguments.posonlyargs} | _dunder_positional(signature)
    if node.name in MAGIC_POSITIONAL and signature.name != node.name:
        # ``get = __getitem__``: mypy reads a special method's parameters as positional-only
        # (but those of __init__, __new__, __call__, ...), under any name the class gives it
        positional_only |= {a.arg for a in arguments.args}
    if arguments.vararg is not None:  # what comes before *args can only be passed by position
        positional_only |= {a.arg for a in arguments.args}
    annotations = {
        a.arg: a.annotation
        for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
        if a.annotation is not None
    }
    params = []
    for parameter in signature.params:
        if parameter.name.startswith("_") and parameter.has_default:
            continue
        spec = parameter.type
        if _holds_any(spec) and parameter.name in annotations:
            # a class, or an alias of a stdlib type, imported from the package, also inside
            # ``Optional[Date]`` (``from .zeitgeist import Date``), which read as union[any, none]
            reread = facts.reader.read(annotations[parameter.name])
            spec = reread if spec == ANY or not _holds_any(reread) else spec
        annotated = parameter.annotated
        unread = spec == ANY  # the annotation (if any) says nothing the sampler can build
        if spec == ANY:
            spec = inference.infer_parameter(node, parameter, facts, owner)
            # ``x: Any`` takes every value to type checkers, whatever is inferred for it
            annotated = annotated and not _names_any(annotations.get(parameter.name))
        name = f"/{parameter.name}" if parameter.name in positional_only else parameter.name
        checked = spec != ANY and guards.type_checked(node, parameter.name, facts)
        opaque = (
            unread
            and annotated
            and facts.opaque is not None
            and facts.opaque.opaque(annotations.get(parameter.name))
        )
        params.append(
            replace(
                parameter,
                name=name,
                type=spec,
                type_checked=checked,
                annotated=annotated,
                opaque=opaque,
            )
        )
    if arguments.vararg is not None:
        params.insert(_after_positional(params), _varargs(arguments.vararg, node, facts, owner))
    if arguments.kwarg is not None:  # **options: the keys the body reads from it
        taken = {p.name.lstrip("/*") for p in params}
        params += keywords.keyword_parameters(node, arguments.kwarg.arg, taken, facts, owner)
    returns = signature.returns
    if returns == ANY and node.returns is not None:
        returns = facts.reader.read(node.returns)
    if inference.is_generator(node, facts):  # its body runs only as the result is iterated
        element = returns.args[0] if returns.kind == "list" and returns.args else ANY
        returns = TypeSpec("iterator", (element,))
    elif returns == ANY:
        returns = inference.infer_return(node, owner, facts)
    completed = replace(signature, params=tuple(params), returns=returns)
    stubs = facts.overloads.get(id(node))
    if not stubs:
        return completed
    completed = replace(completed, overloaded=True)
    return overloads.as_overloaded(completed, node, stubs, facts.reader)


def _names_any(annotation: ast.expr | None) -> bool:
    """``Any``, ``typing.Any`` or ``"Any"``."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.rpartition(".")[2] == "Any"
    if isinstance(annotation, ast.Attribute):
        return annotation.attr == "Any"
    return isinstance(annotation, ast.Name) and annotation.id == "Any"


def _holds_any(spec: TypeSpec) -> bool:
    """Whether ``spec`` is ``any`` or has one among its members, items or parameters."""
    if spec == ANY:
        return True
    inner = (*spec.args, *((spec.returns,) if spec.returns is not None else ()))
    return any(_holds_any(item) for item in inner)


def _dunder_positional(signature: Signature) -> set[str]:
    """PEP 484's spelling of positional-only before ``/`` existed: the leading parameters whose
    names start, but do not end, with two underscores (``def parse(__s)``). A keyword cannot
    name them: type checkers refuse it, and in a class the name is even mangled."""
    found: set[str] = set()
    for parameter in signature.params:
        name = parameter.name
        if parameter.keyword_only or not name.startswith("__") or name.endswith("__"):
            break
        found.add(name)
    return found


def _after_positional(params: list[Parameter]) -> int:
    return sum(1 for p in params if not p.keyword_only)


def _varargs(argument: ast.arg, node: FunctionNode, facts: ModuleFacts, owner: str) -> Parameter:
    """``*items``: the type of one element; ``annotated`` when its annotation says it (a type
    checker holds each element to it: ``Style(None)`` for ``*rules: StylingRule``, passed to
    reach the code's own ``raise ValueError``, is written with its ``# type: ignore``)."""
    spec = facts.reader.read(argument.annotation) if argument.annotation is not None else ANY
    annotated = spec != ANY
    if spec == ANY:
        spec = inference.infer_parameter(node, Parameter(argument.arg, ANY), facts, owner)
        if spec.kind == "list" and spec.args:  # *args used as a sequence: its elements
            spec = spec.args[0]
        elif spec.kind in ("list", "tuple") or spec.kind == "union":
            spec = ANY
    return Parameter(f"*{argument.arg}", spec, has_default=True, annotated=annotated)


# -- facts -------------------------------------------------------------------------------------


def _callables(
    tree: ast.Module,
    nodes: dict[str, ast.ClassDef],
    classes: dict[str, ClassModel],
    functions: dict[str, Signature],
    read_signature: ReadSignature,
    reader: TypeReader,
) -> dict[tuple[str, str], tuple[Signature, FunctionNode | None]]:
    """Every function and method of the module, private ones included, for following arguments."""
    found: dict[tuple[str, str], tuple[Signature, FunctionNode | None]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            signature = functions.get(node.name) or read_signature(node, reader, "function")
            found[("", node.name)] = (signature, node)
    for name, node in nodes.items():
        for owner in _lineage(node, nodes):  # inherited methods too; the nearest definition wins
            for item in owner.body:
                if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                if (name, item.name) not in found:
                    kind = "static" if _decorated(item, "staticmethod") else "method"
                    found[(name, item.name)] = (read_signature(item, reader, kind), item)
        constructor = classes[name].constructor
        if constructor is not None:
            found[(name, "__init__")] = (constructor, _defined(node, nodes, "__init__"))
    return found


def _decorated(node: FunctionNode, name: str) -> bool:
    return any(getattr(d, "id", getattr(d, "attr", "")) == name for d in node.decorator_list)


def _bases(nodes: dict[str, ast.ClassDef]) -> dict[str, set[str]]:
    """Class -> the names of all its bases (through the module's classes)."""
    result = {}
    for name, node in nodes.items():
        names: set[str] = set()
        for owner in _lineage(node, nodes):
            names |= set(base_names(owner))
        result[name] = names - {name}
    return result


def _attribute_table(
    nodes: dict[str, ast.ClassDef], known: dict[str, ClassModel], tree: TreeIndex
) -> dict[TypeSpec, frozenset[str]]:
    """Public attributes of the builtin value types and of every known class."""
    table = dict(BUILTIN_ATTRIBUTES)
    assigned = {name: _assigned_attributes(node, tree) for name, node in nodes.items()}
    for name, cls in known.items():
        attributes = {m.name for m in cls.methods}
        if cls.constructor is not None:
            attributes |= {p.name.lstrip("*/") for p in cls.constructor.params}
        if name in nodes:
            for owner in _lineage(nodes[name], nodes):
                attributes |= assigned[owner.name]
        table[TypeSpec("class", name=name)] = frozenset(a for a in attributes if a[:1] != "_")
    return table


def _assigned_attributes(node: ast.ClassDef, tree: TreeIndex) -> set[str]:
    names = set()
    for inner in tree.inside(node):
        if isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store):
            if isinstance(inner.value, ast.Name) and inner.value.id == "self":
                names.add(inner.attr)
        elif isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(inner.name)
    for item in node.body:
        targets = item.targets if isinstance(item, ast.Assign) else [getattr(item, "target", None)]
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


# -- the package -------------------------------------------------------------------------------


def package_classes(
    tree: ast.Module, location: tuple[str, str], analyse: Analyse
) -> dict[str, ClassModel]:
    """Classes the module imports by name from other modules of its own package."""
    path, module_name = Path(location[0]), location[1]
    if not path.is_file():
        return {}
    found: dict[str, ClassModel] = {}
    read = 0
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        origin = _absolute(node.level, node.module, module_name, path.name == "__init__.py")
        source = _source_file(path, module_name, origin) if origin else None
        if source is None or read >= MAX_PACKAGE_FILES:
            continue
        read += 1
        classes = _analyse_sibling(source, origin, analyse)
        for alias in node.names:
            cls = classes.get(alias.name)
            if cls is not None and alias.asname in (None, alias.name) and not cls.module:
                found[alias.name] = replace(cls, module=origin)
    return found


def package_aliases(tree: ast.Module, location: tuple[str, str]) -> dict[str, ast.expr]:
    """Type names the module imports from its package that are aliases there of stdlib types
    (``from .zeitgeist import Date`` where zeitgeist has ``from datetime import date as Date``)."""
    path, module_name = Path(location[0]), location[1]
    if not path.is_file():
        return {}
    found: dict[str, ast.expr] = {}
    imports: dict[ast.stmt, list[Binding]] = {}  # each ``from`` statement's names, in order
    for binding in top_level(tree, FROM):
        imports.setdefault(binding.statement, []).append(binding)
    for names in list(imports.values())[:MAX_PACKAGE_FILES]:
        origin = _absolute(names[0].level, names[0].module, module_name, path.name == "__init__.py")
        source = _source_file(path, module_name, origin) if origin else None
        if source is None:
            continue
        try:
            bound = binding_aliases(parse(read_source(source)))
        except (SyntaxError, ValueError, OSError, SourceSyntaxError):
            continue
        for name in names:
            if name.original in bound:
                found[name.name] = bound[name.original]
    return found


def _absolute(level: int, module: str | None, module_name: str, is_package: bool) -> str:
    """The absolute module ``from <level dots><module> import`` names, when it is in the
    module's own top-level package."""
    parts = module_name.split(".")
    package = parts if is_package else parts[:-1]
    if level:
        if level - 1 > len(package):
            return ""
        base = package[: len(package) - (level - 1)]
        return ".".join(base + ([module] if module else []))
    target = module or ""
    return target if package and target.split(".")[0] == parts[0] else ""


def _source_file(path: Path, module_name: str, origin: str) -> Path | None:
    depth = len(module_name.split(".")) - (0 if path.name == "__init__.py" else 1)
    root = path.resolve().parents[depth] if depth < len(path.resolve().parents) else None
    if root is None:
        return None
    candidate = root.joinpath(*origin.split("."))
    for source in (candidate.with_suffix(".py"), candidate / "__init__.py"):
        if source.is_file() and source.resolve() != path.resolve():
            return source
    return None


def _analyse_sibling(source: Path, module_name: str, analyse: Analyse) -> dict[str, ClassModel]:
    try:
        return analyse(source, module_name)
    except Exception:  # noqa: BLE001 - a sibling that does not parse leaves this module alone
        return {}


# -- constants ---------------------------------------------------------------------------------


def with_pattern_examples(
    tree: ast.Module, pool: ConstantPool, tree_index: TreeIndex | None = None
) -> ConstantPool:
    """Strings that the module's regular expressions match join the constant pool, and the
    patterns themselves its ``patterns`` (analysis.regexes)."""
    uses = regexes.uses_in(tree)
    if not uses:
        return pool
    found = [text for use in uses for text in regexes.examples_of(use.pattern, use.flags)]
    strings = tuple(sorted(set(pool.strings) | set(found)))
    patterns = tuple(dict.fromkeys((*pool.patterns, *((u.pattern, u.flags) for u in uses))))
    return replace(pool, strings=strings, patterns=patterns)
