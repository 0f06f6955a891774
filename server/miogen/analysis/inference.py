"""Likely types of unannotated parameters: defaults, the body's use, call sites and docstrings.

Each source adds *evidence* for some types. What the body does with a parameter says most:
``p.items()`` fits only a mapping, ``p.startswith("x")`` only strings, ``p.vat`` only the classes
that have a ``vat``, ``p(x)`` a callable of one argument (an *attribute table*, as Pynguin's type
tracing uses, here read statically). ``isinstance`` checks, call sites that pass literals or
objects, defaults and docstrings (Google, NumPy, Sphinx) name types outright. Comparisons and
arithmetic with constants are weak evidence: the result then keeps ``any`` as one of its options,
so that a wrong guess never takes the plain random values away.
"""

from __future__ import annotations

import ast
import datetime
import decimal
import fractions
import pathlib
import re
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from miogen.analysis.docstrings import parameter_types, read_type_text
from miogen.analysis.model import NO_DEFAULT, Parameter, Signature
from miogen.analysis.opaque import OpaqueNames
from miogen.analysis.rebinding import converted_at
from miogen.analysis.survey import TreeIndex, children, index_tree, walk
from miogen.analysis.typespec import ANY, STDLIB_TYPES, TypeReader, TypeSpec, union

MAX_OPTIONS = 6  # types kept in an inferred union, the best supported first
MIN_SHARE = 0.25  # an option with less than this share of the best one's evidence is left out
MAX_SHARED = 4  # an attribute shared by more types than this is weak evidence
CHECKED = 3.5  # the weight of an isinstance check (which also leaves other types open)
NONE_CHECKED = 1.0  # the weight of a comparison with None (which keeps None an option)
NONE = TypeSpec("none")
NUMBER = (TypeSpec("int"), TypeSpec("float"))
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_VALUE_TYPES: dict[TypeSpec, type] = {
    TypeSpec("str"): str,
    TypeSpec("bytes"): bytes,
    TypeSpec("list"): list,
    TypeSpec("dict"): dict,
    TypeSpec("set"): set,
    TypeSpec("tuple"): tuple,
    TypeSpec("int"): int,
    TypeSpec("float"): float,
    TypeSpec("stdlib", name="datetime.date"): datetime.date,
    TypeSpec("stdlib", name="datetime.datetime"): datetime.datetime,
    TypeSpec("stdlib", name="datetime.time"): datetime.time,
    TypeSpec("stdlib", name="datetime.timedelta"): datetime.timedelta,
    TypeSpec("stdlib", name="decimal.Decimal"): decimal.Decimal,
    TypeSpec("stdlib", name="fractions.Fraction"): fractions.Fraction,
    TypeSpec("stdlib", name="pathlib.PurePosixPath"): pathlib.PurePosixPath,
    TypeSpec("stdlib", name="re.Pattern"): re.Pattern,
    TypeSpec("stdlib", name="re.Match"): re.Match,
    TypeSpec("stdlib", name="uuid.UUID"): uuid.UUID,
}
BUILTIN_ATTRIBUTES = {
    spec: frozenset(n for n in dir(kind) if not n.startswith("_"))
    for spec, kind in _VALUE_TYPES.items()
}
_ABSTRACT = {
    "Number": ("int", "float"),
    "Complex": ("complex", "float", "int"),
    "Real": ("float", "int"),
    "Rational": ("int",),
    "Integral": ("int",),
    "Sequence": ("list", "tuple", "str"),
    "MutableSequence": ("list",),
    "Sized": ("list", "str"),
    "Hashable": ("int", "str"),
    "Iterator": ("list",),
    "Generator": ("list",),
    "Reversible": ("list",),
}
_CALLABLE_CONSUMERS = {"map": 1, "filter": 1, "reduce": 2, "sorted": 0, "min": 0, "max": 0}
_ITERABLE_CONSUMERS = {"sorted", "min", "max", "sum", "enumerate", "zip", "list", "set", "tuple"}
_REGEX_FUNCTIONS = {"match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"}


