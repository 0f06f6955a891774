"""Renders a test case and its observations as a readable pytest function."""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import tokenize
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from miogen.analysis.model import Signature
from miogen.analysis.special import template_for
from miogen.assertions.observation import Observation, input_literal, quoted
from miogen.common.syntax import parse, parse_expression
from miogen.emit.annotations import ANY_IMPORT, empty_collection_types, open_empty_arguments
from miogen.emit.matches import is_match, match_lines
from miogen.emit.tokens import replaced_tokens, source_tokens
from miogen.testcase.model import CALLS, Statement, TestCase

MAX_INLINE = 60  # characters of a literal written into the call that uses it
MATCH_LENGTH = 60  # characters of an exception's message that pytest.raises(match=...) looks for
SINGLETONS = frozenset({"True", "False", "None"})  # compared with ``is``, as linters want
REGEX_SPECIAL = frozenset("\\.^$*+?{}[]|()")
AMBIGUOUS_NAMES = frozenset({"l", "O", "I"})  # pycodestyle's E741


def _ignore_comment(mistyped: Mapping[int, str] | AbstractSet[int], index: int) -> str:
    if index not in mistyped:
        return ""
    code = mistyped[index] if isinstance(mistyped, Mapping) else "arg-type"
    return f"  # type: ignore[{code}]"


def _boolean_noqa(statement: Statement, names: dict[int, str]) -> str:
    """``operator.eq(box, True)`` compares with a bool on purpose (``box == True`` reads as a
    slip, E712): the boolean positional argument says so to flake8-boolean-trap (FBT003)."""
    if statement.kind != "operator" or statement.name not in _EQUALITIES:
        return ""
    operands = {names.get(i) for _, i in statement.args} | {names.get(statement.receiver)}
    return "  # noqa: FBT003" if operands & {"True", "False"} else ""


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
    test: TestCase,
    observations: list[Observation],
    name: str,
    module_classes: set[str],
    mistyped: Mapping[int, str] | AbstractSet[int] = frozenset(),
    signature_of: Callable[[Statement], Signature | None] | None = None,
    generic_classes: AbstractSet[str] = frozenset(),
) -> RenderedTest:
    """Source of one test function. Literals used once are inlined into the call that uses them.
    The calls at the ``mistyped`` indices pass a value of another type than an annotation asks
    for, on purpose: their lines say so to type checkers (``mistyped[index]``: the error code,
    by default arg-type). An empty collection kept in a variable is annotated with the type of
    the parameter it goes to (``signature_of``: the calls' signatures), see emit.annotations;
    so is one a ``generic_classes`` constructor takes."""
    empty_types = empty_collection_types(test, signature_of)
    uses: dict[int, int] = {}
    for statement in test:
        for ref in statement.references():
            uses[ref] = uses.get(ref, 0) + 1
    by_index: dict[int, list[Observation]] = {}
    for observation in observations:
        by_index.setdefault(observation.index, []).append(observation)
    # An empty collection a generic call takes, whose result is kept: named, so annotated.
    open_empties = {
        index: name
        for index, name in open_empty_arguments(test, signature_of, generic_classes).items()
        if any(
            uses.get(user, 0) or user in by_index
            for user, other in enumerate(test)
            if index in other.references()
        )
    }
    rendered = RenderedTest(name, "")
    names: dict[int, str] = {}
    # A ``decimal`` variable hides ``import decimal``; a ``shlex`` one the class ``shlex`` it is
    # made from (the name is local to the whole function: its first use would raise).
    taken: set[str] = set(_MODULES | {"pytest"} | _module_names(test))
    lines: list[str] = []
    for index, statement in enumerate(test):
        if _is_context(statement):
            observed = by_index.get(index, [])
            lines += _context_lines(index, test, names, taken, observed, rendered)
            continue
        if is_match(statement):
            names[index], bound = match_lines(statement.value, taken)  # type: ignore[arg-type]
            lines += bound
            continue
        expression = _expression(statement, names, rendered)
        comment = _ignore_comment(mistyped, index) + _boolean_noqa(statement, names)
        if index in open_empties:
            variable = _variable_name(statement, taken, open_empties[index])
            names[index] = variable
            lines.append(f"{variable}: {empty_types[index]} = {expression}")
            if "Any" in empty_types[index]:
                rendered.extra_imports.add(ANY_IMPORT)
            continue
        if _inlined(statement, uses.get(index, 0), expression) or statement.kind == "callable":
            names[index] = expression  # a function passed as an argument: always inlined
            continue
        observed = by_index.get(index, [])
        raises = next((o for o in observed if o.kind == "raises"), None)
        if raises is not None:
            lines.append(raises_line(raises, rendered))
            lines.append(f"    {_as_statement(expression)}{comment}")
            continue
        at_once = [o for o in observed if o.kind != "attribute"]
        needs_name = uses.get(index, 0) > 0 or bool(observed)
        if needs_name and not uses.get(index, 0) and len(observed) == 1 == len(at_once):
            # One check of a value nothing else uses: `assert f(x) == 3`, one statement, when it
            # fits on a line (ruff format would wrap a longer one).
            observation = observed[0]
            inline = _assertion(_grouped(statement, expression), observation, rendered) + comment
            if len(inline) <= 84:
                if observation.kind in ("equals", "isinstance") and observation.detail:
                    _import_detail(observation.detail, rendered)
                lines.append(inline)
                continue
        if needs_name:
            variable = _variable_name(statement, taken)
            names[index] = variable
            if index in empty_types:
                variable = f"{variable}: {empty_types[index]}"
                if "Any" in empty_types[index]:
                    rendered.extra_imports.add(ANY_IMPORT)
            lines.append(f"{variable} = {expression}{comment}")
            for observation in at_once:
                if observation.kind == "equals" and observation.detail:
                    rendered.imports.add(observation.detail)
                lines.append(_assertion(variable, observation, rendered))
        elif statement.kind == "property":
            lines.append(f"_ = {expression}")  # read for what it runs; a bare read is a lint
        else:
            lines.append(_as_statement(expression) + comment)
    # The state of objects is observed when the test ends, so it is asserted there.
    for observation in observations:
        if observation.kind == "attribute" and observation.index in names:
            lines.append(_assertion(names[observation.index], observation, rendered))
    body = "\n".join(f"    {line}" for line in lines) or "    pass"
    rendered.source = plain_decimals(f"def {name}():\n{body}\n")
    rendered.imports |= _module_names(test)
    rendered.extra_imports |= _origin_imports(test) | module_imports(rendered.source)
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
        if statement.kind in ("construct", "call", "enum", "class") and not statement.value:
            found.add(statement.name.split(".")[0])
        elif statement.kind == "callable" and statement.value == "module":
            found.add(statement.name)
    return found


