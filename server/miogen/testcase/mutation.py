"""Mutation of test cases: change values, replace an argument, insert a call, delete a statement."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from miogen.analysis import unicodeprops
from miogen.analysis.measures import Measures
from miogen.analysis.typespec import ANY, PRIMITIVES, TypeSpec
from miogen.testcase import indexedits, measured, stdlib_values, strings, tokens
from miogen.testcase.callables import (
    ANY_ARITY,
    CATALOGUE,
    choices,
    fitting,
    function_fits,
    origin,
)
from miogen.testcase.model import CALLS, Statement, TestCase, drop_unused_values, remove_statements
from miogen.testcase.sampling import TestFactory, random_character

Builder = Callable[[list[Statement]], int | None]
# A unit with an index parameter into a string parameter (testcase.indexedits): the weight of
# an edit of that string near the index, beside the operators' 1 in all.
INDEX_EDIT_WEIGHT = 0.25
CHARACTER_PROBABILITY = 0.3  # an inserted character is one the module's ``ord(...)`` looks for
MAX_RESHAPED_ELEMENTS = 100  # a list stretched to a length the module compares with
# A string's change is a token step (testcase.tokens) this often, where the module splits
# strings on separators (it reads tokens), the pool has tokens and the string is several (a
# third as often for one token: an identifier, a word, a number, which character steps suit)
TOKEN_PROBABILITY = 0.4


def mutate(factory: TestFactory, test: TestCase, rng: random.Random) -> TestCase:
    """A mutated copy of ``test``, never larger than the size bound."""
    operators = [
        (_change_value, 0.5),
        (_replace_argument, 0.15),
        (_insert_call, 0.2),
        (_delete, 0.15),
    ]
    if _indexes_strings(factory):
        operators.append((_edit_near_index, INDEX_EDIT_WEIGHT))
    for _ in range(4):  # an operator may not apply (nothing to delete): try another
        operator = rng.choices([o for o, _ in operators], [w for _, w in operators])[0]
        mutated = operator(factory, test, rng)
        if mutated is not None and mutated != test:
            mutated = drop_unused_values(mutated)
            return mutated[: factory.config.max_statements]
    return factory.sample(rng) if not test else test


def splice(test: TestCase, at: int, build: Builder) -> tuple[TestCase, int | None, int]:
    """Insert what ``build`` appends to the prefix before position ``at``; renumber the rest."""
    prefix = list(test[:at])
    built = build(prefix)
    added = len(prefix) - at
    mapping = {i: i for i in range(at)} | {i: i + added for i in range(at, len(test))}
    suffix = [s.renumbered(mapping) for s in test[at:]]
    return tuple(prefix + suffix), built, added


def _change_value(factory: TestFactory, test: TestCase, rng: random.Random) -> TestCase | None:
    candidates = [
        i
        for i, s in enumerate(test)
        if s.kind in ("value", "enum", "list", "set", "dict", "callable")
    ]
    if not candidates:
        return None
    index = rng.choice(candidates)
    statement = test[index]
    if statement.kind == "value" and statement.value is None:
        new = Statement("value", value=_instead_of_none(factory, test, index, rng))
    elif (
        statement.kind == "value"
        and isinstance(statement.value, str | bytes)
        and (shape := _measures_of(factory, test, index)) is not None
        and rng.random() < measured.MEASURED_PROBABILITY  # no draw for an unmeasured one
    ):
        new = Statement("value", value=measured.measured_value(statement.value, shape, rng))
    elif statement.kind == "value":
        new = Statement("value", value=change_primitive(factory, statement.value, rng))
    elif statement.kind == "enum":
        cls_name = statement.name.rpartition(".")[0]
        members = factory.model.classes[cls_name].enum_members
        new = Statement("enum", f"{cls_name}.{rng.choice(members)}", value=statement.value)
    elif statement.kind == "callable":
        new = _change_callable(factory, statement, rng, _declared_type(factory, test, index))
    else:
        new = _change_collection(statement, rng, factory.shapes.lengths)
    return test[:index] + (new,) + test[index + 1 :]


def _change_collection(
    statement: Statement, rng: random.Random, lengths: tuple[int, ...] = ()
) -> Statement:
    """An element deleted or duplicated; a list, now and then, repeated up to a
    length the module compares with, or doubled."""
    args = list(statement.args)
    step = 2 if statement.kind == "dict" else 1
    if args and lengths and statement.kind == "list" and rng.random() < 0.25:
        target = rng.choice([n for n in lengths if n <= MAX_RESHAPED_ELEMENTS] or [2 * len(args)])
        if rng.random() < 0.3:
            target = 2 * len(args)
        args = (args * (target // len(args) + 1))[: min(target, MAX_RESHAPED_ELEMENTS)]
    elif args and rng.random() < 0.5:
        start = rng.randrange(0, len(args), step)
        del args[start : start + step]
    elif args:
        start = rng.randrange(0, len(args), step)
        args[start:start] = args[start : start + step]  # duplicate an element
    return Statement(
        statement.kind, statement.name, tuple(args), statement.value, statement.receiver
    )


def _instead_of_none(
    factory: TestFactory, test: TestCase, index: int, rng: random.Random
) -> object:
    """A value for a ``None`` of the parameter's declared type: ``Optional[int]`` gets an int,
    never a string (``Store(maxsize="sxdIywkc#")``); an untyped one any primitive."""
    spec = _declared_type(factory, test, index)
    if spec == ANY:
        return change_primitive(factory, None, rng)
    members = spec.args if spec.kind == "union" else (spec,)
    kinds = [m.kind for m in members if m.kind in PRIMITIVES and m.kind != "none"]
    return factory.primitive(rng.choice(kinds), rng) if kinds else None


def _declared_type(factory: TestFactory, test: TestCase, index: int) -> TypeSpec:
    """The type of the parameter the value at ``index`` is first passed to (ANY if none)."""
    for statement in test[index + 1 :]:
        name = next((n for n, i in statement.args if i == index), None)
        if name is None:
            continue
        signature = factory.signature(statement) if statement.kind in CALLS else None
        if signature is None:
            return ANY
        return next((p.type for p in signature.params if p.name == name), ANY)
    return ANY


def _measures_of(factory: TestFactory, test: TestCase, index: int) -> Measures | None:
    """What the function the value at ``index`` is first passed to measures of that
    parameter (analysis.measures), if anything."""
    for statement in test[index + 1 :]:
        name = next((n for n, i in statement.args if i == index), None)
        if name is None:
            continue
        signature = factory.signature(statement) if statement.kind in CALLS else None
        return factory.measured_shape(signature, name) if signature is not None else None
    return None


def change_primitive(factory: TestFactory, value: object, rng: random.Random) -> object:
    pool = factory.pool
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        if rng.random() < 0.1 and pool.ints:
            return rng.choice(pool.ints)
        return value + rng.choice((-1, 1)) * 2 ** rng.randint(0, 10)
    if isinstance(value, float):
        if not math.isfinite(value):  # nan and inf: no neighbours, and round() would raise
            return factory.primitive("float", rng)
        roll = rng.random()
        if roll < 0.1 and (pool.floats or pool.ints):
            return float(rng.choice(pool.floats or pool.ints))
        if roll < 0.2:
            return float(round(value))
        return value + rng.choice((-1, 1)) * 2.0 ** rng.randint(-8, 10)
    if isinstance(value, str):
        roll = rng.random()
        if roll < 0.05 and factory.regex_strings:  # one the unit's patterns match
            return rng.choice(factory.regex_strings)
        if roll < 0.1 and pool.strings:
            return rng.choice(pool.strings)
        if roll < 0.35:
            return strings.affix_or_length(value, rng, pool, factory.shapes)
        if roll < 0.35 + TOKEN_PROBABILITY:
            found = factory.token_pool()
            several = len(tokens.tokenize(value, found.separators)) > 1
            if found.separators and (several or roll < 0.35 + TOKEN_PROBABILITY / 3):
                return tokens.mutate_tokens(value, rng, found)
        return _edit_string(value, rng, factory.shapes.characters)
    if isinstance(value, bytes):
        text, roll = value.decode("latin-1"), rng.random()
        if roll < 0.1 and pool.bytes_:
            return rng.choice(pool.bytes_)
        if roll < 0.35:
            text = strings.affix_or_length(text, rng, pool, factory.shapes)
        else:
            text = _edit_string(text, rng)
        return text.encode("latin-1", "replace")
    if value is None:
        return factory.primitive(rng.choice(("int", "str", "float", "bool")), rng)
    if stdlib_values.is_stdlib_value(value):
        return stdlib_values.mutate(value, rng, pool)
    return value


def _change_callable(
    factory: TestFactory, statement: Statement, rng: random.Random, spec: TypeSpec = ANY
) -> Statement:
    """Another function of the same kind: a catalogue text of the same arity, or a module one;
    of those, one that the parameter's callable type (in ``spec``) takes, when it says one."""
    members = spec.args if spec.kind == "union" else (spec,)
    wanted = next((m for m in members if m.kind == "callable"), None)
    options = [
        name
        for name, function in factory.model.functions.items()
        if not name.startswith("_") and (wanted is None or function_fits(function, wanted))
    ]
    # A module function when the catalogue has none a type checker accepts there.
    if statement.value == "module" or (wanted is not None and options and not fitting(wanted)):
        return Statement("callable", rng.choice(options or [statement.name]), value="module")
    if wanted is not None:
        group = choices(wanted)
    else:
        group = next((g for g in CATALOGUE.values() if statement.name in g), ANY_ARITY)
    text = rng.choice(group)
    return Statement("callable", text, value=origin(text))


