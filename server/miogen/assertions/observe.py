"""Regression observations from clean re-runs: only what two runs agree on becomes an assertion."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from miogen.assertions.observation import Observation, literal
from miogen.execution.executor import Execution, Executor
from miogen.testcase.model import CALLS, TestCase

MAX_ATTRIBUTES = 3
BUILTIN_MODULES = ("builtins",)


@dataclass(frozen=True)
class Observed:
    """A test as executed (truncated at a raising statement) and what both runs agreed on."""

    test: TestCase
    observations: list[Observation]
    stable: bool  # both runs ended alike: the same statement raised the same type, or none did


def observe(
    executor: Executor,
    test: TestCase,
    module_name: str,
    vary: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> Observed:
    """Run ``test`` twice without tracing; keep observations that are equal in both runs.

    The second run happens in ``vary()``'s world (another argv, say): what differs between the
    runs gets no assertion; a test whose runs end differently is unstable: whatever it
    asserts, it would pass or fail by chance.
    """
    first = executor.run(test, trace=False)
    with vary():
        second = executor.run(first.test, trace=False)
    if first.timed_out or second.timed_out:
        return Observed(first.test, [], stable=False)
    stable = _ending(first) == _ending(second)
    observed_first = observations_of(first, module_name)
    observed_second = set(observations_of(second, module_name))
    return Observed(first.test, [o for o in observed_first if o in observed_second], stable)


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
    if kind.__module__ == module_name:
        return Observation(index, "isinstance", kind.__name__, kind.__name__)
    if kind.__module__ == "builtins" and kind.__name__.isidentifier():
        return Observation(index, "isinstance", kind.__name__)
    return None


def _state(index: int, value: object) -> list[Observation]:
    """Public attributes (with a literal form) of an object, as the test leaves it."""
    try:
        attributes = vars(value)
    except TypeError:
        return []
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
