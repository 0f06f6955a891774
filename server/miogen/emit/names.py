"""Test names that say what is called, in which situation and what happens:
test_take_with_zero_count_raises_value_error."""

from __future__ import annotations

import re
from collections.abc import Sequence

from miogen.assertions.observation import Observation
from miogen.emit.render import snake
from miogen.testcase.model import CALLS, Statement, TestCase

MAX_LENGTH = 60


def test_name(
    test: TestCase,
    observations: list[Observation],
    taken: set[str],
    parts: Sequence[int] = (),
) -> str:
    """A unique, descriptive name; ``taken`` is updated.

    A test joined from kept tests (``parts``: where each part after the first starts) is named
    after what each part checks, in order, then how the last part ends when it raises: the
    outcome that matters (a joined test ends in its only raise). Earlier parts' calls that do
    not fit in ``MAX_LENGTH`` are dropped, from the first that does not fit on; a callee is
    named once (the last part's at the end, the others where they first appear).
    """
    subjects = [s for s in _subjects(test, parts) if s is not None]
    if not subjects:
        base = "test_values"
    else:
        index, callee = subjects[-1]
        if len(subjects) == 1:
            outcome, situation = _outcome(index, observations), _situation(test, index)
            if len(f"test_{callee}{situation}{outcome}") > MAX_LENGTH:
                situation = ""  # the outcome says more
            ending = f"{callee}{situation}{outcome}"
        else:
            ending = f"{callee}{_raises(index, observations)}"
        earlier = list(dict.fromkeys(c for _, c in subjects[:-1] if c != callee))
        base = _fitted(earlier, ending)
    base = base[:MAX_LENGTH].rstrip("_")
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}_{counter}", counter + 1
    taken.add(name)
    return name


def _subjects(test: TestCase, parts: Sequence[int]) -> list[tuple[int, str] | None]:
    """Each part's last call (its index and callee): what the part is in the test to check."""
    starts = [0, *sorted(p for p in set(parts) if 0 < p < len(test))]
    ends = [*starts[1:], len(test)]
    return [_subject(test, start, end) for start, end in zip(starts, ends, strict=True)]


def _subject(test: TestCase, start: int, end: int) -> tuple[int, str] | None:
    calls = [i for i in range(start, end) if test[i].kind in CALLS]
    if not calls:
        return None
    index = calls[-1]
    named = test[index]
    if named.kind == "operator" and named.name == "__iter__":  # list(chunk(...)): chunk's test
        named = test[named.receiver]
    return index, _callee(named.name, named.kind)


def _situation(test: TestCase, index: int) -> str:
    """What is telling about the call's arguments: the first that is zero, negative, empty or
    None (``_with_empty_name``, ``_with_negative_count``); "" when none is."""
    for name, reference in test[index].args:
        given = test[reference]
        word = _telling(given)
        if word:
            return f"_with_{word}_{snake(name.lstrip('/*')).rstrip('_')}"
    return ""


def _telling(given: Statement) -> str:
    if given.kind in ("list", "tuple", "set", "dict"):
        return "" if given.args else "empty"
    if given.kind != "value":
        return ""
    value = given.value
    if value is None:
        return "no"
    if isinstance(value, bool):
        return ""
    if isinstance(value, int | float):
        return "zero" if value == 0 else "negative" if value < 0 else ""
    if isinstance(value, str | bytes):
        return "" if value else "empty"
    return ""


def _fitted(earlier: list[str], ending: str) -> str:
    """``test_`` and the earlier callees that fit before ``ending``, in order."""
    kept: list[str] = []
    for callee in earlier:
        if len("_".join(["test", *kept, callee, ending])) > MAX_LENGTH:
            break
        kept.append(callee)
    return "_".join(["test", *kept, ending])


def _callee(name: str, kind: str) -> str:
    parts = [snake(p).rstrip("_") for p in name.split(".")]
    text = "_".join(parts)
    return f"{text}_init" if kind == "construct" else text


def _raises(index: int, observations: list[Observation]) -> str:
    for observation in observations:
        if observation.index == index and observation.kind == "raises":
            return f"_raises_{snake(observation.value).rstrip('_')}"
    return ""


def _outcome(index: int, observations: list[Observation]) -> str:
    raises = _raises(index, observations)
    if raises:
        return raises
    for observation in observations:
        if observation.index != index:
            continue
        if observation.kind == "is_none":
            return "_returns_none"
        if observation.kind == "callable":
            return "_returns_a_function"
        if observation.kind in ("equals", "approx"):
            slug = _slug(observation.value)
            if slug:
                return f"_returns_{slug}"
    return ""


def _slug(text: str) -> str:
    text = text.replace("-", "minus_").replace(".", "_")
    words = re.findall(r"[A-Za-z0-9]+", text)
    slug = "_".join(words).lower()
    return slug if 0 < len(slug) <= 24 else ""
