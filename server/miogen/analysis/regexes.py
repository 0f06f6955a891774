"""A module's regular expressions, where its code uses them, and strings they match.

Random strings almost never get past ``if not re.fullmatch(VERSION, text): raise``: the
search needs strings of the pattern's shape. ``uses_of`` finds the patterns a module uses: the
first argument of ``re.compile``/``re.match``/``re.search``/... when it folds to a string
(a literal, a module-level name bound once to one, ``+``, ``%``, ``str.format``, f-strings and
``"|".join`` of such values), the names bound to ``re.compile(...)`` wherever their methods are
called (``VERSION.match(text)``, ``self.VERSION.match(text)``), and module-level strings whose
names say they are patterns (``TIME_PAT``, ``VERSION_RE``, ``PATTERN``), each with the line
that uses it. ``examples`` writes strings a pattern matches: a small generator over the
parsed pattern (``re._parser``, ``sre_parse`` before Python 3.11) that takes literals, classes,
repeats a few times, groups, alternatives, backreferences and conditionals; what it does not
take (lookarounds it cannot satisfy, unknown opcodes) gives no example, never a wrong one: each
string is checked with the pattern itself before it is returned.
"""

from __future__ import annotations

import ast
import functools
import random
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from miogen.analysis.patterns import NotSimple, class_test
from miogen.analysis.source import parsed

try:  # the parser moved into re in Python 3.11 (and sre_parse warns there)
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10, where a project's worker may run
    import sre_constants
    import sre_parse

MAX_PATTERN = 1000  # characters of a pattern worth generating for
MAX_EXAMPLE = 200  # characters of an example (the constant pool's limit)
MAX_EXTRA = 2  # repetitions beyond a repeat's minimum
MAX_DEPTH = 60  # nesting of the parsed pattern
EXAMPLES = 4  # strings per pattern, for the constant pool
ATTEMPTS = 12  # generations tried for them
PRINTABLE = string.ascii_letters + string.digits + " _-.,:/@#+=!?'\"()[]{}<>*&%$^~|;\\\t\n"
_CALLS = {
    # function -> position of its flags argument
    "compile": 1,
    "match": 2,
    "fullmatch": 2,
    "search": 2,
    "findall": 2,
    "finditer": 2,
    "split": 3,
    "sub": 4,
    "subn": 4,
}
_METHODS = frozenset(_CALLS) - {"compile"}
_PATTERN_NAME = re.compile(r"(?i)(?:^|_)(?:pat|patt|pattern|re|regex|regexp|rx)s?$")


@dataclass(frozen=True)
class RegexUse:
    """A pattern (with its flags) and the line of the module that uses or defines it."""

    pattern: str
    flags: int
    line: int


class Unsupported(Exception):
    """The pattern uses something the generator does not write strings for."""


# -- where the module uses patterns ------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def uses_of(source: str) -> tuple[RegexUse, ...]:
    """The patterns ``source`` uses (see the module docstring), valid ones only, in line order."""
    tree = parsed(source)
    return uses_in(tree) if tree is not None else ()


def uses_in(tree: ast.Module) -> tuple[RegexUse, ...]:
    """``uses_of`` for a parsed module."""
    return tuple(_uses(tree))


def _uses(tree: ast.Module) -> Iterator[RegexUse]:
    bound = _module_strings(tree)
    compiled: dict[str, tuple[str, int]] = {}  # name (module or class level) -> its pattern
    scopes: list[ast.Module | ast.ClassDef] = [tree]
    scopes += [n for n in tree.body if isinstance(n, ast.ClassDef)]
    for scope in scopes:
        for statement in scope.body:
            target, value = _single_assignment(statement)
            found = _regex_call(value, bound) if target else None
            if target and found is not None and found[0] == "compile":
                compiled[target] = found[1:]
    seen: set[RegexUse] = set()
    top_level = {id(statement) for statement in tree.body}
    for node in ast.walk(tree):
        use = None
        if isinstance(node, ast.Call):
            found = _regex_call(node, bound)
            if found is not None:
                use = RegexUse(found[1], found[2], node.lineno)
            elif (
                isinstance(node.func, ast.Attribute)
                and node.func.attr in _METHODS
                and _last_name(node.func.value) in compiled
            ):
                pattern, flags = compiled[_last_name(node.func.value)]
                use = RegexUse(pattern, flags, node.lineno)
        elif isinstance(node, ast.Assign) and id(node) in top_level:
            target, value = _single_assignment(node)
            text = bound.get(target) if target and _PATTERN_NAME.search(target) else None
            if isinstance(text, str):
                use = RegexUse(text, 0, node.lineno)
        if use is not None and use not in seen and _compiles(use.pattern, use.flags):
            seen.add(use)
            yield use


