"""The Unicode properties a module's code compares, and characters that have them.

Code that checks text by its characters' properties (``unicodedata.bidirectional(c) in
('R', 'AL')``, ``unicodedata.combining(c) == 9``, ``unicodedata.category(c)[0] == 'M'``)
takes its branches only for characters of those classes: a right-to-left letter, a virama, a
combining mark. Random text is ASCII and a handful of wide characters, so past the first
class such checks stay on one side. ``uses_of`` finds the comparisons: a call of one of
``unicodedata``'s one-character property functions (``import unicodedata``, ``import
unicodedata as ud``, ``from unicodedata import category``), or of a prefix of its result
(``[0]``, ``[:1]``), or of a name assigned one of those, or of a module function that returns
one (``def _combining_class(cp): v = unicodedata.combining(chr(cp)); ...; return v``), compared
(``==``, ``!=``, ``in``, ``not in``) with constants: literals, tuples, lists and sets of them,
and module-level names bound once to one; a property call tested for truth (``if
unicodedata.combining(c):``) asks for a character whose value is truthy. A call of
``unicodedata.normalize`` (or ``is_normalized``) with a constant form asks for a character
that form changes (``normalize('NFC', label) != label`` raises only for text not in NFC; no
random text has one). ``characters_for``
finds a few characters with each value, in this Python's Unicode database (the one the code
under test sees), preferring letters, marks and digits (what text checks let through).
"""

from __future__ import annotations

import ast
import functools
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from miogen.analysis import bisects
from miogen.analysis.source import parsed
from miogen.common.syntax import parse

# The functions of one character whose values code compares; those that raise for a character
# without the property are called with a default of None.
PROPERTIES: dict[str, Callable[[str], object]] = {
    "bidirectional": unicodedata.bidirectional,
    "category": unicodedata.category,
    "combining": unicodedata.combining,
    "east_asian_width": unicodedata.east_asian_width,
    "mirrored": unicodedata.mirrored,
    "decomposition": unicodedata.decomposition,
    "decimal": lambda c: unicodedata.decimal(c, None),
    "digit": lambda c: unicodedata.digit(c, None),
    "numeric": lambda c: unicodedata.numeric(c, None),
}
TABLE = "table:"  # the "function" of a use that looks a code point up in a module's dict
NORMALIZE = "normalize"  # the "function" of a normalization; its value is the form
FORMS = ("NFC", "NFD", "NFKC", "NFKD")
_NORMALIZERS = ("normalize", "is_normalized")
TRUTHY = object()  # the value of a use that tests the property for truth
PER_VALUE = 2  # characters per compared value: the first one, and the first letter, mark or digit
WORD_WINDOW = 0x1000  # code points past the first match searched for a letter, mark or digit
MAX_USES = 64  # (property, value) pairs per module worth searching characters for
_WORD_CATEGORIES = ("L", "M", "Nd")
_SURROGATES = range(0xD800, 0xE000)


@dataclass(frozen=True)
class PropertyUse:
    """``function(c)`` (or its first character: ``prefix``) compared with ``value``."""

    function: str
    value: object  # a str, an int, a float, or TRUTHY
    prefix: bool
    line: int


@functools.lru_cache(maxsize=16)
def uses_of(source: str) -> tuple[PropertyUse, ...]:
    """The property comparisons of ``source`` (see the module docstring), in line order."""
    if "unicodedata" not in source and "ord(" not in source:
        return ()
    tree = parsed(source)
    if tree is None:
        return ()
    return tuple(sorted(set(_uses(tree)), key=lambda u: (u.line, u.function, repr(u.value))))


@functools.lru_cache(maxsize=16)
def characters_of(source: str, path: str = "") -> str:
    """Characters with each property value ``source`` compares (no repeats, in order found);
    for code-point tables, ``path`` is the module's file (its package's modules hold them)."""
    return "".join(dict.fromkeys("".join(groups_of(source, path))))


