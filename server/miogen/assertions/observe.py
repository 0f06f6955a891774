"""Regression observations from clean re-runs: only what two runs agree on becomes an assertion."""

from __future__ import annotations

import ast
import builtins
import enum
import functools
import math
import os
import re
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace

from miogen.analysis.model import Signature
from miogen.assertions.drawn import TYPE_RUNS, agreed_types, checks_types, typed_in_all
from miogen.assertions.observation import Observation, literal, quoted
from miogen.common.syntax import parse
from miogen.testcase.callables import misfed
from miogen.testcase.calling import off_type
from miogen.testcase.model import CALLS, Statement, TestCase, has_value
from miogen.worker.executor import Execution, Executor

MAX_ATTRIBUTES = 3
EXTRA_RUNS = 4  # a raise with even odds shows in one of six runs but for 1 in 32 tests
BUILTIN_MODULES = ("builtins",)


@dataclass(frozen=True)
class Observed:
    """A test as executed (truncated at a raising statement) and what both runs agreed on."""

    test: TestCase
    observations: list[Observation]
    stable: bool  # both runs ended alike: the same statement raised the same type, or none did
    drew: bool = False  # a statement drew from an unseeded source (the clock, a generator)
    # The statement the runs raised at (None: none raised), and whether a ``raise`` of the
    # project's source made it (executor.Execution.raised_by_project), not CPython or a library.
    raised_at: int | None = None
    raised_by_project: bool = False


