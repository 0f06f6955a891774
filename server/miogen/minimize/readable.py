"""Values as a person would write them: a number, not ``False``, where a parameter takes a number.

The search may pass ``True`` or ``False`` to a parameter that takes a number (``bool`` is an
``int``, and an untyped parameter gets values of any kind). Such a test reads as if the code
took a flag: ``Stack(capacity=False)``, ``divmod(False, fraction)`` (an operator's untyped
operand: linters flag the bool passed by position, ruff's FBT003), ``pstdev([0, True, 19])``
(a bool among a list's numbers). After shrinking, each such bool becomes the number it stands
for (``0``/``1``, ``0.0``/``1.0``) if the test still covers what it is kept for. A bool is
left as it is where the code takes a flag: a parameter typed ``bool`` (alone or in a union),
or with a bool default. An untyped parameter without default takes a number where its body uses
it as one (``analysis.numeric_uses``: ``formatweekday(day=True, width=False)`` whose body reads
``names[day]`` and ``width >= 9``), and so does an element of an untyped ``*args`` or a
positional-only parameter of any type (an overload's ``TypeVar``). Likewise a
float that is a whole number becomes that int where such a parameter is used as a whole number
(``y // 4``, an index, ``range()``): ``leapdays(179375.0, ...)`` reads as if the year could have
a fraction.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterator

from miogen.analysis.model import ModuleModel, Parameter, Signature
from miogen.analysis.numeric_uses import NumericUses
from miogen.analysis.regexes import examples_of
from miogen.analysis.source import parsed
from miogen.testcase.model import Statement, TestCase

NumberKind = Callable[[TestCase, int], type | None]


_COLLECTIONS = frozenset({"list", "tuple", "set"})


def number_parameters(
    model: ModuleModel,
    signature_of: Callable[[Statement], Signature | None] | None = None,
    numeric: NumericUses | None = None,
    whole: NumericUses | None = None,
) -> NumberKind:
    """For a test and a bool value statement: ``int`` or ``float`` when the value is passed to
    a parameter typed as that number (or as a union with it and without ``bool``: an
    operator's untyped operand, ``analysis.enrich``), or untyped with a default of that type,
    or is an item of a list, tuple or set among numbers of that type; ``int`` when it is
    passed to an untyped parameter without default that ``numeric``
    (``analysis.numeric_uses``, keyed by the signature's line and name) says the body uses as
    a number; else None. For a float that is a whole number: ``int`` when it is passed to a
    parameter without annotation and default (its type inferred or not) that ``whole``
    (``numeric_uses.whole_number_uses``) says the body uses as a whole number (``y // 4``,
    ``names[day]``), else None.
    ``signature_of`` (the sampler's) knows the signatures of operators too; the model's are
    looked up without it."""
    uses = numeric or {}
    whole_uses = whole or {}

    def kind(test: TestCase, index: int) -> type | None:
        value = test[index].value
        is_float = isinstance(value, float)
        for statement in test[index + 1 :]:
            if statement.kind in _COLLECTIONS and any(i == index for _, i in statement.args):
                return None if is_float else _items_number_type(test, statement, index)
            for name, reference in statement.args:
                if reference == index and name:
                    signature = signature_of(statement) if signature_of is not None else None
                    signature = signature or _signature(model, test, statement)
                    parameter = _parameter(model, test, statement, name, signature)
                    if parameter is None or signature is None:
                        return None
                    key = (signature.line, signature.name)
                    bare = parameter.name.lstrip("/*")
                    if is_float:  # a whole one, for a parameter taking whole numbers
                        taken = bare in whole_uses.get(key, frozenset())
                        free = not parameter.annotated and not parameter.has_default
                        return int if free and taken else None
                    return _number_type(parameter, bare in uses.get(key, frozenset()))
        return None

    return kind


def _items_number_type(test: TestCase, collection: Statement, index: int) -> type | None:
    """``float`` when the collection's other items include a float number, else ``int`` when
    they include an int (not a bool), else None."""
    kinds = {
        type(test[i].value)
        for _, i in collection.args
        if i != index and test[i].kind == "value" and type(test[i].value) in (int, float)
    }
    return float if float in kinds else int if int in kinds else None


def numbers_for_bools(test: TestCase, kind: NumberKind) -> Iterator[TestCase]:
    """The test with one bool turned into the number it stands for, for each such bool, and
    one float that is a whole number turned into that int where ``kind`` says the parameter
    takes an int (``leapdays(179375.0, ...)`` as ``leapdays(179375, ...)``)."""
    for index, statement in enumerate(test):
        value = statement.value
        if statement.kind != "value" or not isinstance(value, bool | float):
            continue
        if isinstance(value, float) and not (abs(value) < 2**53 and value.is_integer()):
            continue
        number = kind(test, index)
        if number is not None and number is not type(value):
            replaced = Statement("value", value=number(value))
            yield test[:index] + (replaced,) + test[index + 1 :]


def _parameter(
    model: ModuleModel,
    test: TestCase,
    statement: Statement,
    name: str,
    signature: Signature | None = None,
) -> Parameter | None:
    signature = signature or _signature(model, test, statement)
    if signature is None:
        return None
    return next((p for p in signature.params if p.name == name), None)


def _signature(model: ModuleModel, test: TestCase, statement: Statement) -> Signature | None:
    if statement.kind == "construct" and statement.name in model.classes:
        return model.classes[statement.name].constructor
    if statement.kind == "call":
        owner, _, method = statement.name.rpartition(".")
        if owner in model.classes:
            return _method(model, owner, method)
        return model.functions.get(statement.name)
    if statement.kind == "method" and 0 <= statement.receiver < len(test):
        receiver = test[statement.receiver]
        if receiver.kind == "construct":
            return _method(model, receiver.name, statement.name)
    return None


def _method(model: ModuleModel, class_name: str, name: str) -> Signature | None:
    methods = model.classes[class_name].methods
    return next((m for m in methods if m.name == name), None)


def _untyped(parameter: Parameter) -> bool:
    """Without annotation, default or inferred type: the search gives it values of any kind."""
    return parameter.type.kind == "any" and not parameter.has_default and not parameter.annotated


def _number_type(parameter: Parameter, used_as_number: bool = False) -> type | None:
    if parameter.name.startswith("*") and parameter.type.kind == "any" and not parameter.annotated:
        # An element of an untyped ``*args``: a bool there can only go by position (ruff's
        # FBT003, ``Range(0.0, 0.0, False)``), and nothing says the function takes a flag.
        return int
    if parameter.has_default and isinstance(parameter.default, bool):
        return None  # a flag
    kind = parameter.type.kind
    if parameter.name.startswith("/") and kind == "any":
        # Positional-only, of any type (a ``TypeVar``: an overload's ``initial: B``): a bool
        # goes by position too (FBT003, ``scanl(add, items, True)``), and nothing says flag.
        return int
    if _untyped(parameter):
        return int if used_as_number else None
    if kind in ("int", "float"):
        return int if kind == "int" else float
    if kind == "union":
        kinds = {arm.kind for arm in parameter.type.args}
        if "bool" not in kinds and kinds & {"int", "float"}:
            return int if "int" in kinds else float
        return None
    default = parameter.default
    if kind == "any" and parameter.has_default and type(default) in (int, float):
        return type(default)
    return None


MAX_WORD_LENGTH = 12


def module_words(model: ModuleModel) -> tuple[str, ...]:
    """Short plain words a string may shrink to: the module's string constants and the names
    of its units, methods and parameters, lowercase letters only (``"food"``, ``"capacity"``)."""
    names = list(_own_strings(model))
    for cls in model.classes.values():
        names.append(cls.name.lower())
        for signature in (cls.constructor, *cls.methods):
            if signature is not None:
                names += [signature.name, *(p.name.lstrip("/*") for p in signature.params)]
    for name, function in model.functions.items():
        names += [name, *(p.name.lstrip("/*") for p in function.params)]
    plain = (w for w in names if w.isalpha() and w.islower() and len(w) <= MAX_WORD_LENGTH)
    return tuple(sorted(set(plain)))


MAX_TEXT_LENGTH = 40


def module_texts(model: ModuleModel) -> tuple[str, ...]:
    """The module's own strings a string may become although not shorter: its literals and
    its doctest examples' (``"1506715214"`` for ``is_isbn_10``, ``'{"name": "Peter"}'`` for
    ``is_json``), printable ones of at most ``MAX_TEXT_LENGTH`` characters. A reader knows them
    from the module; a value the search made up reads as fuzz however plain its characters."""
    texts = (s for s in _own_strings(model) if s.isprintable())
    return tuple(sorted({s for s in texts if 0 < len(s) <= MAX_TEXT_LENGTH}))


def _own_strings(model: ModuleModel) -> Iterator[str]:
    """The constant pool's strings that the module's source holds: its literals and doctest
    examples, not the strings written for its regular expressions (``with_pattern_examples``).
    Those are the search's inputs, drawn at random from the pattern's classes (``"6y<:F)"``
    for ``([^/:]+):(.*)``): counted as the module's own text, at half the cost of a made-up
    one, they kept shrinking from trying anything plainer than themselves. The project's own
    values found elsewhere (its tests' literals) stay."""
    pool = model.constants
    written = {text for pattern, flags in pool.patterns for text in examples_of(pattern, flags)}
    return (text for text in pool.strings if text not in written or text in model.source)


MAX_UNIT_NUMBERS = 8


def unit_numbers(source: str, ranges: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """The int literals of the unit's own lines (``ranges``, as ``Unit.ranges``) of magnitude
    2 and more, as positive numbers from the smallest (the ``MAX_UNIT_NUMBERS`` most frequent):
    what a number the unit divides, compares or indexes by may shrink to besides fewer digits
    (``Shrinker``). ``leapdays``' ``y2 // 400`` holds ``-14802`` where no step toward 0 keeps
    its kills, ``-400`` does. An unparsable source: none."""
    counts: dict[int, int] = {}
    for line, number in _int_literals(source):
        if any(start <= line <= end for start, end in ranges):
            counts[number] = counts.get(number, 0) + 1
    ordered = sorted(counts, key=lambda n: (-counts[n], n))
    return tuple(sorted(ordered[:MAX_UNIT_NUMBERS]))


@functools.lru_cache(maxsize=8)
def _int_literals(source: str) -> tuple[tuple[int, int], ...]:
    """(line, magnitude) of each int literal of magnitude 2 and more in ``source``: the module
    is walked once, not once per unit (a module of 60 units was walked 60 times)."""
    tree = parsed(source)
    if tree is None:
        return ()
    return tuple(
        (node.lineno, abs(node.value))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and type(node.value) is int and abs(node.value) >= 2
    )


MAX_YEARS = 8
_YEAR = re.compile(r"(?<![\w.])(19\d\d|20\d\d|2100)(?![\w.])")


def module_years(source: str) -> tuple[int, ...]:
    """The years 1900-2100 the module's text names (its code, docstrings, doctest examples:
    ``datetime.date(2008, 2, 28)``), the ``MAX_YEARS`` most frequent, in order: what a date
    of a test may move to besides 2000 (``Shrinker``).

    >>> module_years("d = date(2008, 2, 28)  # 2008 and 2015; not 12008 or 2008.5")
    (2008, 2015)
    """
    counts: dict[int, int] = {}
    for found in _YEAR.findall(source):
        counts[int(found)] = counts.get(int(found), 0) + 1
    ordered = sorted(counts, key=lambda year: (-counts[year], year))
    return tuple(sorted(ordered[:MAX_YEARS]))