@functools.lru_cache(maxsize=16)
def groups_of(source: str, path: str = "") -> tuple[str, ...]:
    """Per line that compares properties, the characters with the values it compares (a line
    ``if direction not in ['R', 'AL', 'AN', ...]`` tells the classes every character of a
    label must have)."""
    return tuple(dict.fromkeys(found for _, found in line_groups(source, path)))


@functools.lru_cache(maxsize=16)
def line_groups(source: str, path: str = "") -> tuple[tuple[int, str], ...]:
    """``groups_of``'s groups with their lines, in line order (a line's own, not deduplicated
    across lines): the characters a unit's own lines look for."""
    lines: dict[int, dict[str, None]] = {}
    for use in uses_of(source)[:MAX_USES]:
        if use.function.startswith(TABLE):
            table = _table(source, path, use.function[len(TABLE) :])
            chosen = _keys_for(table, use.value) if table else ""
        else:
            chosen = characters_for(use.function, use.value, use.prefix)
        lines.setdefault(use.line, {}).update(dict.fromkeys(chosen))
    for line, chosen in bisects.groups_of(source, path):  # rows of tables searched by bisect
        lines.setdefault(line, {}).update(dict.fromkeys(chosen))
    ordered = sorted(lines.items())
    return tuple((line, "".join(found)) for line, found in ordered if found)


@functools.lru_cache(maxsize=256)
def characters_for(function: str, value: object, prefix: bool = False) -> str:
    """Up to ``PER_VALUE`` characters whose ``function`` value is ``value`` (its first character
    is, with ``prefix``; any truthy value for ``TRUTHY``): the first such code point, and the
    first such letter, mark or digit. "" when none has it."""
    if function == NORMALIZE:
        return _unnormalized(value) if value in FORMS else ""
    measure = PROPERTIES[function]

    def matches(char: str) -> bool:
        result = measure(char)
        if prefix:
            result = result[:1] if isinstance(result, str) else None
        return bool(result) if value is TRUTHY else result == value

    first = word = ""
    for point in range(0x110000):
        if point in _SURROGATES:
            continue
        char = chr(point)
        if not matches(char):
            continue
        first = first or char
        if point - ord(first) > WORD_WINDOW:
            break
        if unicodedata.category(char).startswith(_WORD_CATEGORIES):
            word = char
            break
    return "".join(dict.fromkeys(c for c in (first, word) if c))[:PER_VALUE]


@functools.lru_cache(maxsize=8)
def _unnormalized(form: Literal["NFC", "NFD", "NFKC", "NFKD"]) -> str:
    """Up to ``PER_VALUE`` characters that normalizing to ``form`` changes: the first one, and
    the first letter (a letter reads as text where a lone mark may be refused first)."""
    first = letter = ""
    for point in range(0x110000):
        if point in _SURROGATES:
            continue
        char = chr(point)
        if unicodedata.normalize(form, char) == char:
            continue
        first = first or char
        if unicodedata.category(char).startswith("L"):
            letter = char
            break
    return "".join(dict.fromkeys(c for c in (first, letter) if c))


# -- where the module compares properties ------------------------------------------------------