@dataclass
class Evidence:
    """Scores per type, and whether any evidence was strong enough to leave out ``any``."""

    scores: dict[TypeSpec, float] = field(default_factory=dict)
    strong: bool = False
    # The body tells types apart (isinstance): the types it does not name take a branch too.
    open: bool = False
    # The body compares the parameter with None (``if p is None:``): None takes a branch of
    # its own, so it stays an option however much other evidence outweighs it.
    none_checked: bool = False

    def add(
        self, specs: tuple[TypeSpec, ...] | list[TypeSpec], weight: float, strong: bool
    ) -> None:
        for spec in specs:
            self.scores[spec] = self.scores.get(spec, 0.0) + weight / len(specs)
        self.strong |= strong and bool(specs)

    def spec(self) -> TypeSpec:
        if not self.scores:
            return ANY
        best = max(self.scores.values())
        ordered = sorted(self.scores, key=lambda s: -self.scores[s])[:MAX_OPTIONS]
        ordered = [s for s in ordered if self.scores[s] >= MIN_SHARE * best]
        if self.none_checked and NONE not in ordered:
            ordered.append(NONE)
        if not self.strong or self.open or ordered == [NONE]:
            ordered.append(ANY)
        return union(ordered)


@dataclass
class ModuleFacts:
    """What inference needs to know about the module, read once."""

    reader: TypeReader
    attributes: dict[TypeSpec, frozenset[str]]  # attribute table: builtins and known classes
    bases: dict[str, set[str]]  # class -> the names of its bases, transitively
    # (class or "", name) -> signature as annotated, and its node; private ones included
    callables: dict[tuple[str, str], tuple[Signature, FunctionNode | None]]
    calls: dict[tuple[str, str], dict[str, Evidence]] = field(default_factory=dict)
    inferred: dict[tuple[str, str, str], TypeSpec] = field(default_factory=dict)  # helpers read
    telling: dict[int, list[ast.AST]] = field(default_factory=dict)  # id(function) -> its nodes
    own: dict[int, list[ast.AST]] = field(default_factory=dict)  # id(function) -> own_nodes
    # id(function) -> its assignments (analysis.rebinding reads them)
    assignments: dict[int, list[ast.AST]] = field(default_factory=dict)
    tree: TreeIndex | None = None  # the module's nodes, walked once
    keep: list[ast.AST] = field(default_factory=list)  # rewritten copies that ``telling`` names
    # id(implementation) -> its ``@overload`` stubs (analysis.overloads)
    overloads: dict[int, list[FunctionNode]] = field(default_factory=dict)
    opaque: OpaqueNames | None = None  # what the module imports that cannot be built


def infer_parameter(
    node: FunctionNode, parameter: Parameter, facts: ModuleFacts, owner: str
) -> TypeSpec:
    """The likely type of one unannotated parameter of ``node`` (``owner`` its class or "").

    Each parameter is read once per module: a helper that many callers hand a value on to
    (``_check(other)`` inside ``__add__``) is read the first time, and a recursion sees ``any``
    for the parameter being read.
    """
    key = (owner, node.name, parameter.name)
    if key not in facts.inferred:
        facts.inferred[key] = ANY
        facts.inferred[key] = _infer(node, parameter, facts, owner)
    return facts.inferred[key]


def _infer(node: FunctionNode, parameter: Parameter, facts: ModuleFacts, owner: str) -> TypeSpec:
    evidence = Evidence()
    name = parameter.name.lstrip("*/")
    if parameter.has_default and parameter.default is not NO_DEFAULT:
        default = parameter.default
        evidence.add(
            [NONE] if default is None else _spec_of_value(default), 2.0, default is not None
        )
    docstring = ast.get_docstring(node, clean=False) or ""  # sections are told by indentation
    written = parameter_types(docstring).get(name) if docstring else None
    if written:
        spec = read_type_text(written, facts.reader)
        if spec != ANY:
            evidence.add([spec], 4.0, True)
    binders = [*_assignments(node, facts), *_telling_nodes(node, facts)]
    for told in (name, *_aliases(binders, name)):
        for spec_list, weight, strong in _uses(node, told, facts, owner):
            evidence.add(spec_list, weight, strong)
            evidence.open |= weight == CHECKED
            evidence.none_checked |= weight == NONE_CHECKED and spec_list == [NONE]
    called = facts.calls.get((owner, node.name), {}).get(name)
    if called is not None:
        for spec, score in called.scores.items():
            evidence.add([spec], score, True)
    return evidence.spec()


