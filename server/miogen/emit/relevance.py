"""Assertions on what a test's calls did, not on what its setup was given.

An object's state is observed when the test ends. An attribute that still holds what the
constructor was given (``Stack(capacity=3)`` ... ``assert stack.capacity == 3``), or the
default of a parameter left out, says nothing about the call under test: repeated in every
test of a class, it only restates the setup. It is left out, unless the constructor is what the
test calls last (then it is what that call did) or it is the test's only assertion.
"""

from __future__ import annotations

from collections.abc import Callable

from miogen.analysis.model import NO_DEFAULT, Signature
from miogen.assertions.observation import Observation, literal
from miogen.testcase.model import CALLS, Statement, TestCase


def changed_state_only(
    test: TestCase,
    observations: list[Observation],
    signature_of: Callable[[Statement], Signature | None],
) -> list[Observation]:
    """``observations`` without attribute checks of state the constructor set and the test's
    later calls left as it was given."""
    calls = [index for index, statement in enumerate(test) if statement.kind in CALLS]
    subject = calls[-1] if calls else -1
    kept = [o for o in observations if not _given(o, test, subject, signature_of)]
    return kept if kept else observations


def _given(
    observation: Observation,
    test: TestCase,
    subject: int,
    signature_of: Callable[[Statement], Signature | None],
) -> bool:
    if observation.kind != "attribute" or observation.index == subject:
        return False
    statement = test[observation.index]
    signature = signature_of(statement) if statement.kind == "construct" else None
    if signature is None:
        return False
    passed = {name.lstrip("/"): index for name, index in statement.args}
    for parameter in signature.params:
        name = parameter.name.lstrip("/*")
        if name != observation.detail:
            continue
        if name in passed:
            given = test[passed[name]]
            return given.kind == "value" and literal(given.value) == observation.value
        if parameter.has_default and parameter.default is not NO_DEFAULT:
            return literal(parameter.default) == observation.value
    return False