def _uses(tree: ast.Module) -> Iterator[PropertyUse]:
    names = _property_names(tree)
    constants = _module_constants(tree)
    nodes = list(ast.walk(tree))
    # names assigned a property (anywhere: the check is per module, not per scope), then the
    # module's functions returning one of those, and names assigned calls of such functions
    assigned: dict[str, tuple[str, bool]] = {}
    helpers: dict[str, tuple[str, bool]] = {}
    for _ in range(2):
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                found = _property(node.value, names, assigned, helpers)
                if isinstance(target, ast.Name) and found is not None:
                    assigned[target.id] = found
        for function in tree.body:
            if isinstance(function, ast.FunctionDef):
                returned = [
                    _property(n.value, names, assigned, helpers)
                    for n in ast.walk(function)
                    if isinstance(n, ast.Return) and n.value is not None
                ]
                if returned and returned[0] is not None and all(r == returned[0] for r in returned):
                    helpers[function.name] = returned[0]
    normalizers = {name for name, p in names.items() if p in _NORMALIZERS}
    for node in nodes:
        form = _normalized_form(node, normalizers)
        if form and isinstance(node, ast.Call):
            yield PropertyUse(NORMALIZE, form, False, node.lineno)
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, a, b in zip(node.ops, operands, operands[1:], strict=False):
                if not isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
                    continue
                pairs = ((a, b), (b, a)) if isinstance(op, ast.Eq | ast.NotEq) else ((a, b),)
                many = not isinstance(op, ast.Eq | ast.NotEq)  # ``in``: a collection
                for measured, other in pairs:
                    found = _property(measured, names, assigned, helpers)
                    if found is not None:
                        for value in _values(other, constants, many):
                            yield PropertyUse(found[0], value, found[1], node.lineno)
        tests: list[ast.expr] = []
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            tests.append(node.test)
        elif isinstance(node, ast.BoolOp):
            tests.extend(node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            tests.append(node.operand)
        for test in tests:
            found = _property(test, names, assigned, helpers)
            if found is not None:
                yield PropertyUse(found[0], TRUTHY, found[1], test.lineno)


def _property_names(tree: ast.Module) -> dict[str, str]:
    """How the module names the property functions (and the normalizers): ``unicodedata.f``
    (under the module's name or alias, key "module.f") or ``f`` itself (key "f"), mapped to
    the property."""
    names: dict[str, str] = {}
    known = (*PROPERTIES, *_NORMALIZERS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "unicodedata":
                    local = alias.asname or alias.name
                    names.update({f"{local}.{p}": p for p in known})
        elif isinstance(node, ast.ImportFrom) and node.module == "unicodedata" and not node.level:
            for alias in node.names:
                if alias.name in known:
                    names[alias.asname or alias.name] = alias.name
    return names


def _normalized_form(node: ast.AST, normalizers: set[str]) -> str:
    """The form of ``normalize("NFC", text)`` (a normalizer of ``normalizers`` called with a
    constant form); "" for any other node."""
    if not isinstance(node, ast.Call) or not node.args:
        return ""
    name = _dotted(node.func)
    form = node.args[0]
    if name not in normalizers or not isinstance(form, ast.Constant):
        return ""
    return form.value if form.value in FORMS else ""


def _property(
    node: ast.expr | None,
    names: dict[str, str],
    assigned: dict[str, tuple[str, bool]],
    helpers: dict[str, tuple[str, bool]],
) -> tuple[str, bool] | None:
    """(property, prefix) that ``node`` evaluates to, or None."""
    if isinstance(node, ast.Name):
        return assigned.get(node.id)
    if isinstance(node, ast.Subscript) and _is_prefix(node.slice):
        inner = _property(node.value, names, assigned, helpers)
        return (inner[0], True) if inner is not None else None
    if isinstance(node, ast.Subscript) and bisects.is_ord(node.slice):
        table = _dotted(node.value)
        return (TABLE + table, False) if table else None
    if not isinstance(node, ast.Call) or not node.args:
        return None
    function = node.func
    if (
        isinstance(function, ast.Attribute)
        and function.attr == "get"
        and bisects.is_ord(node.args[0])
    ):
        table = _dotted(function.value)
        return (TABLE + table, False) if table else None
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        found = names.get(f"{function.value.id}.{function.attr}")
    elif isinstance(function, ast.Name):
        found = names.get(function.id)
        if found is None:
            return helpers.get(function.id)
    else:
        return None
    return (found, False) if found in PROPERTIES else None


def _dotted(node: ast.expr) -> str:
    """``name`` and ``module.name``; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return ""


def _is_prefix(index: ast.expr) -> bool:
    """``[0]`` and ``[:1]``."""
    if isinstance(index, ast.Constant):
        return index.value == 0 and type(index.value) is int
    if isinstance(index, ast.Slice) and index.lower is None and index.step is None:
        upper = index.upper
        return isinstance(upper, ast.Constant) and upper.value == 1 and type(upper.value) is int
    return False


def _values(node: ast.expr, constants: dict[str, object], many: bool) -> Iterator[object]:
    """The constants ``node`` is (or holds, for ``in``: ``many``)."""
    if many and isinstance(node, ast.Tuple | ast.List | ast.Set):
        for element in node.elts:
            yield from _values(element, constants, many=False)
        return
    if isinstance(node, ast.Constant) and type(node.value) in (str, int, float):
        yield node.value
    elif bisects.is_ord(node) and isinstance(node, ast.Call):
        argument = node.args[0]
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            if len(argument.value) == 1:
                yield ord(argument.value)
    elif isinstance(node, ast.Name) and node.id in constants:
        value = constants[node.id]
        if many and isinstance(value, tuple | frozenset):
            yield from value
        elif not many or isinstance(value, str):
            yield value


def _module_constants(tree: ast.Module) -> dict[str, object]:
    """Module-level names bound once, to a literal (or a tuple, list or set of literals)."""
    values: dict[str, list[object]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    try:
                        value = ast.literal_eval(statement.value) if statement.value else None
                    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                        value = None
                    if isinstance(value, list | set):
                        value = tuple(value)
                    values.setdefault(target.id, []).append(value)
    return {
        name: found[0]
        for name, found in values.items()
        if len(found) == 1 and found[0] is not None and _literal(found[0])
    }


def _literal(value: object) -> bool:
    if isinstance(value, tuple):
        return all(type(v) in (str, int, float) for v in value)
    return type(value) in (str, int, float)


# -- code-point tables -------------------------------------------------------------------------


def _keys_for(table: dict[int, object], value: object) -> str:
    """Up to ``PER_VALUE`` code points of ``table`` whose value is ``value``: the first one, and
    the first letter, mark or digit."""
    first = word = ""
    for point in sorted(table):
        found = table[point]
        if not (bool(found) if value is TRUTHY else found == value):
            continue
        char = chr(point)
        first = first or char
        if unicodedata.category(char).startswith(_WORD_CATEGORIES):
            word = char
            break
    return "".join(dict.fromkeys(c for c in (first, word) if c))


def _table(source: str, path: str, dotted: str) -> dict[int, object]:
    """The dict ``dotted`` names: a module-level one of ``source``, or one of a module of its
    package that it imports (``from . import data`` then ``data.table``, ``from .data import
    table``); {} when it is not a literal dict keyed by code points."""
    tree = parsed(source)
    if tree is None:
        return {}
    head, _, attribute = dotted.partition(".")
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or not node.level or not path:
            continue
        for alias in node.names:
            if (alias.asname or alias.name) != head:
                continue
            # ``from . import data`` (then ``data.table``) or ``from .data import table``
            parts = (node.module or "").split(".") + ([alias.name] if attribute else [])
            name = attribute or alias.name
            base = Path(path).parent
            for _ in range(node.level - 1):
                base = base.parent
            module = base.joinpath(*[p for p in parts if p])
            for candidate in (module.with_suffix(".py"), module / "__init__.py"):
                if candidate.is_file():
                    return _file_table(str(candidate), name)
            return {}
    return {} if attribute else _dict_in(tree, head)


@functools.lru_cache(maxsize=16)
def _file_table(path: str, name: str) -> dict[int, object]:
    try:
        tree = parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return {}
    return _dict_in(tree, name)


def _dict_in(tree: ast.Module, name: str) -> dict[int, object]:
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
            and isinstance(statement.value, ast.Dict)
        ):
            try:
                value: dict[object, object] = ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return {}
            table = {k: v for k, v in value.items() if type(k) is int and 0 <= k < 0x110000}
            if len(table) == len(value) and not any(k in _SURROGATES for k in table):
                return table
            return {}
    return {}