def _spec_of_value(value: object) -> list[TypeSpec]:
    kind = type(value).__name__
    if kind in ("int", "float", "str", "bytes", "bool", "complex", "list", "dict", "set", "tuple"):
        return [TypeSpec(kind)]
    if kind == "frozenset":
        return [TypeSpec("set")]
    return []


Use = tuple[list[TypeSpec], float, bool]  # types, weight, strong


def _uses(node: FunctionNode, name: str, facts: ModuleFacts, owner: str) -> Iterator[Use]:
    """Evidence from every place the body uses ``name``."""
    attributes: set[str] = set()
    last = converted_at(_assignments(node, facts), name)
    for inner in _telling_nodes(node, facts):
        if last is not None and getattr(inner, "lineno", 0) > last:
            continue  # the name holds a value converted from the parameter (analysis.rebinding)
        if isinstance(inner, ast.Attribute) and _is(inner.value, name):
            attributes.add(inner.attr)
        elif isinstance(inner, ast.Call):
            yield from _call_uses(inner, name, facts, owner)
        elif isinstance(inner, ast.Compare):
            yield from _compare_uses(inner, name, facts, owner)
        elif isinstance(inner, ast.BinOp | ast.AugAssign):
            yield from _arithmetic_uses(inner, name)
        elif isinstance(inner, ast.Subscript):
            yield from _subscript_uses(inner, name)
        elif isinstance(inner, ast.For | ast.comprehension) and _is(inner.iter, name):
            yield [TypeSpec("list"), TypeSpec("str")], 0.5, False
    yield from _attribute_uses(attributes, facts)


_TELLING = (
    ast.Attribute, ast.Call, ast.Compare, ast.BinOp, ast.AugAssign, ast.Subscript, ast.For,
    ast.comprehension,
)  # fmt: skip


def _telling_nodes(node: FunctionNode, facts: ModuleFacts) -> list[ast.AST]:
    """The nodes of a function that can tell a parameter's type, collected once per function."""
    found = facts.telling.get(id(node))
    if found is None:
        inside = facts.tree.subtree(node) if facts.tree is not None else None
        if inside is None:  # a rewritten copy (keywords), or no index
            inside = walk(node)
        found = facts.telling[id(node)] = [n for n in inside if isinstance(n, _TELLING)]
    return found


def _assignments(node: FunctionNode, facts: ModuleFacts) -> list[ast.AST]:
    """The assignments of a function, collected once per function."""
    found = facts.assignments.get(id(node))
    if found is None:
        inside = facts.tree.subtree(node) if facts.tree is not None else None
        nodes = walk(node) if inside is None else inside
        found = facts.assignments[id(node)] = [n for n in nodes if isinstance(n, ast.Assign)]
    return found


def _aliases(binders: Iterable[ast.AST], name: str) -> list[str]:
    """Local names that only ever hold the parameter ``name`` itself: bound by ``alias = name``
    and by nothing else among ``binders`` (a function's assignments, augmented assignments and
    ``for`` loops): ``y = year``, then ``y % 19``, ``y // 100``. What the body does with such a
    name it does with the parameter's value, so its uses tell the parameter's type.

    >>> body = ast.parse("y = year; n = year; n = n + 1; k = year; k += 1; z = y")
    >>> _aliases(ast.walk(body), "year")
    ['y']
    >>> _aliases(ast.walk(ast.parse("self.first = first; a, b = first")), "first")
    []
    """
    bound: dict[str, list[ast.expr | None]] = {}
    for node in binders:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AugAssign | ast.For | ast.comprehension):
            targets, value = [node.target], None
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                bound.setdefault(target.id, []).append(value)
            elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
                # unpacked: each name holds a part, not the parameter (``self.x = x`` binds no
                # name: ``self`` is read there, not bound)
                for named in _unpacked(target):
                    bound.setdefault(named, []).append(None)
    return sorted(
        alias
        for alias, values in bound.items()
        if alias != name and all(_is(value, name) for value in values)
    )