def observe(
    executor: Executor,
    test: TestCase,
    module_name: str,
    vary: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> Observed:
    """Run ``test`` twice without tracing; keep observations that are equal in both runs.

    The second run happens in ``vary()``'s world (another argv, say): what differs between the
    runs gets no assertion; a test whose runs end differently is unstable: whatever it
    asserts, it would pass or fail by chance. Runs can agree by chance on what came from an
    unseeded source (a random choice between two items): what a statement drew from one, and
    what it changed, is never stated beyond its type (or the class it raised), and a test that
    drew runs EXTRA_RUNS more times, all of which must end alike; where that would check the
    type of what it drew, up to TYPE_RUNS runs in all must end alike and agree on the type
    (assertions/drawn.py).
    """
    first = executor.run(test, trace=False, watch=True)
    with vary():
        second = executor.run(first.test, trace=False, watch=True)
    runs = [first, second]
    if first.drew or second.drew:  # whether it raises may be chance too: more runs must agree
        runs += [executor.run(first.test, trace=False, watch=True) for _ in range(EXTRA_RUNS)]
    if any(run.timed_out for run in runs):
        return Observed(first.test, [], stable=False)
    drew = frozenset().union(*(run.drew for run in runs))
    drawn = drawn_from_sources(first.test, drew, first.values)
    stable = len({_ending(run) for run in runs}) == 1
    observed_first = observations_of(first, module_name)
    observed_second = set(observations_of(second, module_name))
    # A raise whose message differs between the runs is still a raise: kept without its message.
    second_raises = {replace(o, message=None) for o in observed_second if o.kind == "raises"}
    agreed = []
    for observation in observed_first:
        if observation.index in drawn and observation.kind not in ("isinstance", "raises"):
            continue
        if observation.index in drawn and observation.kind == "raises":
            observation = replace(observation, message=None)
        if observation in observed_second:
            agreed.append(observation)
        elif observation.kind == "raises" and replace(observation, message=None) in second_raises:
            agreed.append(replace(observation, message=None))
    if stable and drawn and checks_types(drawn, agreed, agreed_types(runs, drawn, agreed)):
        # A type the runs agree on may be the draws' chance: more runs, all of which must agree.
        more = [executor.run(first.test, trace=False, watch=True)
                for _ in range(TYPE_RUNS - len(runs))]  # fmt: skip
        runs += more
        if any(run.timed_out for run in more):
            return Observed(first.test, [], stable=False, drew=True)
        stable = len({_ending(run) for run in runs}) == 1
        agreed = typed_in_all(runs, drawn, agreed)
        agreed.sort(key=lambda o: o.index)
    raised_at = first.exception[0] if first.exception is not None else None
    by_project = any(run.raised_by_project for run in runs)
    return Observed(first.test, agreed, stable, bool(drew), raised_at, by_project)


def unmeant_raise(
    observed: Observed, signature_of: Callable[[Statement], Signature | None]
) -> bool:
    """Whether the test ends in a raise the project did not mean: no ``raise`` of its source
    made it (CPython or another library did, a C or standard-library frame) and the raising
    call passes a value of a type the project does not mean for the parameter (its annotation
    or inferred type, testcase.calling.off_type). Such a test checks what the interpreter does
    with a wrong-typed value, which changes between versions (3.11's ``random.seed`` refuses
    an object 3.10 hashed): it is not kept as a raises-test. Wrong types the project's code
    raises on itself, on purpose (``raise TypeError(...)`` after an ``isinstance``), stay.
    So is a raise of a catalogue function given items it cannot take (callables.misfed)."""
    at = observed.raised_at
    if at is None or observed.raised_by_project or not observed.stable:
        return False
    statement = observed.test[at]
    if statement.kind in CALLS and misfed(statement, observed.test):
        return True
    signature = signature_of(statement) if statement.kind in CALLS else None
    return signature is not None and off_type(statement, observed.test, signature)


IMMUTABLE = (int, float, complex, str, bytes, tuple, frozenset, range, type(None), enum.Enum)


def drawn_from_sources(test: TestCase, drew: frozenset[int], values: list[object]) -> set[int]:
    """Statements whose values may hold what an unseeded source gave: those that drew from one,
    those that use their values, and the objects they were given (a method may store it)."""
    drawn: set[int] = set()
    for index, statement in enumerate(test):
        references = statement.references()
        if index in drew or any(reference in drawn for reference in references):
            drawn.add(index)
            drawn.update(r for r in references if not _immutable(values, r))
    return drawn


def _immutable(values: list[object], index: int) -> bool:
    return index < len(values) and isinstance(values[index], IMMUTABLE)


def _ending(execution: Execution) -> tuple[int, str] | None:
    exception = execution.exception
    return (exception[0], exception[1]) if exception is not None else None


def observations_of(execution: Execution, module_name: str) -> list[Observation]:
    """Everything one run showed that could become an assertion."""
    found: list[Observation] = []
    test = execution.test
    for index, statement in enumerate(test):
        if statement.kind not in CALLS:
            continue
        if execution.exception and execution.exception[0] == index:
            found.append(_raises(execution, module_name))
            break
        if index >= len(execution.values):
            break
        if not has_value(statement):  # x.name = v, x[k] = v: only an exception to check
            continue
        value = execution.values[index]
        if statement.kind == "construct":
            found += _state(index, value)
            continue
        observation = _value(index, value, module_name)
        if observation is not None:
            found.append(observation)
        if observation is None or observation.kind == "equals":
            # The type too: it survives when the value itself differs between runs.
            found += [o for o in [_type_of(index, value, module_name)] if o is not None]
    return found


def _raises(execution: Execution, module_name: str) -> Observation:
    assert execution.exception is not None
    index, type_name, message = execution.exception
    value, detail = type_name, ""
    if execution.exception_class is not None:
        value, detail = _importable_base(execution.exception_class, module_name)
    elif execution.exception_module == module_name:
        detail = module_name
    elif execution.exception_module not in BUILTIN_MODULES:
        value = "Exception"
    if type_name in STACK_MESSAGES or not execution.raised_by_project or not message:
        # CPython's words (a wrong type, a missing key) change between versions: the type
        # alone. So for an empty message (a bare ``raise NotImplementedError``, a failed
        # ``assert``): ``match="^$"`` says nothing a reader looks for, and pins what
        # ``assert`` rewriters and ``-O`` change.
        return Observation(index, "raises", value, detail)
    return Observation(index, "raises", value, detail, message=_stable_message(message))


def _importable_base(raised: type[BaseException], module_name: str) -> tuple[str, str]:
    """The exception class, else its nearest base, that a test can import: (name, where from).

    "where from" is "" for builtins, the module under test's name for its own classes, else
    "module:Name" with the shortest module path that exports the class (``json``, not
    ``json.decoder``).
    """
    for kind in raised.__mro__:
        module, name = kind.__module__, kind.__qualname__
        if module in BUILTIN_MODULES:
            return name, ""
        if "." in name or module == "__main__" or module.startswith("miogen."):
            continue
        if module == module_name:  # (a mutant's copy of the module has classes of its own)
            return name, module_name
        exporter = _shortest_exporter(kind, module)
        if exporter is not None:
            return name, f"{exporter}:{name}"
    return "Exception", ""


def _shortest_exporter(kind: type, module: str) -> str | None:
    parts = module.split(".")
    for length in range(1, len(parts) + 1):
        prefix = ".".join(parts[:length])
        if getattr(sys.modules.get(prefix), kind.__qualname__, None) is kind:
            return prefix
    return None


# Messages about where the interpreter stopped ("maximum recursion depth exceeded while calling
# a Python object"), which differs between the worker's instrumented code and the plain module.
STACK_MESSAGES = frozenset({"RecursionError"})
TRUNCATED = "..."  # what the executor appends to a message it cut at MAX_MESSAGE characters
MAX_MESSAGE = 200
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")


def _stable_message(message: str) -> str | None:
    """The message to match, None when it names something that differs from run to run (an
    object's address, the job's scratch folders). A cut message keeps its known part."""
    if len(message) == MAX_MESSAGE + len(TRUNCATED) and message.endswith(TRUNCATED):
        message = message[:MAX_MESSAGE]
    places = {os.getcwd(), os.environ.get("HOME", ""), os.environ.get("TMPDIR", "")} - {""}
    if _ADDRESS.search(message) or any(place in message for place in places):
        return None
    return message


def enum_member(value: enum.Enum) -> str:
    """``Color.RED``; ``WrapModes["GRID"]`` for a member of an enum made by the functional API
    (``WrapModes = Enum("WrapModes", {...})``: no ``class`` statement in its module), whose
    members a type checker cannot see ("has no attribute"); the lookup by name it types."""
    kind = type(value)
    if kind.__name__ in _class_statements(kind.__module__):
        return f"{kind.__name__}.{value.name}"
    return f"{kind.__name__}[{quoted(value.name)}]"


@functools.lru_cache(maxsize=32)
def _class_statements(module_name: str) -> frozenset[str]:
    """The names of the classes a ``class`` statement of the module defines, at any depth;
    every name when its source cannot be read (nothing is changed then)."""
    path = getattr(sys.modules.get(module_name), "__file__", None)
    try:
        with open(str(path), "rb") as handle:
            tree = parse(handle.read(), str(path))
    except (OSError, SyntaxError, ValueError):
        return _EVERY_NAME
    return frozenset(n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef))