def _single_assignment(statement: ast.AST) -> tuple[str, ast.expr | None]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            return target.id, statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id, statement.value
    return "", None


def _last_name(node: ast.expr) -> str:
    """``NAME`` of ``NAME``, ``self.NAME``, ``cls.NAME`` and ``Class.NAME``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr
    return ""


def _regex_call(node: ast.AST | None, bound: dict[str, object]) -> tuple[str, str, int] | None:
    """(function, pattern, flags) of ``re.<function>(pattern, ...)`` with a foldable pattern."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    function = node.func
    if not (
        isinstance(function, ast.Attribute)
        and function.attr in _CALLS
        and isinstance(function.value, ast.Name)
        and function.value.id == "re"
    ):
        return None
    pattern = _fold(node.args[0], bound)
    if not isinstance(pattern, str) or len(pattern) > MAX_PATTERN:
        return None
    position = _CALLS[function.attr]
    flag_node = node.args[position] if len(node.args) > position else None
    flag_node = next((k.value for k in node.keywords if k.arg == "flags"), flag_node)
    return function.attr, pattern, _flags(flag_node)


def _flags(node: ast.expr | None) -> int:
    """``re.I | re.VERBOSE`` and the like; 0 for what is not such an expression."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "re"
    ):
        flag = getattr(re, node.attr, None)
        return int(flag) if isinstance(flag, re.RegexFlag) else 0
    return 0


def _module_strings(tree: ast.Module) -> dict[str, object]:
    """Module-level names bound once, to a value that folds (in order: later ones may use
    earlier ones)."""
    counts: dict[str, int] = {}
    for statement in tree.body:
        for node in ast.walk(statement) if not isinstance(statement, _SCOPES) else ():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
    bound: dict[str, object] = {}
    for statement in tree.body:
        target, value = _single_assignment(statement)
        if target and value is not None and counts.get(target) == 1:
            folded = _fold(value, bound)
            if folded is not None:
                bound[target] = folded
    return bound


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _fold(node: ast.expr | None, bound: dict[str, object]) -> object:
    """The value of a constant expression of strings (None where it is not one): literals,
    names in ``bound``, ``+``, ``%``, ``.format``, ``.join``, f-strings; also the tuples,
    lists and dicts (their keys) that ``%`` and ``join`` take."""
    try:
        value = _folded(node, bound)
    except (Unsupported, TypeError, ValueError, KeyError, IndexError, RecursionError):
        return None
    if isinstance(value, str) and len(value) > MAX_PATTERN:
        return None
    return value


def _folded(node: ast.expr | None, bound: dict[str, object]) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int):
        return node.value
    if isinstance(node, ast.Name) and node.id in bound:
        return bound[node.id]
    if isinstance(node, ast.Tuple | ast.List):
        return tuple(_folded(element, bound) for element in node.elts)
    if isinstance(node, ast.Dict):
        return tuple(_folded(key, bound) for key in node.keys)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        left, right = _folded(node.left, bound), _folded(node.right, bound)
        if not isinstance(left, str):
            raise Unsupported
        result = left + right if isinstance(node.op, ast.Add) else left % right  # type: ignore[operator]
        return _text(result)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.conversion != -1 or value.format_spec is not None:
                    raise Unsupported
                parts.append(str(_text(_folded(value.value, bound))))
            else:
                parts.append(str(_text(_folded(value, bound))))
        return "".join(parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        owner = _folded(node.func.value, bound)
        arguments = [_folded(argument, bound) for argument in node.args]
        if isinstance(owner, str) and node.func.attr == "join" and len(arguments) == 1:
            items = arguments[0]
            if isinstance(items, tuple) and all(isinstance(i, str) for i in items):
                return owner.join(items)
        if isinstance(owner, str) and node.func.attr == "format":
            return _text(owner.format(*arguments))
    raise Unsupported


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise Unsupported
    return value


@functools.lru_cache(maxsize=512)
def _compiles(pattern: str, flags: int) -> bool:
    try:
        re.compile(pattern, flags)
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        return False
    return True


# -- strings a pattern matches -----------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def examples_of(pattern: str, flags: int = 0, count: int = EXAMPLES) -> tuple[str, ...]:
    """Up to ``count`` strings that ``pattern`` matches as a whole (``re.fullmatch``), the
    shortest first; always the same ones for the same pattern."""
    return tuple(examples(pattern, flags, random.Random(f"{flags}:{pattern}"), count))


def examples(pattern: str, flags: int, rng: random.Random, count: int = EXAMPLES) -> list[str]:
    """Strings that ``pattern`` fully matches (none when the generator cannot write any)."""
    try:
        compiled = re.compile(pattern, flags)
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        return []
    found: dict[str, None] = {}
    for attempt in range(ATTEMPTS):
        try:
            writer = _Writer(rng, shortest=attempt == 0)
            text = writer.items(list(parsed), 0)
        except (Unsupported, RecursionError, ValueError, OverflowError):
            if attempt == 0:
                continue
            break
        if len(text) <= MAX_EXAMPLE and compiled.fullmatch(text):
            found[text] = None
            if len(found) >= count:
                break
    return sorted(found, key=len)


class _Writer:
    """Writes one string for a parsed pattern; ``shortest``: every repeat its minimum."""

    def __init__(self, rng: random.Random, shortest: bool) -> None:
        self.rng = rng
        self.shortest = shortest
        self.groups: dict[int, str] = {}

    def items(self, items: list[Any], depth: int) -> str:
        if depth > MAX_DEPTH:
            raise Unsupported
        return "".join(self.item(opcode, argument, depth + 1) for opcode, argument in items)

    def item(self, opcode: Any, argument: Any, depth: int) -> str:
        c = sre_constants
        if opcode is c.LITERAL:
            return chr(argument)
        if opcode is c.NOT_LITERAL:
            return self.character(lambda ch: ord(ch) != argument)
        if opcode is c.ANY:
            return self.character(lambda ch: ch != "\n")
        if opcode is c.IN:
            try:
                return self.character(class_test(list(argument)))
            except NotSimple:
                raise Unsupported from None
        if opcode in _REPEATS:
            low, high, inner = argument
            high = low + MAX_EXTRA if high is c.MAXREPEAT else min(high, low + MAX_EXTRA)
            times = low if self.shortest else self.rng.randint(low, max(low, high))
            return "".join(self.items(list(inner), depth) for _ in range(times))
        if opcode is c.SUBPATTERN:
            group, inner = argument[0], argument[-1]
            text = self.items(list(inner), depth)
            if group is not None:
                self.groups[group] = text
            return text
        if opcode is c.BRANCH:
            branches = argument[1]
            chosen = branches[0] if self.shortest else self.rng.choice(branches)
            return self.items(list(chosen), depth)
        if opcode is c.AT:
            return ""  # anchors and word boundaries: the check of the whole string judges
        if opcode is c.GROUPREF:
            return self.groups.get(argument, "")
        if opcode is c.GROUPREF_EXISTS:
            group, yes, no = argument
            chosen = yes if group in self.groups else no
            return self.items(list(chosen), depth) if chosen is not None else ""
        if opcode is c.ASSERT_NOT:
            return ""  # a negative lookaround: most strings pass it; the check says
        if opcode is getattr(c, "ATOMIC_GROUP", None):
            return self.items(list(argument), depth)
        raise Unsupported  # a lookaround that must see text, or an opcode of a later Python

    def character(self, accepts: Any) -> str:
        choices = [ch for ch in PRINTABLE if accepts(ch)]
        if not choices:
            choices = [ch for ch in map(chr, range(0x80, 0x800)) if accepts(ch)][:64]
        if not choices:
            raise Unsupported
        return choices[0] if self.shortest else self.rng.choice(choices)


_REPEATS = tuple(
    getattr(sre_constants, name)
    for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
    if hasattr(sre_constants, name)
)