def _unpacked(target: ast.expr) -> list[str]:
    """The plain names an unpacking target binds (``a, *rest``)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _unpacked(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _unpacked(element)]
    return []


def _is(node: ast.AST | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _attribute_uses(attributes: set[str], facts: ModuleFacts) -> Iterator[Use]:
    wanted = {a for a in attributes if not a.startswith("__")}
    if not wanted:
        return
    fitting = [spec for spec, names in facts.attributes.items() if wanted <= names]
    if fitting and len(fitting) <= MAX_SHARED:
        yield fitting, 3.0, True
    elif fitting:
        yield fitting, 1.0, False


def _call_uses(call: ast.Call, name: str, facts: ModuleFacts, owner: str) -> Iterator[Use]:
    function = call.func
    if _is(function, name):
        yield [TypeSpec("callable", (ANY,) * len(call.args))], 3.0, True
        return
    callee = function.id if isinstance(function, ast.Name) else ""
    if callee == "isinstance" and len(call.args) == 2 and _is(call.args[0], name):
        yield _isinstance_types(call.args[1], facts), CHECKED, True
    elif callee == "len" and call.args and _is(call.args[0], name):
        yield [TypeSpec("str"), TypeSpec("list"), TypeSpec("dict")], 0.5, False
    attribute = function.attr if isinstance(function, ast.Attribute) else ""
    consumer = callee or attribute
    if consumer in _CALLABLE_CONSUMERS and call.args and _is(call.args[0], name):
        arity = _CALLABLE_CONSUMERS[consumer]
        if arity:
            yield [TypeSpec("callable", (ANY,) * arity)], 3.0, True
    if any(k.arg == "key" and _is(k.value, name) for k in call.keywords):
        yield [TypeSpec("callable", (ANY,))], 3.0, True
    if consumer in _ITERABLE_CONSUMERS and call.args and _is(call.args[0], name):
        yield [TypeSpec("list")], 0.5, False
    if attribute in _REGEX_FUNCTIONS and _is_name(function, "re"):
        if any(_is(a, name) for a in call.args[:2]):
            yield [TypeSpec("str")], 3.0, True
    if any(k.arg is None and _is(k.value, name) for k in call.keywords):
        yield [TypeSpec("dict", (TypeSpec("str"), ANY))], 2.0, True
    if attribute == "join" and isinstance(function, ast.Attribute):
        if isinstance(function.value, ast.Constant) and call.args and _is(call.args[0], name):
            yield [TypeSpec("list", (TypeSpec("str"),))], 2.0, True
    if call_key(function, owner, facts) is None:
        yield from _library_argument_uses(call, callee or attribute, name)
    yield from _passed_on(call, name, facts, owner)


_INT, _STR = TypeSpec("int"), TypeSpec("str")
# Parameters of builtins and common library calls whose types are fixed, by position. Integer
# positions are strong evidence; string ones weak (the receiver may hold bytes).
_LIBRARY_ARGUMENTS: dict[str, tuple[TypeSpec | None, ...]] = {
    "range": (_INT, _INT, _INT),
    "chr": (_INT,),
    "ord": (_STR,),
    "center": (_INT, _STR),
    "ljust": (_INT, _STR),
    "rjust": (_INT, _STR),
    "zfill": (_INT,),
    "expandtabs": (_INT,),
    "round": (None, _INT),
    "date": (_INT, _INT, _INT),
    "datetime": (_INT, _INT, _INT, _INT, _INT, _INT),
    "split": (_STR, _INT),
    "rsplit": (_STR, _INT),
    "replace": (_STR, _STR, _INT),
    "strip": (_STR,),
    "lstrip": (_STR,),
    "rstrip": (_STR,),
    "find": (_STR, _INT, _INT),
    "rfind": (_STR, _INT, _INT),
    "encode": (_STR, _STR),
    "decode": (_STR, _STR),
}


def _library_argument_uses(call: ast.Call, callee: str, name: str) -> Iterator[Use]:
    """``s.center(width)``, ``range(n)``, ``datetime.date(year, month, 1)``: the fixed types."""
    for position, spec in enumerate(_LIBRARY_ARGUMENTS.get(callee, ())):
        if spec is not None and position < len(call.args) and _is(call.args[position], name):
            yield [spec], 1.5, spec == _INT


def _is_name(function: ast.expr, module: str) -> bool:
    return isinstance(function, ast.Attribute) and _is(function.value, module)


def _passed_on(call: ast.Call, name: str, facts: ModuleFacts, owner: str) -> Iterator[Use]:
    """``helper(p)``: the helper's annotation for that parameter, else what it does with it."""
    key = call_key(call.func, owner, facts)
    if key is None:
        return
    signature, node = facts.callables[key]
    positional = [p for p in signature.params if not p.keyword_only]
    pairs = [(positional[i], a) for i, a in enumerate(call.args[: len(positional)])]
    by_name = {p.name: p for p in signature.params}
    pairs += [(by_name[k.arg], k.value) for k in call.keywords if k.arg in by_name]
    for parameter, argument in pairs:
        if not _is(argument, name):
            continue
        if parameter.type != ANY:
            yield [parameter.type], 2.0, True
        elif node is not None:
            spec = infer_parameter(node, parameter, facts, key[0])
            options = [o for o in (spec.args if spec.kind == "union" else (spec,)) if o != ANY]
            if options:
                yield options, 2.0, ANY not in spec.args