def _edit_string(text: str, rng: random.Random, characters: str = "") -> str:
    """One character inserted (now and then one of the ``characters`` the module looks for),
    deleted or shifted."""
    position = rng.randint(0, len(text))
    roll = rng.random()
    if roll < 0.34 or not text:
        inserted = random_character(rng)
        if characters and rng.random() < CHARACTER_PROBABILITY:
            inserted = rng.choice(characters)
        return text[:position] + inserted + text[position:]
    position = min(position, len(text) - 1)
    if roll < 0.67:
        return text[:position] + text[position + 1 :]
    shifted = chr(max(32, min(126, ord(text[position]) + rng.choice((-1, 1)))))
    return text[:position] + shifted + text[position + 1 :]


def _indexes_strings(factory: TestFactory) -> bool:
    """Whether one of the unit's callables has an (index, sequence) parameter pair that may be
    (int, str): their annotations say so, or nothing."""
    if not factory.index_pairs:
        return False
    for signature in factory.unit_calls():
        kinds = {p.name.lstrip("/"): _kinds(p.type) for p in signature.params}
        for index, sequence in factory.index_pairs.get(signature.line, ()):
            may_index = kinds.get(index, set()) & {"int", "any"}
            if may_index and kinds.get(sequence, set()) & {"str", "any"}:
                return True
    return False


