"""Renders a test case and its observations as a readable pytest function."""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass, field

from miogen.assertions.observation import Observation, literal, quoted
from miogen.testcase.model import CALLS, Statement, TestCase

MAX_INLINE = 60  # characters of a literal written into the call that uses it
MATCH_LENGTH = 60  # characters of an exception's message that pytest.raises(match=...) looks for
SINGLETONS = frozenset({"True", "False", "None"})  # compared with ``is``, as linters want
REGEX_SPECIAL = frozenset("\\.^$*+?{}[]|()")
AMBIGUOUS_NAMES = frozenset({"l", "O", "I"})  # pycodestyle's E741


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
        if _inlined(statement, uses.get(index, 0), expression):
            names[index] = expression
            continue
        observed = by_index.get(index, [])
        raises = next((o for o in observed if o.kind == "raises"), None)
        if raises is not None:
            read = "_ = " if statement.kind == "property" else ""  # a bare read is a lint
            lines.append(raises_line(raises, rendered))
            lines.append(f"    {read}{expression}")
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
        elif statement.kind == "property":
            lines.append(f"_ = {expression}")  # read for what it runs; a bare read is a lint
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


def _inlined(statement: Statement, uses: int, expression: str) -> bool:
    """Literals go into the calls that use them: a number or string wherever it is used (the
    compiler makes equal constants of one function one object), a collection when used once
    (twice, it is one object the calls share)."""
    if statement.kind in CALLS or len(expression) > MAX_INLINE:
        return False
    return statement.kind == "value" or uses <= 1


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
    elif statement.kind == "value":
        base = "value"
    else:
        base = "result"
    base = f"{base}_" if base in AMBIGUOUS_NAMES else base
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
        operator = "is" if observation.value in SINGLETONS else "=="
        return f"assert {variable}.{observation.detail} {operator} {observation.value}"
    if observation.kind == "length":
        return f"assert len({variable}) == {observation.value}"
    if observation.value in SINGLETONS:
        return f"assert {variable} is {observation.value}"
    return f"assert {variable} == {observation.value}"


def raises_line(raises: Observation, rendered: RenderedTest) -> str:
    """``with pytest.raises(ValueError, match="width must be > 0"):``, the class imported."""
    origin, _, name = raises.detail.rpartition(":")
    if origin:
        rendered.extra_imports.add(f"from {origin} import {name}")
    elif raises.detail:
        rendered.imports.add(raises.value)
    rendered.extra_imports.add("import pytest")
    if raises.message is None:
        return f"with pytest.raises({raises.value}):"
    return f"with pytest.raises({raises.value}, match={pattern_literal(raises.message)}):"


def match_pattern(message: str) -> str:
    """A regular expression that ``re.search`` finds in ``message``: its first line, cut after a
    word within ``MATCH_LENGTH`` characters, metacharacters escaped; ``^$`` for an empty one.

    >>> match_pattern("width must be > 0 (got -1)")
    'width must be > 0 \\\\(got -1\\\\)'
    """
    if not message:
        return "^$"
    text = next((line for line in message.splitlines() if line.strip()), message)
    if len(text) > MATCH_LENGTH:
        cut = text.rfind(" ", MATCH_LENGTH // 2, MATCH_LENGTH)
        text = text[: cut if cut > 0 else MATCH_LENGTH]
    return "".join("\\" + c if c in REGEX_SPECIAL else c for c in text)


def pattern_literal(message: str) -> str:
    """The pattern for ``message`` as a string literal: raw when it has escapes and can be."""
    pattern = match_pattern(message)
    printable = pattern.isprintable() and not ('"' in pattern and "'" in pattern)
    if "\\" in pattern and printable:
        quote = "'" if '"' in pattern else '"'
        return f"r{quote}{pattern}{quote}"
    return quoted(pattern)
