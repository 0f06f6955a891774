"""Regression observations from clean re-runs: only what two runs agree on becomes an assertion."""

from __future__ import annotations

import enum
import math
import sys

from miogen.emit.render import Observation, literal
from miogen.execution.executor import Execution, Executor
from miogen.testcase.model import CALLS, TestCase, has_value

MAX_ATTRIBUTES = 3
BUILTIN_MODULES = ("builtins",)


def observe(
    executor: Executor, test: TestCase, module_name: str
) -> tuple[TestCase, list[Observation]]:
    """Run ``test`` twice without tracing; keep observations that are equal in both runs.

    Returns the test as executed (truncated at a raising statement) and its observations.
    A test whose outcome differs between the runs gets no assertion for what differed.
    """
    first = executor.run(test, trace=False)
    second = executor.run(first.test, trace=False)
    if first.timed_out or second.timed_out:
        return first.test, []
    observed_first = observations_of(first, module_name)
    observed_second = set(observations_of(second, module_name))
    return first.test, [o for o in observed_first if o in observed_second]


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
    index, type_name, _ = execution.exception
    if execution.exception_module in BUILTIN_MODULES or execution.exception_module == module_name:
        expression = type_name
    else:
        expression = "Exception"
    detail = execution.exception_module if execution.exception_module == module_name else ""
    return Observation(index, "raises", expression, detail)


def _value(index: int, value: object, module_name: str) -> Observation | None:
    if value is None:
        return Observation(index, "is_none")
    if isinstance(value, enum.Enum) and type(value).__module__ == module_name:
        return Observation(
            index, "equals", f"{type(value).__name__}.{value.name}", type(value).__name__
        )
    if isinstance(value, float):
        if math.isnan(value):
            return Observation(index, "nan")
        if math.isinf(value):
            return Observation(index, "equals", literal(value) or "")
        return Observation(index, "approx", repr(value))
    text = literal(value)
    if text is None or "nan" in text:  # no literal form; a container with nan never equals itself
        return None
    return Observation(index, "equals", text)


def _type_of(index: int, value: object, module_name: str) -> Observation | None:
    """At least the type, for values with no literal form (from the module or builtins only)."""
    kind = type(value)
    if kind.__module__ == module_name and _importable(kind, module_name):
        return Observation(index, "isinstance", kind.__name__, kind.__name__)
    if _exposed(kind, module_name):  # a class of the package the module imports: from there
        return Observation(index, "isinstance", kind.__name__, f"{kind.__module__}:{kind.__name__}")
    if kind.__module__ == "builtins" and kind.__name__.isidentifier():
        return Observation(index, "isinstance", kind.__name__)
    return None


def _importable(kind: type, module_name: str) -> bool:
    """A class the test can import from the module by its name; not one made at run time
    (``namedtuple("Row", fields)`` inside a function says it is the module's too)."""
    module = sys.modules.get(module_name)
    return module is None or isinstance(getattr(module, kind.__name__, None), type)


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
    found = []
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
