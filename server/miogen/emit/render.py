"""Renders a test case and its observations as a readable pytest function."""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass, field

from miogen.assertions.observation import Observation, literal
from miogen.testcase.model import CALLS, Statement, TestCase


@dataclass
class RenderedTest:
    name: str
    source: str
    imports: set[str] = field(default_factory=set)  # names to import from the module under test
    extra_imports: set[str] = field(default_factory=set)  # full import lines


def snake(name: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    text = re.sub(r"\W+", "_", text).strip("_") or "value"
    if keyword.iskeyword(text) or hasattr(builtins, text):
        text += "_"
    return text


def render_test(
    test: TestCase, observations: list[Observation], name: str, module_classes: set[str]
) -> RenderedTest:
    """Source of one test function. Literals used once are inlined into the call that uses them."""
    uses: dict[int, int] = {}
    for statement in test:
        for ref in statement.references():
            uses[ref] = uses.get(ref, 0) + 1
    by_index: dict[int, list[Observation]] = {}
    for observation in observations:
        by_index.setdefault(observation.index, []).append(observation)
    rendered = RenderedTest(name, "")
    names: dict[int, str] = {}
    taken: set[str] = set()
    lines: list[str] = []
    for index, statement in enumerate(test):
        expression = _expression(statement, names, rendered)
        if statement.kind not in CALLS and uses.get(index, 0) <= 1 and len(expression) <= 60:
            names[index] = expression  # inline
            continue
        observed = by_index.get(index, [])
        raises = next((o for o in observed if o.kind == "raises"), None)
        if raises is not None:
            if raises.detail:
                rendered.imports.add(raises.value)
            lines.append(f"with pytest.raises({raises.value}):")
            lines.append(f"    {expression}")
            rendered.extra_imports.add("import pytest")
            continue
        at_once = [o for o in observed if o.kind != "attribute"]
        needs_name = uses.get(index, 0) > 0 or bool(observed)
        if needs_name and not uses.get(index, 0) and len(observed) == 1 == len(at_once):
            # One check of a value nothing else uses: `assert f(x) == 3`, one statement, when it
            # fits on a line (ruff format would wrap a longer one).
            observation = observed[0]
            inline = _assertion(expression, observation, rendered)
            if len(inline) <= 84:
                if observation.kind in ("equals", "isinstance") and observation.detail:
                    rendered.imports.add(observation.detail)
                lines.append(inline)
                continue
        if needs_name:
            variable = _variable_name(statement, taken)
            names[index] = variable
            lines.append(f"{variable} = {expression}")
            for observation in at_once:
                if observation.kind == "equals" and observation.detail:
                    rendered.imports.add(observation.detail)
                lines.append(_assertion(variable, observation, rendered))
        else:
            lines.append(expression)
    # The state of objects is observed when the test ends, so it is asserted there.
    for observation in observations:
        if observation.kind == "attribute" and observation.index in names:
            lines.append(_assertion(names[observation.index], observation, rendered))
    body = "\n".join(f"    {line}" for line in lines) or "    pass"
    rendered.source = f"def {name}():\n{body}\n"
    rendered.imports |= _module_names(test)
    return rendered


def _module_names(test: TestCase) -> set[str]:
    found = set()
    for statement in test:
        if statement.kind in ("construct", "call", "enum"):
            found.add(statement.name.split(".")[0])
    return found


def _variable_name(statement: Statement, taken: set[str]) -> str:
    if statement.kind == "construct":
        base = snake(statement.name)
    elif statement.kind in ("list", "tuple", "set", "dict"):
        base = f"{statement.kind}_"
    else:
        base = "result"
    candidate, counter = base, 2
    while candidate in taken:
        candidate, counter = (
            f"{base}{counter}" if base.endswith("_") else f"{base}_{counter}",
            counter + 1,
        )
    taken.add(candidate)
    return candidate


def _expression(statement: Statement, names: dict[int, str], rendered: RenderedTest) -> str:
    kind = statement.kind
    if kind == "value":
        text = literal(statement.value)
        if text and "math." in text:
            rendered.extra_imports.add("import math")
        return text if text is not None else repr(statement.value)
    if kind in ("list", "tuple", "set"):
        items = [names[i] for _, i in statement.args]
        if kind == "list":
            return "[" + ", ".join(items) + "]"
        if kind == "tuple":
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "{" + ", ".join(items) + "}" if items else "set()"
    if kind == "dict":
        items = [names[i] for _, i in statement.args]
        return (
            "{"
            + ", ".join(f"{k}: {v}" for k, v in zip(items[::2], items[1::2], strict=False))
            + "}"
        )
    if kind == "enum":
        return statement.name
    if kind == "property":
        return f"{names[statement.receiver]}.{statement.name}"
    arguments = ", ".join(f"{n}={names[i]}" for n, i in statement.args)
    if kind == "method":
        return f"{names[statement.receiver]}.{statement.name}({arguments})"
    return f"{statement.name}({arguments})"


def _assertion(variable: str, observation: Observation, rendered: RenderedTest) -> str:
    if observation.kind == "approx":
        rendered.extra_imports.add("import pytest")
        return f"assert {variable} == pytest.approx({observation.value})"
    if observation.kind == "nan":
        rendered.extra_imports.add("import math")
        return f"assert math.isnan({variable})"
    if observation.kind == "isinstance":
        if observation.detail:
            rendered.imports.add(observation.detail)
        return f"assert isinstance({variable}, {observation.value})"
    if observation.kind == "is_none":
        return f"assert {variable} is None"
    if observation.kind == "attribute":
        return f"assert {variable}.{observation.detail} == {observation.value}"
    if observation.kind == "length":
        return f"assert len({variable}) == {observation.value}"
    if observation.value in ("True", "False"):
        return f"assert {variable} is {observation.value}"
    return f"assert {variable} == {observation.value}"