def _variable_name(statement: Statement, taken: set[str], given: str = "") -> str:
    if given:
        base = snake(given)
    elif statement.kind == "construct":
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
        text = input_literal(statement.value)
        if text and "math." in text:
            rendered.extra_imports.add("import math")
        return text if text is not None else repr(statement.value)
    if kind in ("list", "tuple", "set"):
        items = [names[i] for _, i in statement.args]
        if kind == "list":
            return "[" + ", ".join(items) + "]"
        if kind == "tuple":
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        unique = list(dict.fromkeys(items))  # ``{None, None}`` is ``{None}`` (ruff B033)
        return "{" + ", ".join(unique) + "}" if unique else "set()"
    if kind == "dict":
        items = [names[i] for _, i in statement.args]
        # A key written twice keeps its last value, as the dict the test ran with did.
        pairs = dict(zip(items[::2], items[1::2], strict=False))
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs.items()) + "}"
    if kind in ("enum", "class"):
        return statement.name
    if kind == "property":
        return f"{names[statement.receiver]}.{statement.name}"
    if kind in ("operator", "assign", "callable"):
        return _special_expression(statement, names)
    arguments = _arguments(statement.args, names)
    if kind == "method":
        return f"{names[statement.receiver]}.{statement.name}({arguments})"
    return f"{statement.name}({arguments})"


