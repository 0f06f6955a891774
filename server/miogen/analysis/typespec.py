"""Static reading of type hints into small TypeSpec trees that the sampler understands."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from miogen.analysis.bindings import ASSIGN, FROM, top_level
from miogen.common.syntax import parse_expression

PRIMITIVES = frozenset({"int", "float", "str", "bool", "bytes", "complex", "none"})
_ALIASES = {
    "List": "list",
    "Sequence": "list",
    "MutableSequence": "list",
    "Iterable": "list",
    "Collection": "list",
    "Iterator": "list",
    "Dict": "dict",
    "Mapping": "dict",
    "MutableMapping": "dict",
    "Set": "set",
    "FrozenSet": "set",
    "frozenset": "set",
    "AbstractSet": "set",
    "MutableSet": "set",
    "Tuple": "tuple",
    "Text": "str",
    "bytearray": "bytes",
    "Any": "any",
    "object": "any",
    "None": "none",
    "NoneType": "none",
}
# Value types of the standard library the sampler can build, by the names annotations use
# (``date`` after ``from datetime import date``, ``datetime.date`` read as its last part).
STDLIB_TYPES = {
    "date": "datetime.date",
    "datetime": "datetime.datetime",
    "time": "datetime.time",
    "timedelta": "datetime.timedelta",
    "Decimal": "decimal.Decimal",
    "Fraction": "fractions.Fraction",
    "PurePath": "pathlib.PurePosixPath",
    "PurePosixPath": "pathlib.PurePosixPath",
    "Path": "pathlib.PurePosixPath",
    "PosixPath": "pathlib.PurePosixPath",
    "Pattern": "re.Pattern",
    "Match": "re.Match",
    "UUID": "uuid.UUID",
}
CALLABLE_NAMES = frozenset({"Callable", "callable"})


@dataclass(frozen=True, slots=True)
class TypeSpec:
    """A type as the sampler sees it: a kind, arguments, and a name for user classes.

    kinds: int float str bool bytes complex none any list set dict tuple union class literal
    stdlib callable iterator classobject. ``classobject`` is a class itself (``type[Shape]``),
    named in ``name`` as a ``class`` is. ``tuple`` with ``variadic=True`` is
    ``tuple[X, ...]``; ``literal`` keeps its values in ``values``; ``stdlib`` names its type in ``name`` ("datetime.date", see
    STDLIB_TYPES); ``callable`` has its parameters' types in ``args``, or ``variadic=True`` when
    their number is unknown, and the type it returns in ``returns`` (None: not said); ``iterator`` (the result of a generator function, whose body runs
    only as it is iterated) has its elements' type in ``args``.
    """

    kind: str
    args: tuple[TypeSpec, ...] = ()
    name: str = ""
    variadic: bool = False
    values: tuple[object, ...] = ()
    returns: TypeSpec | None = None  # a callable's result, when the annotation says it

    def __str__(self) -> str:
        if self.kind in ("class", "stdlib"):
            return self.name
        if self.kind == "classobject":
            return f"type[{self.name}]"
        if self.kind == "literal":
            return f"Literal{list(self.values)}"
        if self.args:
            inner = ", ".join(map(str, self.args)) + (", ..." if self.variadic else "")
            text = f"{self.kind}[{inner}]"
        else:
            text = self.kind
        return text if self.returns is None else f"{text} -> {self.returns}"


ANY = TypeSpec("any")


def _name_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # typing.List, t.Optional
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return None


def union(options: list[TypeSpec]) -> TypeSpec:
    """A union of the given options, flattened and without duplicates."""
    flat: list[TypeSpec] = []
    for option in options:
        for member in option.args if option.kind == "union" else (option,):
            if member not in flat:
                flat.append(member)
    return flat[0] if len(flat) == 1 else TypeSpec("union", tuple(flat))


class TypeReader:
    """Turns annotation ASTs into TypeSpecs, resolving module-level aliases and user classes."""

    def __init__(
        self,
        classes: set[str],
        aliases: dict[str, ast.expr],
        spelled: dict[str, str] | None = None,
    ) -> None:
        self.classes = classes
        self.aliases = aliases
        # How the module writes a class of another module -> the class's name in ``classes``
        # (``_collections.OrderedDict`` -> ``collections.OrderedDict``: analysis.checked_classes).
        self.spelled = spelled or {}
        self._resolving: set[str] = set()

    def read(self, node: ast.expr | None) -> TypeSpec:
        if node is None:
            return ANY
        try:
            return self._read(node)
        except (SyntaxError, RecursionError, ValueError):
            return ANY

    def _read(self, node: ast.expr) -> TypeSpec:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self._read(parse_expression(node.value).body)  # "Stack" forward refs
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return union([self._read(node.left), self._read(node.right)])
        if isinstance(node, ast.Subscript):
            return self._read_generic(node)
        if self.spelled and isinstance(node, ast.Name | ast.Attribute):
            known = self.spelled.get(ast.unparse(node))  # ``_collections.OrderedDict``
            if known is not None:
                return TypeSpec("class", name=known)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            qualified = f"{node.value.id}.{node.attr}"  # ``decimal.Decimal``: the stdlib's own,
            if STDLIB_TYPES.get(node.attr) == qualified:  # whatever the module names Decimal
                return TypeSpec("stdlib", name=qualified)
            if node.value.id == "ast" and is_node_class(node.attr):  # ``ast.expr``: a node
                return TypeSpec("stdlib", name=qualified)  # (testcase.ast_nodes)
        name = _name_of(node)
        if name is None:
            return ANY
        return self._read_name(name)

    def _read_name(self, name: str) -> TypeSpec:
        if name in self.aliases and name not in self._resolving:
            self._resolving.add(name)
            try:
                return self._read(self.aliases[name])
            finally:
                self._resolving.discard(name)
        name = _ALIASES.get(name, name)
        if name in PRIMITIVES or name in ("any", "list", "set", "dict", "tuple"):
            return TypeSpec(name)
        if name in self.classes:
            return TypeSpec("class", name=name)
        if name in STDLIB_TYPES:
            return TypeSpec("stdlib", name=STDLIB_TYPES[name])
        if name in CALLABLE_NAMES:
            return TypeSpec("callable", variadic=True)
        return ANY

    def _read_generic(self, node: ast.Subscript) -> TypeSpec:
        base = _name_of(node.value) or ""
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base == "Optional":
            return union([self._read(items[0]), TypeSpec("none")])
        if base == "Union":
            return union([self._read(item) for item in items])
        if base == "Literal":
            values = tuple(i.value for i in items if isinstance(i, ast.Constant))
            return TypeSpec("literal", values=values) if values else ANY
        if base in ("Annotated", "Final", "ClassVar", "Required", "NotRequired"):
            return self._read(items[0])
        if base in CALLABLE_NAMES:
            return self._read_callable(items)
        if base in ("type", "Type"):
            return self._read_class_object(items[0])
        kind = _ALIASES.get(base, base)
        if kind == "tuple":
            variadic = (
                len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is ...
            )
            args = (self._read(items[0]),) if variadic else tuple(self._read(i) for i in items)
            return TypeSpec("tuple", args, variadic=variadic)
        if kind in ("list", "set", "dict"):
            return TypeSpec(kind, tuple(self._read(i) for i in items))
        return self._read_name(base)

    def _read_class_object(self, item: ast.expr) -> TypeSpec:
        """``type[Shape]``: the class itself (``classobject``, named as a class is), or a union
        of such for ``type[A | B]``; ``any`` when a member is not a class the sampler knows."""
        read = self._read(item)
        members = read.args if read.kind == "union" else (read,)
        if not members or any(m.kind != "class" for m in members):
            return ANY
        return union([TypeSpec("classobject", name=m.name) for m in members])

    def _read_callable(self, items: list[ast.expr]) -> TypeSpec:
        """``Callable[[int, str], bool]``: the parameters' types and the result's (``returns``);
        ``Callable[..., X]``: variadic."""
        parameters = items[0] if items else None
        returns = self._read(items[1]) if len(items) > 1 else None
        if isinstance(parameters, ast.List):
            args = tuple(self._read(p) for p in parameters.elts)
            return TypeSpec("callable", args, returns=returns)
        return TypeSpec("callable", variadic=True, returns=returns)


_TYPE_MODULES = frozenset({"datetime", "decimal", "fractions", "pathlib", "re", "uuid", "typing"})


def is_node_class(name: str) -> bool:
    """Whether ``name`` is a class of the ``ast`` module (``expr``, ``Constant``, ``AST``)."""
    found = getattr(ast, name, None)
    return isinstance(found, type) and issubclass(found, ast.AST)


def binding_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """Type names a module binds to other names: ``from datetime import date as Date``, and
    ``Amount = Decimal`` or ``Day = datetime.date`` when the right side is a type name; the
    ``ast`` module's classes it imports by name (``from ast import expr``: ``ast.expr``)."""
    aliases: dict[str, ast.expr] = {}
    for b in top_level(tree, FROM, ASSIGN):
        if b.kind == FROM:
            if b.module == "ast" and not b.level:
                if is_node_class(b.original):
                    qualified = ast.Attribute(ast.Name("ast", ast.Load()), b.original, ast.Load())
                    aliases[b.name] = qualified
            elif b.module in _TYPE_MODULES and not b.level and b.name != b.original:
                aliases[b.name] = ast.Name(b.original, ast.Load())
        elif b.sole and b.value is not None and _names_a_type(b.value):
            aliases[b.name] = b.value
    return aliases


def _names_a_type(node: ast.expr) -> bool:
    name = _name_of(node) if isinstance(node, ast.Name | ast.Attribute) else None
    return name is not None and (name in STDLIB_TYPES or name in PRIMITIVES)