def _isinstance_types(node: ast.expr, facts: ModuleFacts) -> list[TypeSpec]:
    if isinstance(node, ast.Tuple):
        return [spec for element in node.elts for spec in _isinstance_types(element, facts)]
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    if not name:
        return []
    found = [TypeSpec(kind) for kind in _ABSTRACT.get(name, ())]
    spec = facts.reader.read(node)
    if spec != ANY:
        found.append(spec)
    # Classes of the module that derive from the checked type (Fraction for numbers.Rational).
    found += [TypeSpec("class", name=cls) for cls, bases in facts.bases.items() if name in bases]
    return list(dict.fromkeys(found))


def _compare_uses(compare: ast.Compare, name: str, facts: ModuleFacts, owner: str) -> Iterator[Use]:
    operands = [compare.left, *compare.comparators]
    for op, left, right in zip(compare.ops, operands, operands[1:], strict=False):
        for mine, other, reversed_ in ((left, right, False), (right, left, True)):
            if _is(mine, name):
                yield from _compared_with(op, other, reversed_)
            elif _is_type_of(mine, name) and isinstance(op, ast.Is | ast.Eq):
                yield _isinstance_types(other, facts), CHECKED, True


def _is_type_of(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and _is(node.func, "type")
        and len(node.args) == 1
        and _is(node.args[0], name)
    )


def _compared_with(op: ast.cmpop, other: ast.expr, reversed_: bool) -> Iterator[Use]:
    if isinstance(op, ast.Is | ast.IsNot):
        if isinstance(other, ast.Constant) and other.value is None:
            yield [NONE], NONE_CHECKED, False
        return
    if isinstance(op, ast.In | ast.NotIn):
        if not reversed_:  # p in <container>
            yield _container_element_types(other), 1.0, False
        elif isinstance(other, ast.Constant) and isinstance(other.value, str):  # "x" in p
            yield [TypeSpec("str"), TypeSpec("dict", (TypeSpec("str"), ANY))], 1.0, False
        return
    if isinstance(other, ast.Constant) and type(other.value) in (int, float):
        yield list(NUMBER), 1.0, False  # x > 3: a float as well as an int
    elif isinstance(other, ast.Constant) and other.value is not None:
        yield _spec_of_value(other.value), 1.0, False


