"""Random test cases for one unit, built from type hints first, then the constant pool, then a mix."""

from __future__ import annotations

import math
import random
import string
from dataclasses import dataclass, replace

from miogen.analysis import indexes, measures, regexes, together, unicodeprops
from miogen.analysis.formats import format_parameters
from miogen.analysis.model import (
    ClassModel,
    ConstantPool,
    ModuleModel,
    Parameter,
    Signature,
    Unit,
)
from miogen.analysis.numeric_uses import numeric_uses, whole_number_uses
from miogen.analysis.typespec import ANY, TypeSpec
from miogen.testcase import (
    callables,
    formats,
    indexing,
    measured,
    propertytext,
    reuse,
    stdlib_values,
    strings,
    tokens,
)  # fmt: skip
from miogen.testcase.model import Statement, TestCase

PRINTABLE = string.ascii_letters + string.digits + " _-.,:/@#"
# Text beyond ASCII, one character per width of its code point (Latin-1, two BMP widths,
# astral): real code escapes, encodes or measures such characters on paths ASCII never takes.
# Then one of each class text code tells apart: a combining mark (not in NFC after a letter,
# category M), a right-to-left letter (bidirectional R), an invisible format character (Cf).
WIDE_CHARACTERS = "é\u03a9\u2605\U0001f6d1\u0301\u05d0\u200b"
WIDE_PROBABILITY = 0.1  # a sampled string, or an inserted character, is one of them
# A sampled test, now and then, passes a value of another type to one parameter whose type the
# body checks, in a call under test: at most one per test, since the call raises and the test
# ends there (per parameter, tests of a class that checks every argument never got past a few
# calls: configparser's RawConfigParser fell from 118 to 21 covered branches).
OTHER_TYPE_PROBABILITY = 0.2
ANY_CHOICES = ("int", "str", "float", "bool", "none", "list")
CONSTRUCTOR_WEIGHT = 3.0  # against 1 for each factory of the class
CONSUME_PROBABILITY = 0.9  # a generator's result is iterated
MODULE_FUNCTION_PROBABILITY = 0.3  # a callable parameter gets one of the module's functions
# A call of a function whose @overload stubs each require some keyword-only parameters passes
# one stub's set (the rest: any, which mostly raises, on purpose, and type-checks nowhere).
STUB_KEYWORDS_PROBABILITY = 0.9
# A sampled string or bytes value takes a length the module's conditions compare with, or gets
# a character they look for (strings.shapes_of), where they name any.
SHAPED_PROBABILITY = 0.15
# A sampled string is one that a pattern the unit's code uses matches (analysis.regexes): past
# ``if not re.fullmatch(VERSION, s): raise`` random text never gets.
REGEX_PROBABILITY = 0.25
# A sampled string is made of characters with the Unicode properties the module compares
# (analysis.unicodeprops, testcase.propertytext); those characters are also inserted as the
# ones ``ord(...)`` is compared with are (strings.Shapes).
PROPERTY_PROBABILITY = 0.2
# An int of the constant pool beyond this (either sign) sets a scale that ``_random_int`` rarely
# draws at (it draws densely within +-1000, then over +-2**31): the unit's arithmetic on inputs
# of that scale (a year's ``y // 100``, ``% 19``; a 32-bit mask) goes untried but for the
# pool's few values beside the literal. Of the pool's draws, SCALED_PROBABILITY are then a
# value of the same scale as one of them (``scaled_int``); a pool without one draws as before.
SCALE_FLOOR = 1000
SCALED_PROBABILITY = 0.5
_STATEMENT_KINDS = {"property": "property", "operator": "operator", "setter": "assign"}
_ARGUED = frozenset({"construct", "call", "method"})  # statements that pass their arguments


@dataclass(frozen=True)
class SamplingConfig:
    max_statements: int = 40  # the size bound of a test
    max_calls: int = 6  # calls in a freshly sampled test
    max_depth: int = 3  # nesting of constructors built for arguments
    pool_probability: float = 0.35  # take a literal from the module's constant pool
    reuse_probability: float = 0.5  # pass an existing variable of the right class
    omit_default_probability: float = 0.3
    max_collection: int = 4