def _unwrapped(text: str) -> str:
    """``text`` without parentheses around the whole of it (a complex's repr, ``(1+2j)``) when
    they only wrap one expression, not a tuple: as the one argument of a call they are
    extraneous (ruff UP034)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    try:
        inner = parse_expression(text[1:-1]).body
    except SyntaxError:  # ``(1) + (2)``: the parentheses are not a pair
        return text
    return text if isinstance(inner, ast.Tuple) else text[1:-1]


def _assertion(variable: str, observation: Observation, rendered: RenderedTest) -> str:
    if observation.kind == "approx":
        rendered.extra_imports.add("import pytest")
        return f"assert {variable} == pytest.approx({_unwrapped(observation.value)})"
    if observation.kind == "nan":
        rendered.extra_imports.add("import math")
        return f"assert math.isnan({variable})"
    if observation.kind == "isinstance":
        if observation.detail:
            _import_detail(observation.detail, rendered)
        return f"assert isinstance({variable}, {observation.value})"
    if observation.kind == "is_none":
        return f"assert {variable} is None"
    if observation.kind == "callable":
        return f"assert callable({variable})"
    if observation.kind == "attribute":
        operator = "is" if observation.value in SINGLETONS else "=="
        return f"assert {variable}.{observation.detail} {operator} {observation.value}"
    if observation.kind == "length":
        return f"assert len({variable}) == {observation.value}"
    if observation.value in ("True", "False") and _type_check(variable) is not None:
        return f"assert {variable}" if observation.value == "True" else f"assert not {variable}"
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
        # CPython's or another library's words are not matched (they change between versions):
        # the broad classes then say so to flake8-pytest-style, which wants a match for them.
        broad = "  # noqa: PT011" if raises.value in PT011_BROAD and not origin else ""
        return f"with pytest.raises({raises.value}):{broad}"
    return f"with pytest.raises({raises.value}, match={pattern_literal(raises.message)}):"


# flake8-pytest-style's (and ruff's) default raises-require-match-for
PT011_BROAD = frozenset(
    {"BaseException", "Exception", "ValueError", "OSError", "IOError", "EnvironmentError"}
)


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


# -- the statement kinds of real code: operators, setters, functions as values, stdlib values ---


def _arguments(args: tuple[tuple[str, int], ...], names: dict[int, str]) -> str:
    """``a, *rest, key=v``: "/x" and "*items" arguments by position, the others by keyword."""
    return ", ".join(names[i] if n[:1] in "/*" else f"{n}={names[i]}" for n, i in args)


def _special_expression(statement: Statement, names: dict[int, str]) -> str:
    if statement.kind == "callable":
        return statement.name
    receiver = names[statement.receiver]
    if statement.kind == "assign":
        return f"{receiver}.{statement.name} = {names[statement.args[0][1]]}"
    if statement.name == "__call__":
        return f"{receiver}({_arguments(statement.args, names)})"
    operands = [_operand(names[i], statement.name) for _, i in statement.args]
    receiver = _operand(receiver, statement.name)
    if statement.name in _MODULO and operands:
        left = receiver if statement.name == "__mod__" else operands[0]
        if left.lstrip("bBrRuU")[:1] in ("'", '"'):
            # ``"%d" % x`` formats a string: linters want format specifiers (UP031, F507);
            # the operator module's function says the ``%`` on a string is what is tested.
            right = operands[0] if statement.name == "__mod__" else receiver
            return f"operator.mod({left}, {right})"
    if statement.name in _CONCATENATIONS and operands and _is_display(receiver, *operands):
        # ``[] + bag`` runs ``bag.__radd__`` as ``[*bag]`` would not, but linters read it as
        # building a list (RUF005): the operator module's function says the ``+`` is meant.
        left, right = (receiver, operands[0])[:: 1 if statement.name == "__add__" else -1]
        return f"operator.add({left}, {right})"
    if statement.name in _EQUALITIES and SINGLETONS & {receiver, *operands}:
        # ``a == None`` runs ``a.__eq__`` as ``a is None`` would not, but linters (E711/E712)
        # read it as a mistake: the operator module's function says the comparison is meant.
        return f"operator.{_EQUALITIES[statement.name]}({receiver}, {', '.join(operands)})"
    if statement.name == "__round__" and operands and operands[0] in ("True", "False"):
        return f"round({receiver}, ndigits={operands[0]})"  # not the boolean trap (FBT003)
    if statement.name in _COMPARISONS and operands == [receiver]:
        # ``a <= a`` runs ``a.__le__`` with itself, which reads as a slip (ruff PLR0124)
        return f"operator.{statement.name.strip('_')}({receiver}, {receiver})"
    return template_for(statement.name, len(operands)).format(receiver, *operands)


def _operand(text: str, name: str) -> str:
    """Parentheses where an inlined value would bind wrongly: a lambda, a conditional, and a
    negative number left of ``**`` (``(-1) ** x``, not ``-(1 ** x)``)."""
    negative_power = text.startswith("-") and name in ("__pow__", "__rpow__")
    if text.startswith("lambda") or " if " in text or negative_power:
        return f"({text})"
    return text


_EQUALITIES = {"__eq__": "eq", "__ne__": "ne"}
_CONCATENATIONS = frozenset({"__add__", "__radd__"})


def _is_display(*texts: str) -> bool:
    """Whether one of ``texts`` is a list or tuple display (``[]``, ``(1,)``)."""
    for text in texts:
        try:
            body = parse_expression(text).body
        except SyntaxError:
            continue
        if isinstance(body, ast.List | ast.Tuple):
            return True
    return False


_MODULO = frozenset({"__mod__", "__rmod__"})
_COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})


def _grouped(statement: Statement, expression: str) -> str:
    """``(a == b)`` inside an assertion, where ``a == b is True`` would chain the comparisons."""
    comparison = statement.name in _COMPARISONS or statement.name == "__contains__"
    written_as_call = expression.startswith("operator.")
    grouped = statement.kind == "operator" and comparison and not written_as_call
    return f"({expression})" if grouped else expression


def _import_detail(detail: str, rendered: RenderedTest) -> None:
    """A name of the module under test, or "package.module:Name" of another of its package."""
    origin, _, name = detail.rpartition(":")
    if origin:
        rendered.extra_imports.add(f"from {origin} import {name}")
    else:
        rendered.imports.add(name)


def _as_statement(expression: str) -> str:
    """``_ = a < b``: an operator expression whose value is not checked is still run, without
    reading as a pointless comparison (ruff B015/B018); calls and assignments stay as they are."""
    try:
        tree = parse(expression)
    except SyntaxError:
        return expression
    single = tree.body[0] if len(tree.body) == 1 else None
    checked = _type_check(expression)
    if checked is not None:  # ``isinstance(hash(x), int)`` unchecked: ``hash(x)`` is what runs
        return _as_statement(checked)
    if isinstance(single, ast.Expr) and not isinstance(single.value, ast.Call):
        return f"_ = {expression}"
    return expression


def _type_check(expression: str) -> str | None:
    """What ``isinstance(what, kind)`` checks (the text of ``what``); None for anything else."""
    try:
        tree = parse_expression(expression)
    except SyntaxError:
        return None
    call = tree.body
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    if call.func.id != "isinstance" or len(call.args) != 2 or call.keywords:
        return None
    return ast.get_source_segment(expression, call.args[0])


def _is_context(statement: Statement) -> bool:
    return statement.kind == "operator" and statement.name == "__enter__"


def _context_lines(
    index: int,
    test: TestCase,
    names: dict[int, str],
    taken: set[str],
    observed: list[Observation],
    rendered: RenderedTest,
) -> list[str]:
    """``with resource as entered: pass``: entering and leaving, then checks on what it gave."""
    statement = test[index]
    receiver = names[statement.receiver]
    raises = next((o for o in observed if o.kind == "raises"), None)
    if raises is not None:  # one ``with`` for both (ruff SIM117)
        return [raises_line(raises, rendered)[:-1] + f", {receiver}:", "    pass"]
    checks = [o for o in observed if o.kind != "attribute"]
    used = any(index in later.references() for later in test[index + 1 :])
    if not checks and not used:
        return [f"with {receiver}:", "    pass"]
    variable = _variable_name(statement, taken)
    names[index] = variable
    lines = [f"with {receiver} as {variable}:", "    pass"]
    for observation in checks:
        if observation.kind == "equals" and observation.detail:
            rendered.imports.add(observation.detail)
        lines.append(_assertion(variable, observation, rendered))
    return lines


_MODULES = frozenset(
    {"datetime", "decimal", "fractions", "pathlib", "re", "uuid", "math", "operator", "zoneinfo"}
    | {"copy", "ast"}
)


_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


def plain_decimals(source: str) -> str:
    """``Decimal(-4321)`` for ``Decimal("-4321")``: the same value, without the string that
    linters call verbose (ruff FURB157); a signed zero keeps its string (``Decimal(-0)`` is 0).

    >>> plain_decimals('x = decimal.Decimal("-4321") + decimal.Decimal("-0")')
    'x = decimal.Decimal(-4321) + decimal.Decimal("-0")'
    """
    tokens = source_tokens(source)
    replacements = []
    for index in range(len(tokens) - 3):
        name, opening, text, closing = tokens[index : index + 4]
        if not (name.string == "Decimal" and opening.string == "(" and closing.string == ")"):
            continue
        if text.type != tokenize.STRING or text.start[0] != text.end[0]:
            continue
        try:
            value = ast.literal_eval(text.string)
        except (ValueError, SyntaxError):
            continue
        if not isinstance(value, str) or not _WHOLE_NUMBER.fullmatch(value):
            continue
        number = int(value)
        if number == 0 and value[0] in "+-":
            continue
        replacements.append((text, str(number)))
    return replaced_tokens(source, replacements)


def module_imports(source: str) -> set[str]:
    """``import datetime`` and the like for the modules the source uses by name (not in strings)."""
    found: set[str] = set()
    previous = ""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return found
    for token, following in zip(tokens, tokens[1:], strict=False):
        if token.type == tokenize.NAME and token.string in _MODULES and following.string == ".":
            if previous != ".":
                found.add(f"import {token.string}")
        previous = token.string
    return found


def _origin_imports(test: TestCase) -> set[str]:
    """Classes of the package's other modules are imported from where they are defined; a
    class named through its module (``collections.OrderedDict``) imports the module."""
    return {
        f"import {s.value}"
        if s.name.startswith(f"{s.value}.")
        else f"from {s.value} import {s.name.split('.')[0]}"
        for s in test
        if s.kind in ("construct", "enum", "call", "class") and isinstance(s.value, str) and s.value
    }