def _container_element_types(container: ast.expr) -> list[TypeSpec]:
    if isinstance(container, ast.Constant) and isinstance(container.value, str):
        return [TypeSpec("str")]
    if isinstance(container, ast.Tuple | ast.List | ast.Set):
        found = [
            s
            for e in container.elts
            if isinstance(e, ast.Constant)
            for s in _spec_of_value(e.value)
        ]
        return list(dict.fromkeys(found))
    return []


def _arithmetic_uses(node: ast.BinOp | ast.AugAssign, name: str) -> Iterator[Use]:
    left = node.left if isinstance(node, ast.BinOp) else node.target
    right = node.right if isinstance(node, ast.BinOp) else node.value
    for mine, other in ((left, right), (right, left)):
        if not _is(mine, name):
            continue
        if isinstance(other, ast.Constant) and isinstance(other.value, str):
            if isinstance(node.op, ast.Mult):  # " " * indent
                yield [TypeSpec("int")], 1.0, False
            elif not isinstance(node.op, ast.Mod) or mine is left:
                yield [TypeSpec("str")], 1.0, False
        elif isinstance(other, ast.JoinedStr):
            yield [TypeSpec("str")], 1.0, False
        elif isinstance(other, ast.Constant) and type(other.value) in (int, float):
            yield list(NUMBER), 1.0, False
        else:
            yield list(NUMBER), 0.5, False


def _subscript_uses(node: ast.Subscript, name: str) -> Iterator[Use]:
    if _is(node.slice, name):
        yield [TypeSpec("int")], 0.5, False
    if not _is(node.value, name):
        return
    index = node.slice
    if isinstance(index, ast.Constant) and isinstance(index.value, str):
        yield [TypeSpec("dict", (TypeSpec("str"), ANY))], 2.0, True
    elif isinstance(index, ast.Slice) or (
        isinstance(index, ast.Constant) and isinstance(index.value, int)
    ):
        yield [TypeSpec("list"), TypeSpec("str"), TypeSpec("tuple")], 1.0, False


def infer_return(node: FunctionNode, owner: str, facts: ModuleFacts) -> TypeSpec:
    """The class a function or method returns, when its return statements build one."""
    classes = facts.bases.keys()
    found: set[str] = set()
    for inner in own_nodes(node, facts):
        if not isinstance(inner, ast.Return) or inner.value is None:
            continue
        value = inner.value
        if owner and (_is(value, "self") or _builds(value, "cls") or _builds_type_of_self(value)):
            found.add(owner)
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            if value.func.id in classes:
                found.add(value.func.id)
    if len(found) == 1:
        return TypeSpec("class", name=found.pop())
    return ANY


def is_generator(node: FunctionNode, facts: ModuleFacts) -> bool:
    """A generator function: calling it runs nothing until the result is iterated."""
    if isinstance(node, ast.AsyncFunctionDef):
        return False
    return any(isinstance(inner, ast.Yield | ast.YieldFrom) for inner in own_nodes(node, facts))


def _builds(value: ast.expr, name: str) -> bool:
    return isinstance(value, ast.Call) and _is(value.func, name)


