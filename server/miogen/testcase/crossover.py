"""Single-point crossover of flat test cases (DynaMOSA's recombination), references repaired."""

from __future__ import annotations

import random

from miogen.testcase.model import Statement, TestCase, drop_unused_values


def crossover(
    first: TestCase, second: TestCase, rng: random.Random, limit: int = 40
) -> tuple[TestCase, TestCase]:
    """Two offspring: the head of one parent followed by the tail of the other, and vice versa.

    Both parents are cut at the same relative point alpha (EvoSuite's relative single-point
    crossover, as the whole-suite GA here cuts suites). A tail statement that refers to a
    statement of its parent's head is pointed at a statement of the same type in the new head
    (the same class constructed, a value of the same Python type, a collection of the same
    kind), chosen at random, so that calls meet the objects the head built; with no such
    statement the referred one is copied along, with what it refers to in turn. Offspring are
    cut to ``limit`` statements (references only point backwards, so that stays valid).

    >>> a = (Statement("value", value=1), Statement("call", "f", (("x", 0),)))
    >>> b = (Statement("value", value=7), Statement("call", "g", (("y", 0),)))
    >>> child = crossover(a, b, random.Random(5))[0]  # cut after one statement
    >>> [(s.kind, s.name or s.value, s.args) for s in child]  # g now takes a's value
    [('value', 1, ()), ('call', 'g', (('y', 0),))]
    """
    alpha = rng.random()
    cut_first, cut_second = round(alpha * len(first)), round(alpha * len(second))
    children = (
        _splice(first[:cut_first], second, cut_second, rng),
        _splice(second[:cut_second], first, cut_first, rng),
    )
    return drop_unused_values(children[0][:limit]), drop_unused_values(children[1][:limit])


def _splice(head: TestCase, donor: TestCase, cut: int, rng: random.Random) -> TestCase:
    """``head`` + ``donor[cut:]``, the tail's references moved into the new test."""
    out = list(head)
    placed: dict[int, int] = {}

    def place(index: int) -> int:
        if index in placed:
            return placed[index]
        statement = donor[index]
        if index < cut:
            compatible = [i for i, s in enumerate(head) if _same_type(s, statement)]
            if compatible:
                placed[index] = compatible[int(rng.random() * len(compatible))]
                return placed[index]
        args = tuple((name, place(ref)) for name, ref in statement.args)
        receiver = place(statement.receiver) if statement.receiver >= 0 else -1
        out.append(Statement(statement.kind, statement.name, args, statement.value, receiver))
        placed[index] = len(out) - 1
        return placed[index]

    for index in range(cut, len(donor)):
        place(index)
    return tuple(out)


def _same_type(candidate: Statement, wanted: Statement) -> bool:
    """Whether ``candidate`` builds a value of the type ``wanted`` builds (when that is known)."""
    kind = wanted.kind
    if candidate.kind != kind:
        return False
    if kind == "construct":
        return candidate.name == wanted.name
    if kind == "enum":
        return candidate.name.rpartition(".")[0] == wanted.name.rpartition(".")[0]
    if kind == "value":
        return type(candidate.value) is type(wanted.value)
    return kind in ("list", "tuple", "set", "dict")
