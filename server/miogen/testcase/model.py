"""The flat test-case representation: a tuple of small statements that refer to earlier ones."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

COLLECTIONS = frozenset({"list", "tuple", "set", "dict"})
CALLS = frozenset({"construct", "call", "method", "property"})


@dataclass(frozen=True, slots=True)
class Statement:
    """One line of a test.

    kinds: ``value`` (a primitive literal in ``value``), ``list``/``tuple``/``set``/``dict``
    (elements are earlier statements; a dict alternates key, value), ``enum`` (``name`` is
    "Color.RED"), ``construct`` (``name`` is the class), ``call`` (a module-level function),
    ``method`` and ``property`` (on the statement ``receiver``).
    ``args`` are (parameter name, statement index) pairs; the name is "" for collection elements.
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


def size(test: TestCase) -> int:
    """Statements a reader sees: calls count one each, literals inlined into calls count nothing."""
    return sum(1 for s in test if s.kind in CALLS) or len(test)


def canonical_key(test: TestCase) -> tuple[object, ...]:
    """A hashable key that tells apart 0 and 0.0, True and 1, nan and nan."""
    return tuple((s.kind, s.name, s.args, _value_key(s.value), s.receiver) for s in test)


def _value_key(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
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
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    return value


def _decode(value: object) -> object:
    if isinstance(value, dict):
        if "float" in value:
            return float(value["float"])
        if "bytes" in value:
            return bytes.fromhex(value["bytes"])
        if "complex" in value:
            return complex(*value["complex"])
    return value