class _Every(frozenset[str]):
    def __contains__(self, item: object) -> bool:
        return True


_EVERY_NAME = _Every()


def _value(index: int, value: object, module_name: str) -> Observation | None:
    if value is None:
        return Observation(index, "is_none")
    if isinstance(value, enum.Enum) and type(value).__module__ == module_name:
        return Observation(index, "equals", enum_member(value), type(value).__name__)
    if isinstance(value, float):
        if math.isnan(value):
            return Observation(index, "nan")
        if math.isinf(value):
            return Observation(index, "equals", literal(value) or "")
        return Observation(index, "approx", repr(value))
    text = literal(value)
    if isinstance(value, complex) and text is not None:
        # ``(-377) ** Fraction(1, -4)``: parts as inexact as a float's
        if math.isfinite(value.real) and math.isfinite(value.imag):
            return Observation(index, "approx", text)
    if text is None or "nan" in text:  # no literal form; a container with nan never equals itself
        return None
    if _float_container(value):  # ``== pytest.approx([0.1, 2])``: no exact float equality
        return Observation(index, "approx", text)
    return Observation(index, "equals", text)


def _float_container(value: object) -> bool:
    """A flat list, tuple or dict of numbers with a finite float among them: what
    ``pytest.approx`` compares element by element (not sets, nor nested containers)."""
    if type(value) is dict:
        items = list(value.values())
    elif type(value) in (list, tuple):
        items = list(value)  # type: ignore[call-overload]
    else:
        return False
    numbers = all(type(item) in (int, float) for item in items)
    floats = [item for item in items if type(item) is float]
    return numbers and bool(floats) and all(math.isfinite(item) for item in floats)


def _type_of(index: int, value: object, module_name: str) -> Observation | None:
    """At least the type, for values with no literal form (from the module or builtins only);
    else, for a callable, that it is one."""
    kind = type(value)
    if kind.__module__ == module_name:
        # Only a class the tests can import by that name (not one the module makes at run time,
        # such as a namedtuple built inside a function); checked by name, so that a mutant's
        # copy of the class gives the same observation as the original.
        named = getattr(sys.modules.get(module_name), kind.__name__, None)
        if not isinstance(named, type):
            return None
        return Observation(index, "isinstance", kind.__name__, kind.__name__)
    if _exposed(kind, module_name):  # a class of the package the module imports: from there
        return Observation(index, "isinstance", kind.__name__, f"{kind.__module__}:{kind.__name__}")
    if kind.__module__ == "builtins" and getattr(builtins, kind.__name__, None) is kind:
        return Observation(index, "isinstance", kind.__name__)
    if callable(value):
        # A function a decorator factory returns: its type (``function``) has no builtin name.
        return Observation(index, "callable")
    return None


def _exposed(kind: type, module_name: str) -> bool:
    """A class of the same top-level package that the module under test imports by its name."""
    module = sys.modules.get(module_name)
    same_package = kind.__module__.split(".")[0] == module_name.split(".")[0]
    return same_package and getattr(module, kind.__name__, None) is kind


def _state(index: int, value: object) -> list[Observation]:
    """Public attributes (with a literal form) of an object, as the test leaves it."""
    try:
        attributes = dict(vars(value))
    except TypeError:  # __slots__: the value types built in __new__ show their state in properties
        attributes = _properties(value)
    found: list[Observation] = []
    for name, attribute in list(attributes.items()):
        if name.startswith("_") or len(found) >= MAX_ATTRIBUTES:
            continue
        if isinstance(attribute, float) and not math.isnan(attribute) and not math.isinf(attribute):
            continue  # approx attributes read badly; return values carry floats
        text = literal(attribute)
        if text is not None and "nan" not in text:
            found.append(Observation(index, "attribute", text, name))
    return found


def _properties(value: object) -> dict[str, object]:
    """Public properties of an object that has no ``__dict__``, read without failing."""
    found: dict[str, object] = {}
    for name in dir(type(value)):
        if name.startswith("_") or not isinstance(getattr(type(value), name, None), property):
            continue
        try:
            found[name] = getattr(value, name)
        except Exception:  # noqa: BLE001 - a getter that raises shows nothing
            continue
    return found
