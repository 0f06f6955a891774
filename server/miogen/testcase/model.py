"""The flat test-case representation: a tuple of small statements that refer to earlier ones."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from miogen.analysis.special import SPECIAL_METHODS
from miogen.testcase import stdlib_values

COLLECTIONS = frozenset({"list", "tuple", "set", "dict"})
CALLS = frozenset({"construct", "call", "method", "property", "operator", "assign"})


@dataclass(frozen=True, slots=True)
class Statement:
    """One line of a test.

    kinds: ``value`` (a literal in ``value``: a primitive or an immutable stdlib value such as
    a date), ``list``/``tuple``/``set``/``dict`` (elements are earlier statements; a dict
    alternates key, value), ``enum`` (``name`` is "Color.RED"), ``construct`` (``name`` is the
    class), ``call`` (a module-level function, or "Class.factory"), ``method`` and ``property``
    (on the statement ``receiver``), ``operator`` (a special method such as "__add__" on the
    ``receiver``, written as its syntax), ``assign`` (a property setter: ``receiver.name = v``),
    ``callable`` (a function passed as a value: ``name`` is its text, ``value`` says "builtin",
    "lambda" or "module", see testcase.callables), ``class`` (a class itself, for ``type[C]``:
    ``name`` is the class). For ``construct`` and ``enum`` of a class
    (and ``class``) imported from another module of the package, ``value`` is that module.
    ``args`` are (parameter name, statement index) pairs; the name is "" for collection elements;
    names starting with "/" (positional-only) or "*" (elements of ``*args``) go by position.
    """

    kind: str
    name: str = ""
    args: tuple[tuple[str, int], ...] = ()
    value: object = None
    receiver: int = -1

    def references(self) -> list[int]:
        refs = [index for _, index in self.args]
        return refs + [self.receiver] if self.receiver >= 0 else refs

    def renumbered(self, mapping: dict[int, int]) -> Statement:
        args = tuple((name, mapping[index]) for name, index in self.args)
        receiver = mapping[self.receiver] if self.receiver >= 0 else -1
        return Statement(self.kind, self.name, args, self.value, receiver)


TestCase = tuple[Statement, ...]


def has_value(statement: Statement) -> bool:
    """Whether the statement is an expression whose value a test can check: not ``x.name = v``,
    ``x[k] = v`` or ``del x[k]``."""
    if statement.kind == "assign":
        return False
    special = SPECIAL_METHODS.get(statement.name) if statement.kind == "operator" else None
    return special is None or special.has_value


def size(test: TestCase) -> int:
    """Statements a reader sees: calls count one each, literals inlined into calls count nothing."""
    return sum(1 for s in test if s.kind in CALLS) or len(test)


def canonical_key(test: TestCase) -> tuple[object, ...]:
    """A hashable key that tells apart 0 and 0.0, True and 1, nan and nan."""
    return tuple((s.kind, s.name, s.args, _value_key(s.value), s.receiver) for s in test)


def _value_key(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    if stdlib_values.is_stdlib_value(value):  # Decimal("1.10") == Decimal("1.1"), but reads apart
        return (type(value).__name__, stdlib_values.key(value))
    return (type(value).__name__, value)


def remove_statements(test: TestCase, removed: set[int]) -> TestCase | None:
    """The test without the given statements, or None when a kept statement refers to a removed one."""
    mapping: dict[int, int] = {}
    kept: list[Statement] = []
    for index, statement in enumerate(test):
        if index in removed:
            continue
        if any(ref in removed for ref in statement.references()):
            return None
        mapping[index] = len(kept)
        kept.append(statement.renumbered(mapping))
    return tuple(kept)


def statement_slice(test: TestCase, index: int) -> TestCase:
    """Statement ``index`` of ``test`` with what it may depend on: the statements it refers to,
    those they refer to, and the earlier statements that use any of them (a method call that
    filled the object the statement reads), to a fixpoint, renumbered in their order.

    What kills a worker is mostly one call with its values (``format("month_abbr",
    colwidth=1864343715, spacing=-9)``, a string of gigabytes built in C, where the worker's
    alarm cannot fire); the search then puts the same call in other tests.

    >>> test = (Statement("value", value=1), Statement("value", value=2),
    ...         Statement("call", "f", (("x", 0),)), Statement("call", "g", (("y", 1),)))
    >>> [s.value if s.kind == "value" else s.name for s in statement_slice(test, 3)]
    [2, 'g']
    """
    kept = {index}
    changed = True
    while changed:
        changed = False
        objects = {k for k in kept if test[k].kind != "value"}  # a literal is not changed
        for position in range(index, -1, -1):
            refers = set(test[position].references())
            if position in kept or (position < index and refers & objects):
                new = (refers | {position}) - kept
                if new:
                    kept |= new
                    changed = True
    removed = set(range(len(test))) - kept
    sliced = remove_statements(test, removed)
    return sliced if sliced is not None else test[: index + 1]


def blocked_by(
    test: TestCase, blocked: frozenset[tuple[object, ...]], slices: SliceKeys | None = None
) -> bool:
    """Whether ``test``, or the slice (``statement_slice``) of one of its calls, is one of
    the ``blocked`` tests' keys (``canonical_key``); ``slices``: the slices' keys found before."""
    if canonical_key(test) in blocked:
        return True
    keys = (slices if slices is not None else SliceKeys(limit=0)).of(test)
    return any(key in blocked for key in keys)


class SliceKeys:
    """The keys of the slices of a test's calls (``statement_slice``), each found once.

    A call's slice is made of the statements up to it only, so it is a function of that
    prefix: a test evaluated again (a view of the problem in another mode, the archive's
    tests re-run, a shrinking's candidates) and a mutant of a test that kept its first
    statements find their slices here instead of computing them again. At most ``limit``
    prefixes are kept (all are dropped when full: the search has moved on); none with 0."""

    def __init__(self, limit: int = 50_000) -> None:
        self.limit = limit
        self._by_prefix: dict[tuple[object, ...], tuple[object, ...]] = {}

    def of(self, test: TestCase) -> list[tuple[object, ...]]:
        """The canonical keys of the slices of ``test``'s calls, in their order."""
        parts = canonical_key(test)
        found = []
        for index, statement in enumerate(test):
            if statement.kind not in CALLS:
                continue
            prefix = parts[: index + 1]
            key = self._by_prefix.get(prefix)
            if key is None:
                key = canonical_key(statement_slice(test, index))
                if self.limit > 0:
                    if len(self._by_prefix) >= self.limit:
                        self._by_prefix.clear()
                    self._by_prefix[prefix] = key
            found.append(key)
        return found


def drop_unused_values(test: TestCase) -> TestCase:
    """Remove literal and collection statements that nothing refers to."""
    while True:
        used = {ref for statement in test for ref in statement.references()}
        unused = {i for i, s in enumerate(test) if i not in used and s.kind not in CALLS}
        if not unused:
            return test
        reduced = remove_statements(test, unused)
        if reduced is None:
            return test
        test = reduced


def to_json(test: TestCase) -> list[Any]:
    return [[s.kind, s.name, [list(a) for a in s.args], _encode(s.value), s.receiver] for s in test]


def from_json(data: list[Any]) -> TestCase:
    return tuple(
        Statement(kind, name, tuple((n, i) for n, i in args), _decode(value), receiver)
        for kind, name, args, value, receiver in data
    )


def _encode(value: object) -> object:
    encoded = stdlib_values.encode(value)
    if encoded is not None:
        return encoded
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    return value


def _decode(value: object) -> object:
    if isinstance(value, dict):
        if "stdlib" in value:
            return stdlib_values.decode(value)
        if "float" in value:
            return float(value["float"])
        if "bytes" in value:
            return bytes.fromhex(value["bytes"])
        if "complex" in value:
            return complex(*value["complex"])
    return value
