"""Functions passed as arguments: builtins, small lambdas and the module's own functions.

A statement of kind ``callable`` holds the function as the text the emitted test writes
(``len``, ``str.upper``, ``lambda x: x * 2``, ``slugify``); ``value`` says where it comes from:
"builtin", "lambda" or "module". Only texts from this catalogue (or the module's functions) are
ever evaluated.

A parameter annotated ``Callable[[float], str]`` gets a function a type checker accepts there
(``str``, not ``lambda x: x``): each text has a ``Shape``, what it takes and gives as mypy reads
it, and ``choices`` keeps the texts whose shape fits the annotation (``fits``). A lambda names
an argument it does not use ``_`` (ruff's ARG005 does not count those).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from miogen.analysis.model import Signature
from miogen.analysis.typespec import TypeSpec
from miogen.testcase.model import Statement, TestCase

# Texts by number of parameters; each makes some code paths differ (truthy or not, raises on
# some inputs, changes types).
CATALOGUE: dict[int, tuple[str, ...]] = {
    0: ("lambda: None", "lambda: 0", "list", "dict"),
    1: (
        "len",
        "str",
        "bool",
        "abs",
        "str.upper",
        "lambda x: x",
        "lambda x: not x",
        "lambda x: x * 2",
        "lambda x: x is None",
        "lambda x: x > 0",
        "lambda _: None",
    ),
    2: ("lambda a, b: a + b", "lambda a, _: a", "lambda a, b: a * b", "max", "min"),
}
ANY_ARITY = ("lambda *_args, **_kwargs: None", "lambda *args: args")
# For a callable whose result is of a plain type that no text above gives: one of that type,
# whatever it is given (``Callable[[date, date], float]``: ``lambda *_args: 0.0``).
RETURNING = (
    "lambda *_args: 0",
    "lambda *_args: 0.0",
    'lambda *_args: ""',
    "lambda *_args: False",
    "lambda *_args: []",
    "lambda *_args: {}",
)
# Texts earlier versions chose, still resolved for the tests stored with them.
_FORMER = ("lambda a, b: a", "lambda *args, **kwargs: None")

_LAMBDAS: dict[str, Callable[..., Any]] = {
    text: eval(text, {"__builtins__": builtins})  # noqa: S307 - texts of this catalogue only
    for texts in (*CATALOGUE.values(), ANY_ARITY, RETURNING, _FORMER)
    for text in texts
    if text.startswith("lambda")
}

_NUMBERS = frozenset({"int", "float", "bool"})
_SIZED = frozenset({"str", "bytes", "list", "set", "dict", "tuple"})
_ADDABLE = frozenset({"int", "float", "bool", "str", "bytes", "list", "tuple"})
_ORDERED = frozenset({"int", "float", "bool", "str", "bytes"})
# What a type checker takes for a number of each kind (bool is an int to it).
_WIDER = {"int": {"bool"}, "float": {"int", "bool"}, "complex": {"int", "float", "bool"}}


@dataclass(frozen=True, slots=True)
class Shape:
    """What a catalogue function takes and gives, as a type checker reads it: ``takes`` the
    kinds each argument may be (None: any), ``gives`` the kind of its result, or "first" (the
    first argument's type, a bool made an int) or "tuple"; ``same``: its arguments are of one
    type (``a + b``, ``max``)."""

    takes: frozenset[str] | None
    gives: str
    same: bool = False


SHAPES: dict[str, Shape] = {
    "lambda: None": Shape(None, "none"),
    "lambda: 0": Shape(None, "int"),
    "list": Shape(None, "list"),
    "dict": Shape(None, "dict"),
    "len": Shape(_SIZED, "int"),
    "str": Shape(None, "str"),
    "bool": Shape(None, "bool"),
    "abs": Shape(_NUMBERS, "first"),
    "str.upper": Shape(frozenset({"str"}), "str"),
    "lambda x: x": Shape(None, "first"),
    "lambda x: not x": Shape(None, "bool"),
    "lambda x: x * 2": Shape(_ADDABLE, "first"),
    "lambda x: x is None": Shape(None, "bool"),
    "lambda x: x > 0": Shape(_NUMBERS, "bool"),
    "lambda _: None": Shape(None, "none"),
    "lambda a, b: a + b": Shape(_ADDABLE, "first", same=True),
    "lambda a, _: a": Shape(None, "first"),
    "lambda a, b: a * b": Shape(_NUMBERS, "first", same=True),
    "max": Shape(_ORDERED, "first", same=True),
    "min": Shape(_ORDERED, "first", same=True),
    "lambda *_args, **_kwargs: None": Shape(None, "none"),
    "lambda *args: args": Shape(None, "tuple"),
    "lambda *_args: 0": Shape(None, "int"),
    "lambda *_args: 0.0": Shape(None, "float"),
    'lambda *_args: ""': Shape(None, "str"),
    "lambda *_args: False": Shape(None, "bool"),
    "lambda *_args: []": Shape(None, "list"),
    "lambda *_args: {}": Shape(None, "dict"),
}


def choices(spec: TypeSpec) -> tuple[str, ...]:
    """Catalogue texts for a parameter of callable type ``spec``: those that fit it
    (``fitting``); when none does, all of its number (the annotation asks for what the
    catalogue has not got, a class of the module, say: the test runs all the same, and a
    module function that fits is preferred: ``fitting`` tells)."""
    return fitting(spec) or _candidates(spec)


def fitting(spec: TypeSpec) -> tuple[str, ...]:
    """Catalogue texts a type checker accepts for a parameter of callable type ``spec``: those
    of its number of parameters (any number when unknown), else those of any arity, else one
    that gives its result's plain type whatever it is given (``RETURNING``); () when none."""
    found = tuple(text for text in _candidates(spec) if fits(text, spec))
    found = found or tuple(text for text in ANY_ARITY if fits(text, spec))
    return found or tuple(text for text in RETURNING if fits(text, spec))


def _candidates(spec: TypeSpec) -> tuple[str, ...]:
    if spec.variadic:
        return CATALOGUE[1] + CATALOGUE[2] + ANY_ARITY
    return CATALOGUE.get(len(spec.args), ANY_ARITY)


def fits(text: str, spec: TypeSpec) -> bool:
    """Whether a type checker accepts the catalogue's ``text`` for a parameter of ``spec``."""
    shape = SHAPES.get(text)
    if shape is None:
        return False
    arity = CATALOGUE_ARITY.get(text)
    arguments = spec.args if not spec.variadic else (TypeSpec("any"),) * (arity or 0)
    if arity is not None and len(arguments) != arity:
        return False
    if shape.takes is not None and not all(_of_kinds(a, shape.takes) for a in arguments):
        return False
    if shape.takes is not None and not spec.variadic and _open(spec):
        # ``Callable[[A, A], A]`` of ``scanl(func, items: Iterable[A])``: the items are of
        # that ``TypeVar`` too, drawn of any kind (``[0, ""]``: an ``object`` to mypy, which
        # refuses ``a * b`` on it); only a function taking anything fits whatever is drawn.
        return False
    known = [a for a in arguments if a.kind != "any"]
    if shape.same and len(set(known)) > 1:
        return False
    if shape.gives == "first":
        if arguments and arguments[0].kind == "any" and _says(spec.returns):
            # An argument of a TypeVar reads as any: ``lambda x: x`` for ``Callable[[A],
            # bool]`` gives an A, which the checker binds to the items' type, not a bool.
            return False
        gives = _widened(arguments[0]) if arguments else TypeSpec("any")
    else:
        gives = TypeSpec(shape.gives)
    return accepts(spec.returns, gives)


CATALOGUE_ARITY = {text: arity for arity, texts in CATALOGUE.items() for text in texts}


def function_fits(function: Signature, spec: TypeSpec) -> bool:
    """Whether the module's ``function`` can be passed for a parameter of callable type
    ``spec``: it can be called with that many positional arguments (one, when unknown), takes
    each argument's type where it says a type, and gives what ``spec`` asks for (an unsaid
    result fits: mypy reads it as Any). An overloaded function does not fit: mypy infers
    no ``TypeVar`` of the parameter from one ("incompatible type overloaded function")."""
    if function.overloaded:
        return False
    starred = any(p.name.startswith("*") for p in function.params)
    positional = [p for p in function.params if not p.keyword_only and p.name[:1] != "*"]
    required = sum(1 for p in positional if not p.has_default)
    if spec.variadic:
        return (starred or required <= 1) and accepts(spec.returns, function.returns)
    arity = len(spec.args)
    if not (required <= arity and (starred or arity <= len(positional))):
        return False
    for argument, parameter in zip(spec.args, positional, strict=False):
        if parameter.annotated and not accepts(parameter.type, argument):
            return False
    if _fold_like(spec) and positional and positional[0].annotated:
        # ``Callable[[B, A], B]`` (``scanl``'s): the result is passed back as the first
        # argument, so it must be of that type (``take(n: int, ...) -> Iterator`` is not).
        return accepts(positional[0].type, function.returns)
    return accepts(spec.returns, function.returns)


def _open(spec: TypeSpec) -> bool:
    """Arguments and result all of open types (``TypeVar``s, read as any)."""
    said = spec.returns is not None and spec.returns.kind == "any"
    return said and bool(spec.args) and all(a.kind == "any" for a in spec.args)


def _fold_like(spec: TypeSpec) -> bool:
    """Two or more arguments and the result all of open types (``TypeVar``s, read as any):
    a fold's ``Callable[[B, A], B]`` or ``Callable[[A, A], A]``."""
    return len(spec.args) >= 2 and _open(spec)


def accepts(expected: TypeSpec | None, actual: TypeSpec) -> bool:
    """Whether a value of type ``actual`` type-checks where ``expected`` is asked for (None:
    nothing asked). Loose where the spec is: containers by kind and element kinds, classes by
    name."""
    if expected is None or expected.kind == "any" or actual.kind == "any":
        return True
    if actual.kind == "union":
        return all(accepts(expected, member) for member in actual.args)
    if expected.kind == "union":
        return any(accepts(member, actual) for member in expected.args)
    if actual.kind == "literal":
        return all(accepts(expected, TypeSpec(_kind_of(v))) for v in actual.values)
    if expected.kind == "literal":
        return False
    if actual.kind != expected.kind:
        return actual.kind in _WIDER.get(expected.kind, ())
    if expected.kind in ("class", "stdlib"):
        return actual.name == expected.name
    if expected.kind == "callable" or not (expected.args and actual.args):
        return True
    return len(expected.args) == len(actual.args) and all(
        accepts(e, a) and accepts(a, e) for e, a in zip(expected.args, actual.args, strict=True)
    )


def _says(spec: TypeSpec | None) -> bool:
    """Whether a callable's result type is said and is not any."""
    return spec is not None and spec.kind != "any"


def _of_kinds(spec: TypeSpec, kinds: frozenset[str]) -> bool:
    if spec.kind == "any":
        return True
    if spec.kind == "union":
        return all(_of_kinds(member, kinds) for member in spec.args)
    if spec.kind == "literal":
        return all(_kind_of(value) in kinds for value in spec.values)
    return spec.kind in kinds


def _widened(spec: TypeSpec) -> TypeSpec:
    """The type of ``abs(x)``, ``x * 2`` or ``x + y`` for ``x`` of ``spec``: a bool's is an int."""
    if spec.kind == "bool":
        return TypeSpec("int")
    if spec.kind == "union":
        return TypeSpec("union", tuple(_widened(member) for member in spec.args))
    if spec.kind == "literal":
        return TypeSpec("union", tuple(_widened(TypeSpec(_kind_of(v))) for v in spec.values))
    return spec


def _kind_of(value: object) -> str:
    return "none" if value is None else type(value).__name__


def origin(text: str) -> str:
    return "lambda" if text.startswith("lambda") else "builtin"


def resolve(text: str, source: str, module_lookup: Callable[[str], object]) -> object:
    """The function a ``callable`` statement stands for."""
    if source == "lambda":
        return _LAMBDAS[text]
    if source == "module":
        return module_lookup(text)
    value: object = builtins
    for part in text.split("."):
        value = getattr(value, part)
    return value


_COLLECTION_KINDS = frozenset({"list", "tuple", "set"})


def misfed(statement: Statement, test: TestCase) -> bool:
    """Whether the call passes a catalogue function together with a collection holding a
    value that function cannot take: ``scanr(lambda a, b: a * b, [None, ""])``, ``scanl(min,
    ["", 0])``. The function's parameters and the items are of one ``TypeVar`` to a type
    checker (both read as any here), so such a call fails it; what raises is the interpreter
    on the lambda's operands, not the project."""
    shapes = [
        SHAPES[test[i].name]
        for _, i in statement.args
        if test[i].kind == "callable" and test[i].name in SHAPES
    ]
    shapes = [shape for shape in shapes if shape.takes is not None]
    if not shapes:
        return False
    for _, index in statement.args:
        collection = test[index]
        if collection.kind not in _COLLECTION_KINDS:
            continue
        items = [test[i] for _, i in collection.args]
        kinds = {_kind_of(item.value) for item in items if item.kind == "value"}
        if any(item.kind != "value" for item in items):
            kinds.add("object")
        for shape in shapes:
            takes = shape.takes or frozenset()
            if not kinds <= takes:
                return True
            if shape.same and len({"number" if k in _NUMBERS else k for k in kinds}) > 1:
                return True
    return False