def _kinds(spec: TypeSpec) -> set[str]:
    """The kinds of ``spec``, or of its members."""
    return {a.kind for a in spec.args} if spec.kind == "union" else {spec.kind}


def _edit_near_index(factory: TestFactory, test: TestCase, rng: random.Random) -> TestCase | None:
    def pairs_of(statement: Statement) -> indexedits.Pairs:
        if statement.kind not in CALLS:
            return ()
        return indexedits.signature_pairs(factory.signature(statement), factory.index_pairs)

    groups = unicodeprops.line_groups(factory.model.source, factory.model.path)
    own = indexedits.unit_characters(groups, factory.unit.contains)
    return indexedits.edit_near_index(
        test, pairs_of, rng, own or factory.shapes.characters, random_character
    )


def _replace_argument(factory: TestFactory, test: TestCase, rng: random.Random) -> TestCase | None:
    signatures = {i: factory.signature(s) for i, s in enumerate(test) if s.kind in CALLS}
    calls = [i for i, signature in signatures.items() if signature and signature.params]
    if not calls:
        return None
    index = rng.choice(calls)
    signature = signatures[index]
    assert signature is not None
    param = rng.choice(signature.params)
    spec: TypeSpec = param.type if param.type is not None else ANY

    def build(prefix: list[Statement]) -> int | None:
        return factory.value(prefix, spec, rng, depth=1, param=param)

    spliced, built, added = splice(test, index, build)
    call = spliced[index + added]
    args = _without(call.args, param.name, rng)
    order = [p.name for p in signature.params]
    if built is None:
        return None
    args.append((param.name, built))
    args.sort(key=lambda pair: order.index(pair[0]))
    new_call = Statement(call.kind, call.name, tuple(args), call.value, call.receiver)
    return spliced[: index + added] + (new_call,) + spliced[index + added + 1 :]


def _without(
    args: tuple[tuple[str, int], ...], name: str, rng: random.Random
) -> list[tuple[str, int]]:
    """The arguments without the one for ``name``; for ``*items`` one element goes, or none
    (the new value is then one element more)."""
    if not name.startswith("*"):
        return [(n, i) for n, i in args if n != name]
    elements = [position for position, (n, _) in enumerate(args) if n == name]
    dropped = rng.choice(elements) if elements and rng.random() < 0.5 else -1
    return [pair for position, pair in enumerate(args) if position != dropped]


def _insert_call(factory: TestFactory, test: TestCase, rng: random.Random) -> TestCase | None:
    if len(test) >= factory.config.max_statements:
        return None
    calls = [i for i, s in enumerate(test) if s.kind in CALLS]
    at = rng.randint(calls[0] + 1 if calls else 0, len(test)) if calls else len(test)
    spliced, built, _ = splice(test, at, lambda prefix: factory.append_call(prefix, rng))
    return spliced if built is not None else None


def _delete(factory: TestFactory, test: TestCase, rng: random.Random) -> TestCase | None:
    calls = [i for i, s in enumerate(test) if s.kind in CALLS]
    if len(calls) <= 1:
        return None
    index = rng.choice(calls)
    users = [j for j, s in enumerate(test) if index in s.references()]
    if users:
        same = [
            j
            for j in range(index)
            if test[j].kind == test[index].kind and test[j].name == test[index].name
        ]
        if not same:
            return None
        replacement = rng.choice(same)
        mapping = {i: i for i in range(len(test))} | {index: replacement}
        test = tuple(s.renumbered(mapping) if j > index else s for j, s in enumerate(test))
    return remove_statements(test, {index})
