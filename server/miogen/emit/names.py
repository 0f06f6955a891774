"""Test names that say what is called and what happens: test_push_on_full_stack_raises_overflow_error."""

from __future__ import annotations

import re

from miogen.assertions.observation import Observation
from miogen.emit.render import snake
from miogen.testcase.model import CALLS, TestCase

MAX_LENGTH = 60


def test_name(test: TestCase, observations: list[Observation], taken: set[str]) -> str:
    """A unique, descriptive name; ``taken`` is updated."""
    calls = [(i, s) for i, s in enumerate(test) if s.kind in CALLS]
    if not calls:
        base = "test_values"
    else:
        index, last = calls[-1]
        named = last
        if last.kind == "operator" and last.name == "__iter__":  # list(chunk(...)): chunk's test
            named = test[last.receiver]
        base = f"test_{_callee(named.name, named.kind)}{_outcome(index, observations)}"
    base = base[:MAX_LENGTH].rstrip("_")
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}_{counter}", counter + 1
    taken.add(name)
    return name


def _callee(name: str, kind: str) -> str:
    parts = [snake(p).rstrip("_") for p in name.split(".")]
    text = "_".join(parts)
    return f"{text}_init" if kind == "construct" else text


def _outcome(index: int, observations: list[Observation]) -> str:
    for observation in observations:
        if observation.index != index:
            continue
        if observation.kind == "raises":
            return f"_raises_{snake(observation.value).rstrip('_')}"
        if observation.kind == "is_none":
            return "_returns_none"
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
