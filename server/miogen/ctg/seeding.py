"""Seeds for a unit's job: its stored tests, re-validated statically, and an optional object pool.

Previous-suite seeding (CTG sec. 4.2): the tests of a unit's best suite are replayed into the
MIO archive before the search starts; that is MIO's counterpart of inserting the old suite as
one individual of the first population. The history is a cache, so its tests are checked again
when they are loaded: a test that calls a method that no longer exists, passes a parameter that
is gone or omits one that became required, or names a removed enum member, is dropped here
(statically, from the module's AST: user code never runs in this process). The worker checks
the same rules again (``testcase.validity.still_valid``) against the version it imports.

Input seeding (CTG sec. 3.2), off by default: when a unit A takes a B, the objects that B's
stored tests build serve as A's inputs with probability p <= 0.5; units run in dependency order
so that B's tests of this run exist when A starts. What a JobSpec can carry is seed tests, so the
pool enters A's search as seed tests (random tests of A whose B arguments are replaced by B's
stored constructions), not as a choice the sampler makes for every new test: that needs a hook
in ``testcase.sampling.TestFactory``. Only constructions are taken from B's tests (the
statements that build the object), because the engine replays only calls on the unit itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from miogen.analysis.model import ModuleModel, Signature, Unit
from miogen.analysis.typespec import TypeSpec
from miogen.common.records import TestData
from miogen.minimize.reduce import closure
from miogen.testcase.model import (
    Statement,
    TestCase,
    canonical_key,
    drop_unused_values,
    from_json,
    to_json,
)
from miogen.testcase.sampling import TestFactory
from miogen.testcase.validity import still_valid

MAX_INPUT_SEEDING = 0.5  # the paper's example probability, and the upper bound
POOL_SEEDS = 8  # seed tests built from the pool for one job


def still_valid_seeds(
    model: ModuleModel, unit: Unit, seeds: Iterable[TestData]
) -> tuple[list[TestData], int]:
    """The stored tests (JSON) that still fit the unit's signatures, and how many were dropped."""
    factory = TestFactory(model, unit)
    kept, dropped, seen = [], 0, set()
    for data in seeds:
        test = _decode(data, model)
        if test is None or not still_valid(factory, test):
            dropped += 1
            continue
        key = canonical_key(test)
        if key not in seen:
            seen.add(key)
            kept.append(data)
    return kept, dropped


def _decode(data: TestData, model: ModuleModel) -> TestCase | None:
    """The test, or None when the stored data is malformed (a cache may hold anything)."""
    try:
        test = from_json(data)
    except (TypeError, ValueError):
        return None
    for index, statement in enumerate(test):
        if any(not 0 <= ref < index for ref in statement.references()):
            return None
        if statement.kind == "construct" and statement.name not in model.classes:
            return None
    return test


# --- dependencies between units ---------------------------------------------------------------


def dependencies(model: ModuleModel) -> dict[str, set[str]]:
    """Unit -> the other units of the module it takes as parameters (constructor or calls)."""
    units = {u.name for u in model.units}
    result = {}
    for unit in model.units:
        names: set[str] = set()
        for signature in _signatures(model, unit):
            for param in signature.params:
                names |= _class_names(param.type)
        result[unit.name] = (names & units) - {unit.name}
    return result


def _signatures(model: ModuleModel, unit: Unit) -> list[Signature]:
    if unit.kind == "function":
        return [model.functions[unit.name]] if unit.name in model.functions else []
    cls = model.classes.get(unit.name)
    if cls is None:
        return []
    return ([cls.constructor] if cls.constructor else []) + list(cls.methods)


def _class_names(spec: TypeSpec) -> set[str]:
    names = {spec.name} if spec.kind == "class" else set()
    for arg in spec.args:
        names |= _class_names(arg)
    return names


# --- input seeding from an object pool --------------------------------------------------------


def pool_objects(model: ModuleModel, owner: str, tests: Iterable[TestData]) -> list[TestCase]:
    """The constructions of ``owner`` objects in ``owner``'s stored tests, each a small test."""
    pieces, seen = [], set()
    for data in tests:
        test = _decode(data, model)
        if test is None:
            continue
        for index, statement in enumerate(test):
            if statement.kind == "construct" and statement.name == owner:
                piece = _slice(test, index)
                if canonical_key(piece) not in seen:
                    seen.add(canonical_key(piece))
                    pieces.append(piece)
    return pieces


def _slice(test: TestCase, index: int) -> TestCase:
    """Statement ``index`` and everything it is built from, renumbered; it ends the slice."""
    order = sorted(closure(test, index))
    mapping = {old: new for new, old in enumerate(order)}
    return tuple(test[old].renumbered(mapping) for old in order)


def pool_seeds(
    model: ModuleModel,
    unit: Unit,
    pool: dict[str, list[TestCase]],
    rng: random.Random,
    probability: float,
    count: int = POOL_SEEDS,
) -> list[TestData]:
    """Random tests of ``unit`` whose constructions of pooled classes are, with ``probability``,
    replaced by objects from the pool; only the tests where a replacement happened (JSON)."""
    probability = min(probability, MAX_INPUT_SEEDING)
    if probability <= 0 or not pool:
        return []
    factory = TestFactory(model, unit)
    seeds: list[TestData] = []
    for _ in range(count * 4):
        if len(seeds) >= count:
            break
        test, replaced = factory.sample(rng), False
        for index in reversed(range(len(test))):
            statement = test[index]
            if _poolable(statement, unit, pool) and rng.random() < probability:
                test = _replace(test, index, rng.choice(pool[statement.name]))
                replaced = True
        if replaced:
            seeds.append(to_json(test))
    return seeds


def _poolable(statement: Statement, unit: Unit, pool: dict[str, list[TestCase]]) -> bool:
    return statement.kind == "construct" and statement.name in pool and statement.name != unit.name


def _replace(test: TestCase, index: int, piece: TestCase) -> TestCase:
    """``test`` with statement ``index`` replaced by ``piece`` (whose last statement is the object)."""
    out: list[Statement] = []
    mapping: dict[int, int] = {}
    for position, statement in enumerate(test):
        if position == index:
            base = len(out)
            out.extend(s.renumbered({j: base + j for j in range(len(piece))}) for s in piece)
        else:
            out.append(statement.renumbered(mapping))
        mapping[position] = len(out) - 1
    return drop_unused_values(tuple(out))
