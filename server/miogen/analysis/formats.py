"""Parameters that the code uses as ``str.format`` strings or format specs.

Random text is almost never a format spec with a fill, an alignment and a width (``*<10.3f``),
nor a format string whose fields carry one, so the branches of code that takes such text apart
are never reached. ``format_parameters`` finds, per function (by the line of its ``def``), the
parameters its code treats that way; the sampler (testcase.formats) then writes valid ones.

A parameter ``p`` is a *spec* when the code calls ``format(x, p)``, puts it in an f-string's
spec (``f"{x:{p}}"``), takes it in ``__format__``, or tests its characters against the
alignments (``p[0] in "<>=^"``: the spec parsed by hand). It is a format *string* when the code
calls ``p.format(...)``, ``p.format_map(...)``, ``str.format(p, ...)`` or a ``Formatter``'s
``parse``/``vformat`` on it, or gives it to a module-level regular expression that finds the
fields of a format string (``PARSE_RE.split(p)``). A value the code keeps in ``self.name``
counts where the class reads it, and a parameter passed on as such a parameter of another
function or class of the module is one too.
"""

from __future__ import annotations

import ast
import functools
import re

from miogen.analysis.source import FunctionNode, parameter_names, parsed

SPEC, STRING = "spec", "string"
ALIGNMENTS = "<>=^"
# Format strings a pattern that finds format fields finds something in.
FIELD_PROBES = ("{}", "{name}", "{:>10}", "{name:d}")
_FORMATTING_METHODS = frozenset({"format", "format_map"})
_FORMATTER_METHODS = frozenset({"parse", "vformat", "format"})


Owner = tuple[int, str]  # (line of the def, parameter)
References = dict[str, Owner]  # "p" or "self.name" -> the parameter it holds


@functools.lru_cache(maxsize=16)
def format_parameters(source: str) -> dict[int, tuple[tuple[str, str], ...]]:
    """(parameter, SPEC or STRING) pairs per function's ``def`` line; others left out."""
    tree = parsed(source)
    if tree is None:
        return {}
    field_patterns = _field_patterns(tree)
    found: dict[Owner, str] = {}
    for function, references in _functions(tree):
        for node in ast.walk(function):
            for owner, kind in _evidence(node, references, field_patterns):
                found.setdefault(owner, kind)
    _passed_on(tree, found)
    by_line: dict[int, dict[str, str]] = {}
    for (line, parameter), kind in sorted(found.items()):
        by_line.setdefault(line, {})[parameter] = kind
    return {line: tuple(pairs.items()) for line, pairs in by_line.items()}


def _functions(tree: ast.Module) -> list[tuple[FunctionNode, References]]:
    """Each function with what refers to a parameter in it: its parameters' names and, in a
    method, the ``self`` attributes that a method of its class sets to a parameter."""
    found = []
    in_classes: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        methods = [item for item in node.body if isinstance(item, FunctionNode)]
        kept = {f"self.{a}": owner for a, owner in _kept_in_self(methods).items()}
        for method in methods:
            in_classes.add(id(method))
            found.append((method, {**kept, **_own(method)}))
    for node in ast.walk(tree):
        if isinstance(node, FunctionNode) and id(node) not in in_classes:
            found.append((node, _own(node)))
    return found


def _own(function: FunctionNode) -> References:
    return {name: (function.lineno, name) for name in parameter_names(function)}


def _kept_in_self(methods: list[FunctionNode]) -> dict[str, Owner]:
    """``self.name = p`` (``p`` a parameter of the method): name -> the parameter."""
    kept: dict[str, Owner] = {}
    for method in methods:
        parameters = set(parameter_names(method))
        for node in ast.walk(method):
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Name):
                continue
            if node.value.id not in parameters:
                continue
            for target in node.targets:
                if _is_self_attribute(target):
                    assert isinstance(target, ast.Attribute)
                    kept.setdefault(target.attr, (method.lineno, node.value.id))
    return kept