def _builds_type_of_self(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and _is_type_of(value.func, "self")


def own_nodes(node: FunctionNode, facts: ModuleFacts) -> list[ast.AST]:
    """The nodes of a function's body, not of functions or classes defined inside it; collected
    once per function (a base class's method is completed again for each subclass)."""
    found = facts.own.get(id(node))
    if found is None and facts.tree is not None and id(node) in facts.tree.position:
        found = facts.own[id(node)] = _own_slice(node, facts.tree)
    if found is None:
        found = facts.own[id(node)] = []
        pending: list[ast.AST] = list(node.body)
        while pending:
            current = pending.pop()
            found.append(current)
            for child in children(current):
                if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    pending.append(child)
    return found


def _own_slice(node: FunctionNode, tree: TreeIndex) -> list[ast.AST]:
    """``own_nodes`` read from the module's one walk: the body's nodes, less nested scopes."""
    found: list[ast.AST] = []
    for statement in node.body:
        current = tree.position[id(statement)]
        stop = tree.end[current]
        while current < stop:
            inner = tree.nodes[current]
            if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                current = tree.end[current]
                continue
            found.append(inner)
            current += 1
    return found


def call_sites(tree: ast.Module, facts: ModuleFacts, classes: set[str]) -> None:
    """Types of the arguments that calls in the module pass, per (class, callable) and parameter."""
    calls = facts.tree.calls if facts.tree is not None else index_tree(tree).calls
    for owner, function, call in calls:
        key = call_key(call.func, owner, facts)
        if key is None:
            continue
        signature, _ = facts.callables[key]
        names = [p.name for p in signature.params if not p.keyword_only]
        pairs = list(zip(names, call.args, strict=False))
        pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
        for parameter, argument in pairs:
            if isinstance(argument, ast.Starred):
                break
            spec = expression_type(argument, function, facts, classes)
            if spec != ANY:
                evidence = facts.calls.setdefault(key, {}).setdefault(parameter, Evidence())
                evidence.add([spec], 2.0, True)


def call_key(function: ast.expr, owner: str, facts: ModuleFacts) -> tuple[str, str] | None:
    """The module's callable a call calls: a function, a method of self/cls/a class, a class."""
    key: tuple[str, str] | None = None
    if isinstance(function, ast.Name):
        key = ("", function.id)
        if key not in facts.callables:
            key = (function.id, "__init__")
    elif isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        holder = function.value.id
        key = (owner if holder in ("self", "cls") else holder, function.attr)
    return key if key in facts.callables else None


def expression_type(
    node: ast.expr, function: FunctionNode | None, facts: ModuleFacts, classes: set[str]
) -> TypeSpec:
    """The type of an argument expression, when it shows: literals, constructions, parameters."""
    if isinstance(node, ast.Constant):
        specs = [NONE] if node.value is None else _spec_of_value(node.value)
        return specs[0] if specs else ANY
    displays = {
        ast.JoinedStr: "str", ast.List: "list", ast.ListComp: "list", ast.Dict: "dict",
        ast.DictComp: "dict", ast.Set: "set", ast.SetComp: "set", ast.Tuple: "tuple",
    }  # fmt: skip
    for display, kind in displays.items():
        if isinstance(node, display):
            return TypeSpec(kind)
    if isinstance(node, ast.Lambda):
        return TypeSpec("callable", (ANY,) * len(node.args.args))
    if isinstance(node, ast.Call):
        return _constructed_type(node.func, classes)
    if isinstance(node, ast.Name) and function is not None:
        for argument in function.args.posonlyargs + function.args.args + function.args.kwonlyargs:
            if argument.arg == node.id and argument.annotation is not None:
                return facts.reader.read(argument.annotation)
    return ANY


def _constructed_type(function: ast.expr, classes: set[str]) -> TypeSpec:
    """``Cls(...)``, ``str(...)``, ``datetime.date(...)``, ``date.today()``."""
    if isinstance(function, ast.Name):
        if function.id in classes:
            return TypeSpec("class", name=function.id)
        if function.id in ("str", "int", "float", "list", "dict", "set", "tuple", "bytes"):
            return TypeSpec(function.id)
        if function.id in STDLIB_TYPES:
            return TypeSpec("stdlib", name=STDLIB_TYPES[function.id])
        return ANY
    if not isinstance(function, ast.Attribute):
        return ANY
    owner = function.value
    if _is(owner, STDLIB_TYPES.get(function.attr, "").partition(".")[0]):  # datetime.date(...)
        return TypeSpec("stdlib", name=STDLIB_TYPES[function.attr])
    # An alternative constructor: date.today(), datetime.datetime.now(), Decimal.from_float(x).
    name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
    if name in STDLIB_TYPES and name != "time":  # time.time() is the time module's
        return TypeSpec("stdlib", name=STDLIB_TYPES[name])
    return ANY