class TestFactory:
    """Builds statements for the unit's callables; shared by sampling and mutation.

    Objects come from an *object pool*: any earlier statement whose result has the wanted
    class (a construction, a factory such as ``Money.from_units``, a call or an operator
    that returns one) may be passed again; new ones are built by one of the class's
    *producers* (its constructor, its class and static methods that return it, module
    functions that return it).
    """

    __test__ = False  # not a pytest test class

    def __init__(self, model: ModuleModel, unit: Unit, config: SamplingConfig = SamplingConfig()):
        self.model = model
        self.unit = unit
        self.config = config
        self._other_type_left = False  # see OTHER_TYPE_PROBABILITY
        self.pool = model.constants
        self.large_ints = tuple(n for n in self.pool.ints if abs(n) > SCALE_FLOOR)
        self.shapes = strings.shapes_of(model.source)
        self.sought = self.shapes.characters  # the code points ``ord(...)`` is compared with
        self.index_pairs = indexes.pairs_of(model.source)
        self.measures = measures.shapes_of(model.source)  # per function, what it measures
        self.format_parameters = format_parameters(model.source)
        # per function, its untyped parameters the body uses as numbers, and as whole numbers
        # (floored, an index, a range bound): the readable pass
        self.numeric_uses = numeric_uses(model.source)
        self.whole_number_uses = whole_number_uses(model.source)
        self.partners = together.pairs_of(model.source)  # for sibling values (reuse)
        self.property_characters = unicodeprops.characters_of(model.source, model.path)
        self.property_groups = unicodeprops.groups_of(model.source, model.path)
        if self.property_characters:
            own = self.shapes.characters
            added = "".join(c for c in self.property_characters if c not in own)
            self.shapes = replace(self.shapes, characters=own + added)
            self.property_groups += (self.shapes.characters,)
        self.regex_strings = unit_regex_strings(model.source, unit)
        self.cls: ClassModel | None = model.classes.get(unit.name) if unit.kind == "class" else None
        self.producers = {name: _producers(model, name) for name in model.classes}
        self._tokens: tuple[ConstantPool, tokens.TokenPool] | None = None
        self._unit_calls: tuple[Signature, ...] | None = None  # see unit_calls

    def token_pool(self) -> tokens.TokenPool:
        """The tokens of the unit's pool (with the project's test values) and its regex strings,
        for the token steps of string mutation: built once per pool (``prepare`` replaces the
        pool once), not per step, where hashing the pool's strings for ``tokens.token_pool``'s
        cache cost as much as the step."""
        cached = self._tokens
        if cached is None or cached[0] is not self.pool:
            pool = self.pool
            separators = tokens.separators_of(self.model.source)
            found = tokens.token_pool(pool.strings + self.regex_strings, pool.ints, separators)
            cached = self._tokens = (pool, found)
        return cached[1]

    # -- callables ---------------------------------------------------------------------------
    def signature(self, statement: Statement) -> Signature | None:
        """The signature a call statement was made for (None for literals and collections)."""
        kind, name = statement.kind, statement.name
        if kind == "construct":
            cls = self.model.classes.get(name)
            return cls.constructor if cls else None
        if kind == "call":
            if name in self.model.functions:
                return self.model.functions[name]
            owner, _, method = name.partition(".")
            cls = self.model.classes.get(owner)
            return next((m for m in cls.methods if m.name == method), None) if cls else None
        if self.cls is None:
            return None
        if kind in ("method", "property"):
            return next((m for m in self.cls.methods if m.name == name), None)
        if kind in ("operator", "assign"):
            wanted = "operator" if kind == "operator" else "setter"
            return next((m for m in self.cls.special if (m.name, m.kind) == (name, wanted)), None)
        return None

    def complete(self, test: TestCase) -> bool:
        """Whether each call of ``test`` passes every parameter without a default, as sampling
        and the shrinker (which leaves out only arguments with defaults) must: such a call
        raises Python's TypeError before the code runs, and no type checker takes it."""
        for statement in test:
            signature = self.signature(statement) if statement.kind in _ARGUED else None
            if signature is None:
                continue
            given = {name for name, _ in statement.args}
            for parameter in signature.params:
                if parameter.name[:1] != "*" and not parameter.has_default:
                    if parameter.name not in given:
                        return False
        return True

    def unit_calls(self) -> tuple[Signature, ...]:
        """The unit's callables, less those that must be given what cannot be built (a
        parameter without a default annotated ``ast.Name``, ``type[X]``: analysis.opaque).

        Found on the first call and kept: sampling and mutation ask on every appended call, and
        the answer cannot change. The model's signatures are fixed once the factory has them
        (``__init__`` completes the model; ``ModuleModel`` computes its completion once, and
        nothing writes its dictionaries after), ``Signature`` and ``ClassModel`` are frozen,
        and ``model``, ``unit`` and ``cls`` are set only in ``__init__``."""
        calls = self._unit_calls
        if calls is None:
            if self.cls is None:
                found = [self.model.functions[self.unit.name]]
            else:
                found = [*self.cls.methods, *self.cls.special]
            calls = self._unit_calls = tuple(
                s for s in found if not any(p.opaque and not p.has_default for p in s.params)
            )
        return calls

    def callable_names(self) -> set[str]:
        """The module's classes and functions a test of the unit may call by name: the unit,
        the producers of the classes its parameters ask for (transitively, through their own
        parameters), and the module functions a callable parameter may be given."""
        names = {self.unit.name}
        pending = list(self.unit_calls())
        seen: set[str] = set()
        while pending:
            for spec in _class_and_callable_types([p.type for p in pending.pop().params]):
                if spec.kind == "callable":
                    names |= {name for name in self.model.functions if not name.startswith("_")}
                elif spec.name not in seen and spec.name in self.producers:
                    seen.add(spec.name)
                    for call, producer in self.producers[spec.name]:
                        names.add(call.partition(".")[0])
                        pending.append(producer)
        return names

    def produces(self, statement: Statement) -> str | None:
        """The class of the object a statement makes, when it is known statically."""
        if statement.kind == "construct":
            return statement.name
        if statement.kind == "enum":
            return statement.name.rpartition(".")[0]
        if statement.kind in ("call", "method", "operator"):
            signature = self.signature(statement)
            if signature is not None and signature.returns.kind == "class":
                return signature.returns.name
        return None

    # -- sampling ----------------------------------------------------------------------------
    def sample(self, rng: random.Random) -> TestCase:
        statements: list[Statement] = []
        self._other_type_left = rng.random() < OTHER_TYPE_PROBABILITY
        calls = rng.randint(1, self.config.max_calls)
        if self.cls is not None:
            self._instance(statements, self.cls.name, rng, depth=0)
        for _ in range(calls):
            if len(statements) >= self.config.max_statements:
                break
            self.append_call(statements, rng)
        self._other_type_left = False  # not carried into calls that mutation adds to other tests
        return tuple(statements)

    def append_call(self, statements: list[Statement], rng: random.Random) -> int | None:
        """Append a call of one of the unit's callables (building a receiver if needed)."""
        candidates = self.unit_calls()
        if not candidates:
            return None
        signature = rng.choice(candidates)
        if self.cls is None:
            args = self.arguments(statements, signature, rng, depth=0)
            statements.append(Statement("call", signature.name, args))
            return self._consumed(statements, signature, rng)
        if signature.kind in ("static", "classmethod"):
            args = self.arguments(statements, signature, rng, depth=0)
            statements.append(Statement("call", f"{self.cls.name}.{signature.name}", args))
            return self._consumed(statements, signature, rng)
        receivers = [i for i, s in enumerate(statements) if self.produces(s) == self.cls.name]
        if not receivers:
            receiver = self._build(statements, self.cls.name, rng, depth=0)
            if receiver is None:
                return None
            receivers = [receiver]
        receiver = rng.choice(receivers)
        kind = _STATEMENT_KINDS.get(signature.kind, "method")
        args = () if kind == "property" else self.arguments(statements, signature, rng, depth=0)
        statements.append(Statement(kind, signature.name, args, receiver=receiver))
        return self._consumed(statements, signature, rng)

    def _consumed(
        self, statements: list[Statement], signature: Signature, rng: random.Random
    ) -> int:
        """A generator's result is iterated (``list(result)``), or its body never runs."""
        if signature.returns.kind == "iterator" and rng.random() < CONSUME_PROBABILITY:
            statements.append(Statement("operator", "__iter__", receiver=len(statements) - 1))
        return len(statements) - 1

    def construct(
        self, statements: list[Statement], name: str, rng: random.Random, depth: int
    ) -> int | None:
        cls = self.model.classes.get(name)
        if cls is None or cls.constructor is None:
            return None
        args = self.arguments(statements, cls.constructor, rng, depth + 1)
        statements.append(Statement("construct", name, args, value=cls.module or None))
        return len(statements) - 1

    def arguments(
        self, statements: list[Statement], signature: Signature, rng: random.Random, depth: int
    ) -> tuple[tuple[str, int], ...]:
        """Values for the parameters. ``/x`` and ``*items`` go by position, so once a ``/x``
        is left out (it has a default) nothing positional may follow it."""
        args: list[tuple[str, int]] = []
        fresh = len(statements)  # statements from here on are this call's own
        positional_closed = False
        stubbed = frozenset[str]().union(*signature.overload_keywords)
        chosen = None  # the keyword-only parameters of one @overload stub, when drawn
        if stubbed and rng.random() < STUB_KEYWORDS_PROBABILITY:
            chosen = rng.choice(signature.overload_keywords)
        for param in signature.params:
            positional = param.name[:1] in "/*"
            if positional and positional_closed:
                continue
            if param.name.startswith("*"):
                for _ in range(rng.randint(0, 3)):
                    args.append((param.name, self.value(statements, param.type, rng, depth)))
                continue
            if chosen is not None and param.name in stubbed - chosen:
                continue
            if (
                (chosen is None or param.name not in chosen)
                and param.has_default
                and (param.opaque or rng.random() < self.config.omit_default_probability)
            ):
                positional_closed |= positional
                continue
            kinds = self.format_parameters.get(signature.line, ())
            text = formats.for_parameter(kinds, param, rng) if kinds else None
            if text is not None:
                args.append((param.name, self._literal(statements, text)))
                continue
            same = self._sibling(statements, signature, param, args, rng)
            if same is not None:
                args.append((param.name, same))
                continue
            args.append((param.name, self.value(statements, param.type, rng, depth, param)))
        self._measured(statements, signature, args, rng, fresh)
        pairs = self.index_pairs.get(signature.line, ())
        return indexing.point_indexes(statements, tuple(args), pairs, rng, self.sought)

    def measured_shape(self, signature: Signature, name: str) -> measures.Measures | None:
        """What the function of ``signature`` measures its parameter ``name`` against (as the
        signature spells it: ``/x``, ``*items``), if anything (analysis.measures)."""
        return self.measures.get(signature.line, {}).get(name.lstrip("/*"))

    def _measured(
        self,
        statements: list[Statement],
        signature: Signature,
        args: list[tuple[str, int]],
        rng: random.Random,
        fresh: int,
    ) -> None:
        """Now and then a drawn string or bytes argument of a parameter the function measures
        (analysis.measures) becomes one of the measured shape (testcase.measured): in place
        where the literal is the call's own (from ``fresh`` on), else a new one."""
        if signature.line not in self.measures:
            return
        for slot, (name, index) in enumerate(args):
            shape = self.measured_shape(signature, name)
            drawn = statements[index]
            if shape is None or drawn.kind != "value" or not isinstance(drawn.value, str | bytes):
                continue
            if rng.random() < measured.MEASURED_PROBABILITY:
                value = measured.measured_value(drawn.value, shape, rng)
                if index >= fresh:
                    statements[index] = Statement("value", value=value)
                else:
                    args[slot] = (name, self._literal(statements, value))

    def _sibling(
        self,
        statements: list[Statement],
        signature: Signature,
        param: Parameter,
        args: list[tuple[str, int]],
        rng: random.Random,
    ) -> int | None:
        """An earlier argument to pass again for ``param`` (testcase.reuse): only one of a
        parameter the body uses together with it (analysis.together), so that calls of
        functions without such a pair sample as they did without sibling values."""
        partners = self.partners.get(signature.line, {}).get(param.name.lstrip("/*"))
        if not partners:
            return None
        given = [(name, index) for name, index in args if name.lstrip("/*") in partners]
        return reuse.sibling_value(statements, given, param.type, rng) if given else None

    def value(
        self,
        statements: list[Statement],
        spec: TypeSpec,
        rng: random.Random,
        depth: int,
        param: Parameter | None = None,
    ) -> int:
        """Append statements that build a value of ``spec``; return the index of the value."""
        kind = spec.kind
        if self._other_type_left and depth == 0 and param is not None and param.type_checked:
            if rng.random() < 0.5:
                self._other_type_left = False
                return self._anything(statements, rng, depth, None)
        if kind == "union":
            return self.value(statements, rng.choice(spec.args), rng, depth)
        if kind == "any":
            return self._anything(statements, rng, depth, param)
        if kind == "class":
            return self._instance(statements, spec.name, rng, depth)
        if kind == "stdlib":
            return self._literal(statements, stdlib_values.sample(spec.name, rng, self.pool))
        if kind == "callable":
            return self._callable(statements, spec, rng)
        if kind == "classobject" and spec.name in self.model.classes:
            # ``type[RenderType]``: the class itself, imported from where it is defined
            module = self.model.classes[spec.name].module or None
            statements.append(Statement("class", spec.name, value=module))
            return len(statements) - 1
        if kind == "literal":
            return self._literal(statements, rng.choice(spec.values))
        if kind in ("list", "set", "tuple", "dict"):
            return self._collection(statements, spec, rng, depth)
        return self._literal(statements, self.primitive(kind, rng))

    def _anything(
        self, statements: list[Statement], rng: random.Random, depth: int, param: Parameter | None
    ) -> int:
        """A value for an untyped parameter: an object from the pool, or a random plain value."""
        if param is not None and param.has_default and param.default is not None:
            guess = type(param.default).__name__
            if guess in ("int", "float", "str", "bool", "bytes") and rng.random() < 0.7:
                return self.value(statements, TypeSpec(guess), rng, depth)
        existing = [i for i, s in enumerate(statements) if self.produces(s) is not None]
        if existing and rng.random() < 0.2:
            chosen: int = rng.choice(existing)
            return chosen
        choice = rng.choice(ANY_CHOICES)
        inner = (TypeSpec("int"),) if choice == "list" else ()
        return self.value(statements, TypeSpec(choice, inner), rng, depth)

    def _instance(
        self, statements: list[Statement], name: str, rng: random.Random, depth: int
    ) -> int:
        cls = self.model.classes.get(name)
        if cls is None:  # a class of another module that a class imported from it names
            return self._literal(statements, None)  # (pypara's Currency(type: CurrencyType))
        if cls.enum_members:
            member = rng.choice(cls.enum_members)
            statements.append(Statement("enum", f"{name}.{member}", value=cls.module or None))
            return len(statements) - 1
        existing = [i for i, s in enumerate(statements) if self.produces(s) == name]
        if existing and (
            rng.random() < self.config.reuse_probability or depth >= self.config.max_depth
        ):
            reused: int = rng.choice(existing)
            return reused
        if depth < self.config.max_depth:
            built = self._build(statements, name, rng, depth)
            if built is not None:
                return built
        return self._literal(statements, None)

    def _build(
        self, statements: list[Statement], name: str, rng: random.Random, depth: int
    ) -> int | None:
        """A new object of class ``name`` from one of its producers (the constructor mostly)."""
        producers = self.producers.get(name, [])
        if not producers:
            return None
        weights = [CONSTRUCTOR_WEIGHT if p.kind == "constructor" else 1.0 for _, p in producers]
        call, signature = rng.choices(producers, weights)[0]
        if signature.kind == "constructor":
            return self.construct(statements, name, rng, depth)
        args = self.arguments(statements, signature, rng, depth + 1)
        origin = self.model.classes[name].module if "." in call else ""
        statements.append(Statement("call", call, args, value=origin or None))
        return len(statements) - 1

    def _callable(self, statements: list[Statement], spec: TypeSpec, rng: random.Random) -> int:
        """A function for a callable parameter: a builtin, a small lambda, a module function,
        of the parameters and result the annotation says (``callables.choices``)."""
        own = [
            name
            for name, function in self.model.functions.items()
            if not name.startswith("_") and callables.function_fits(function, spec)
        ]
        # A module function when the catalogue has none a type checker accepts there.
        if own and (not callables.fitting(spec) or rng.random() < MODULE_FUNCTION_PROBABILITY):
            statements.append(Statement("callable", rng.choice(own), value="module"))
        else:
            text = rng.choice(callables.choices(spec))
            statements.append(Statement("callable", text, value=callables.origin(text)))
        return len(statements) - 1

    def _collection(
        self, statements: list[Statement], spec: TypeSpec, rng: random.Random, depth: int
    ) -> int:
        kind = spec.kind
        if kind == "tuple" and spec.args and not spec.variadic:
            elements = [self.value(statements, a, rng, depth) for a in spec.args]
            statements.append(Statement("tuple", args=tuple(("", e) for e in elements)))
            return len(statements) - 1
        count = rng.randint(0, self.config.max_collection)
        if kind == "dict":
            key_spec = spec.args[0] if spec.args else TypeSpec("str")
            value_spec = spec.args[1] if len(spec.args) > 1 else ANY
            elements = []
            for _ in range(count):
                elements.append(self.value(statements, key_spec, rng, depth))
                elements.append(self.value(statements, value_spec, rng, depth))
        else:
            element_spec = spec.args[0] if spec.args else ANY
            elements = [self.value(statements, element_spec, rng, depth) for _ in range(count)]
        statements.append(Statement(kind, args=tuple(("", e) for e in elements)))
        return len(statements) - 1

    def _literal(self, statements: list[Statement], value: object) -> int:
        statements.append(Statement("value", value=value))
        return len(statements) - 1

    # -- primitives --------------------------------------------------------------------------
    def primitive(self, kind: str, rng: random.Random) -> object:
        pool = self.pool
        use_pool = rng.random() < self.config.pool_probability
        if kind == "int":
            if use_pool and pool.ints:
                if self.large_ints and rng.random() < SCALED_PROBABILITY:
                    return scaled_int(rng.choice(self.large_ints), rng)
                return rng.choice(pool.ints)
            return _random_int(rng)
        if kind == "float":
            if use_pool and (pool.floats or pool.ints):
                return float(rng.choice(pool.floats or pool.ints))
            return _random_float(rng)
        if kind == "str":
            if self.regex_strings and rng.random() < REGEX_PROBABILITY:
                return rng.choice(self.regex_strings)
            if self.property_characters and rng.random() < PROPERTY_PROBABILITY:
                return propertytext.text(
                    self.shapes.characters, rng, self.property_groups, self.sought
                )
            if use_pool and pool.strings:
                return self.shaped(rng.choice(pool.strings), rng)
            return self.shaped(random_text(rng, rng.randint(0, 8)), rng)
        if kind == "bytes":
            if use_pool and pool.bytes_:
                raw = rng.choice(pool.bytes_)
            else:
                raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 6)))
            return self.shaped(raw.decode("latin-1"), rng, characters=False).encode("latin-1")
        if kind == "bool":
            return rng.random() < 0.5
        if kind == "complex":
            return complex(_random_float(rng), _random_float(rng))
        return None

    def shaped(self, text: str, rng: random.Random, characters: bool = True) -> str:
        """Now and then (``SHAPED_PROBABILITY``) ``text`` at a length the module compares
        with, or with one of the characters it looks for (not for bytes: ``characters``)."""
        shapes = self.shapes
        points = shapes.characters if characters else ""
        if not (shapes.lengths or points) or rng.random() >= SHAPED_PROBABILITY:
            return text
        if shapes.lengths and (not points or rng.random() < 0.5):
            return strings.resize(text, rng.choice(shapes.lengths), rng)
        position = rng.randint(0, len(text))
        return text[:position] + rng.choice(points) + text[position:]