def _is_self_attribute(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _referred(node: ast.expr | None, references: References) -> Owner | None:
    """The parameter ``node`` is (``p``, ``self.name``), or a character or slice of."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return references.get(node.id)
    if node is not None and _is_self_attribute(node):
        assert isinstance(node, ast.Attribute)
        return references.get(f"self.{node.attr}")
    return None


def _evidence(
    node: ast.AST, references: References, field_patterns: set[str]
) -> list[tuple[Owner, str]]:
    found: list[tuple[Owner, str]] = []
    if isinstance(node, ast.Call):
        found += _call_evidence(node, references, field_patterns)
    elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
        found += [
            (owner, SPEC)
            for inner in ast.walk(node.format_spec)
            if isinstance(inner, ast.FormattedValue)
            for owner in [_referred(inner.value, references)]
            if owner is not None
        ]
    elif isinstance(node, ast.Compare) and _against_alignments(node):
        owner = _referred(node.left, references)
        found += [(owner, SPEC)] if owner is not None else []
    elif isinstance(node, FunctionNode) and node.name == "__format__":
        found += [((node.lineno, name), SPEC) for name in parameter_names(node)[:1]]
    return found


def _against_alignments(node: ast.Compare) -> bool:
    """``x in "<>=^"`` (or a string holding three of the alignments)."""
    if not any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
        return False
    return any(
        isinstance(c, ast.Constant)
        and isinstance(c.value, str)
        and sum(a in c.value for a in ALIGNMENTS) >= 3
        for c in node.comparators
    )


def _call_evidence(
    call: ast.Call, references: References, field_patterns: set[str]
) -> list[tuple[Owner, str]]:
    function, args = call.func, call.args
    first = args[0] if args else None
    if isinstance(function, ast.Name) and function.id == "format" and len(args) >= 2:
        owner = _referred(args[1], references)
        return [(owner, SPEC)] if owner is not None else []
    if not isinstance(function, ast.Attribute):
        return []
    method, receiver = function.attr, function.value
    candidates: list[Owner | None] = []
    if method in _FORMATTING_METHODS:
        candidates.append(_referred(receiver, references))  # p.format(...)
        if isinstance(receiver, ast.Name) and receiver.id == "str":
            candidates.append(_referred(first, references))  # str.format(p, ...)
    if method in _FORMATTER_METHODS and _is_formatter(receiver):
        candidates.append(_referred(first, references))
    if isinstance(receiver, ast.Name) and receiver.id in field_patterns:
        candidates += [_referred(arg, references) for arg in args]  # PARSE_RE.split(p)
    return [(owner, STRING) for owner in candidates if owner is not None]


def _is_formatter(node: ast.expr) -> bool:
    """``Formatter()``, ``string.Formatter()`` or a name that says it is one."""
    if isinstance(node, ast.Call):
        node = node.func
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return "formatter" in str(name).lower()


def _field_patterns(tree: ast.Module) -> set[str]:
    """Module-level names bound to ``re.compile(...)`` of a pattern that finds format fields."""
    names = set()
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        compiles = isinstance(call.func, ast.Attribute) and call.func.attr == "compile"
        if not compiles or not call.args or not isinstance(call.args[0], ast.Constant):
            continue
        if isinstance(call.args[0].value, str) and _finds_fields(call.args[0].value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _finds_fields(pattern: str) -> bool:
    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return all(_found_whole(compiled, probe) for probe in FIELD_PROBES)


def _found_whole(compiled: re.Pattern[str], probe: str) -> bool:
    """The pattern finds the whole field in ``probe`` (not a brace or a word of it)."""
    match = compiled.search(probe)
    return match is not None and match.group() == probe


def _passed_on(tree: ast.Module, found: dict[Owner, str]) -> None:
    """A parameter passed as such a parameter of a module function or class is one too
    (``parse(format, ...)`` builds ``Parser(format)``), to a fixed point."""
    callees = _callees(tree)
    calls = [
        (function, references, node)
        for function, references in _functions(tree)
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]
    changed = True
    while changed:
        changed = False
        for _, references, call in calls:
            assert isinstance(call.func, ast.Name)
            callee = callees.get(call.func.id)
            if callee is None:
                continue
            line, parameters = callee
            given = list(zip(parameters, call.args, strict=False))
            given += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
            for parameter, argument in given:
                kind = found.get((line, parameter))
                owner = _referred(argument, references) if kind else None
                if kind and owner is not None and owner not in found:
                    found[owner] = kind
                    changed = True


def _callees(tree: ast.Module) -> dict[str, tuple[int, list[str]]]:
    """Module-level functions and classes (their ``__init__``) by name: def line, parameters."""
    callees: dict[str, tuple[int, list[str]]] = {}
    for node in tree.body:
        if isinstance(node, FunctionNode):
            callees[node.name] = (node.lineno, parameter_names(node))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, FunctionNode) and item.name == "__init__":
                    callees[node.name] = (item.lineno, parameter_names(item))
    return callees