def unit_regex_strings(source: str, unit: Unit) -> tuple[str, ...]:
    """Strings that match the patterns the unit's code (its own lines and its private
    helpers') uses."""
    found = {
        text
        for use in regexes.uses_of(source)
        if unit.contains(use.line)
        for text in regexes.examples_of(use.pattern, use.flags)
    }
    return tuple(sorted(found))


def random_text(rng: random.Random, length: int) -> str:
    """Printable ASCII; now and then one character of the text is a wide one."""
    text = "".join(rng.choice(PRINTABLE) for _ in range(length))
    if text and rng.random() < WIDE_PROBABILITY:
        position = rng.randrange(len(text))
        text = text[:position] + random_character(rng, wide_only=True) + text[position + 1 :]
    return text


def random_character(rng: random.Random, wide_only: bool = False) -> str:
    if wide_only or rng.random() < WIDE_PROBABILITY:
        return rng.choice(WIDE_CHARACTERS)
    return rng.choice(PRINTABLE)


def scaled_int(anchor: int, rng: random.Random) -> int:
    """An int of the scale of ``anchor``: between half and twice it, of its sign.

    >>> rng = random.Random(0)
    >>> all(800 <= scaled_int(1600, rng) <= 3200 for _ in range(100))
    True
    >>> all(-3200 <= scaled_int(-1600, rng) <= -800 for _ in range(100))
    True
    """
    low, high = sorted((anchor // 2, anchor * 2))
    return rng.randint(low, high)


def _random_int(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.5:
        return rng.randint(-10, 10)
    if roll < 0.9:
        return rng.randint(-1000, 1000)
    return rng.randint(-(2**31), 2**31)


def _random_float(rng: random.Random) -> float:
    roll = rng.random()
    if roll < 0.01:  # the values that reach non-convergence and overflow paths
        return rng.choice((math.nan, math.inf, -math.inf))
    if roll < 0.05:
        return rng.choice((0.0, 1.0, -1.0, 0.5))
    if roll < 0.5:
        return round(rng.uniform(-10, 10), 3)
    if roll < 0.9:
        return round(rng.uniform(-1000, 1000), 2)
    return rng.uniform(-1e6, 1e6)


def _producers(model: ModuleModel, name: str) -> list[tuple[str, Signature]]:
    """(call name, signature) of what builds a ``name``: constructor, factories, functions."""
    cls = model.classes[name]
    found: list[tuple[str, Signature]] = []
    if cls.constructor is not None:
        found.append((name, cls.constructor))
    for method in cls.methods:
        if method.kind in ("static", "classmethod") and _returns(method, name):
            found.append((f"{name}.{method.name}", method))
    for function_name, function in model.functions.items():
        if not function_name.startswith("_") and _returns(function, name):
            found.append((function_name, function))
    return found


def _class_and_callable_types(specs: list[TypeSpec]) -> list[TypeSpec]:
    """The ``class`` and ``callable`` types in ``specs``, also inside unions and containers."""
    found, pending = [], list(specs)
    while pending:
        spec = pending.pop()
        if spec.kind in ("class", "callable"):
            found.append(spec)
        else:
            pending.extend(spec.args)
    return found


def _returns(signature: Signature, name: str) -> bool:
    return signature.returns.kind == "class" and signature.returns.name == name
