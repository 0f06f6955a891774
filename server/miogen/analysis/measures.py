"""What a function measures of each string or sequence parameter: lengths, separators, affixes.

``def encode(s: str)`` splits ``s`` on ".", turns each label into bytes with ``alabel(label)``
(which calls ``valid_label_length(b)``: ``len(b) > 63``), joins them and calls
``valid_string_length(joined)`` (``len(x) > 253``). The branch past 253 needs a domain of
short labels over 253 characters long: a random string, or one padded to a length the module
compares with (testcase.strings), is one long label and stops at the label check first.
``ulabel(label)`` needs ``label`` to start with ``b"xn--"`` (``startswith(_alabel_prefix)``)
and end with "-" (``x.decode("ascii")[-1] == "-"``): two separate mutations, each undone by
the other's next step.

``shapes_of`` finds, per function (by the line of its ``def``) and parameter, from the values
derived from the parameter in the body (assigned from an expression that reads it, a loop
over it, a list it is appended to):

- ``lengths``: K-1, K and K+1 for each constant K that ``len(v)`` is compared with (an
  integer literal, a module constant, either side of ``a if c else b``; ``len(v.encode())``
  too), also in the module's functions ``v`` is passed to (a few calls deep);
- ``separators``: the strings ``v.split(SEP)``, ``re.split(P, v)`` or ``R.split(v)`` (``R`` a
  module ``re.compile(P)``) split on (a pattern that is one literal character, or a class of
  them: its first);
- ``prefixes`` and ``suffixes``: the constants of ``v.startswith(C)``, ``v.endswith(C)``,
  ``v[0] == C`` and ``v[-1] == C`` (bytes as Latin-1 text), also those of callees.

The sampler (testcase.measured) builds values of those shapes for the parameter.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field

from miogen.analysis.source import parsed
from miogen.analysis.survey import walk

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
MAX_LENGTH = 4096  # longest a length worth building
CALL_DEPTH = 3  # how many calls deep a callee's measures count for the caller's parameter


@dataclass(frozen=True)
class Measures:
    """The shapes one parameter's values are measured against (see the module docstring)."""

    lengths: tuple[int, ...] = ()
    separators: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()


@dataclass
class _Found:
    lengths: set[int] = field(default_factory=set)
    separators: set[str] = field(default_factory=set)
    prefixes: set[str] = field(default_factory=set)
    suffixes: set[str] = field(default_factory=set)

    def add(self, other: _Found) -> bool:
        before = self.size()
        self.lengths |= other.lengths
        self.separators |= other.separators
        self.prefixes |= other.prefixes
        self.suffixes |= other.suffixes
        return self.size() != before

    def size(self) -> int:
        return len(self.lengths) + len(self.separators) + len(self.prefixes) + len(self.suffixes)


@dataclass
class _Function:
    node: FunctionNode
    params: list[str]
    found: dict[str, _Found]  # parameter -> its own measures
    passed: list[tuple[str, int | str, str]]  # (callee, position or keyword, parameter)


@functools.lru_cache(maxsize=16)
def shapes_of(source: str) -> dict[int, dict[str, Measures]]:
    """Per function's ``def`` line, its parameters' measures (those with any)."""
    tree = parsed(source)
    if tree is None:
        return {}
    constants = _module_constants(tree)
    functions: dict[str, _Function] = {}
    every: list[_Function] = []
    for node in walk(tree):
        if isinstance(node, FunctionNode):
            function = _function(node, constants)
            every.append(function)
            if node.col_offset == 0:  # a module function: callable by name
                functions[node.name] = function
    for _ in range(CALL_DEPTH):  # a callee's measures are the caller's parameter's
        changed = False
        for function in every:
            for callee_name, slot, param in function.passed:
                callee = functions.get(callee_name)
                if callee is None or callee is function:
                    continue
                name = _parameter_at(callee, slot)
                if name is not None and name in callee.found:
                    mine = function.found.setdefault(param, _Found())
                    changed |= mine.add(callee.found[name])
        if not changed:
            break
    shapes: dict[int, dict[str, Measures]] = {}
    for function in every:
        params = {
            name: Measures(
                tuple(sorted(n for n in found.lengths if 0 < n <= MAX_LENGTH)),
                tuple(sorted(found.separators)),
                tuple(sorted(found.prefixes)),
                tuple(sorted(found.suffixes)),
            )
            for name, found in function.found.items()
            if found.size()
        }
        if params:
            shapes[function.node.lineno] = params
    return shapes


def _parameter_at(function: _Function, slot: int | str) -> str | None:
    if isinstance(slot, str):
        return slot if slot in function.params else None
    params = [p for p in function.params if p not in ("self", "cls")]
    return params[slot] if 0 <= slot < len(params) else None


def _function(node: FunctionNode, constants: dict[str, object]) -> _Function:
    arguments = node.args
    params = [a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]]
    own = [p for p in params if p not in ("self", "cls")]
    nodes = _own_nodes(node)
    derived = _derived(nodes, own)
    found: dict[str, _Found] = {}
    passed: list[tuple[str, int | str, str]] = []

    def origins(expression: ast.AST | None) -> set[str]:
        if expression is None:
            return set()
        return {
            p
            for n in walk(expression)
            if isinstance(n, ast.Name) and not _is_called(n, expression)
            for p in derived.get(n.id, ())
        }

    def note(expression: ast.AST | None) -> list[_Found]:
        """The measures of the parameters ``expression`` is a view of: a derived name, or
        one with methods called on it (``v.decode("ascii")``, ``v.lower()``)."""
        subject = _subject(expression)
        if subject is None:
            return []
        return [found.setdefault(p, _Found()) for p in sorted(derived.get(subject, ()))]

    for n in nodes:
        if isinstance(n, ast.Compare):
            operands = [n.left, *n.comparators]
            for a, op, b in zip(operands, n.ops, operands[1:], strict=False):
                for measured, other in ((a, b), (b, a)):
                    inner = _len_argument(measured)
                    if inner is not None:
                        ks = list(_ints(other, constants))
                        for entry in note(inner):
                            entry.lengths.update(k + d for k in ks for d in (-1, 0, 1))
                    end = _end_subscript(measured)
                    if end is not None and measured is a:
                        texts = _compared_texts(op, other, constants)
                        for entry in note(end[0]):
                            (entry.prefixes if end[1] == 0 else entry.suffixes).update(texts)
        elif isinstance(n, ast.Call):
            func = n.func
            if isinstance(func, ast.Attribute) and func.attr in ("startswith", "endswith"):
                texts = [t for a in n.args[:1] for t in _texts(a, constants)]
                for entry in note(func.value):
                    (entry.prefixes if func.attr == "startswith" else entry.suffixes).update(texts)
            split = _split(n, constants)
            if split is not None:
                separator, subject = split
                for entry in note(subject):
                    entry.separators.add(separator)
            if isinstance(func, ast.Name):
                for position, argument in enumerate(n.args):
                    passed.extend((func.id, position, p) for p in sorted(origins(argument)))
                for keyword in n.keywords:
                    if keyword.arg is not None:
                        passed.extend(
                            (func.id, keyword.arg, p) for p in sorted(origins(keyword.value))
                        )
    return _Function(node, params, found, passed)


def _derived(nodes: list[ast.AST], params: list[str]) -> dict[str, set[str]]:
    """Each name -> the parameters its value is derived from (the parameters themselves too):
    assigned from an expression that reads one, a loop over one, a list one is appended to."""
    derived: dict[str, set[str]] = {p: {p} for p in params}
    for _ in range(4):  # a few rounds: the body's order is not the flow's
        changed = False
        for node in nodes:
            pairs: list[tuple[ast.AST, ast.AST]] = []
            if isinstance(node, ast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
                pairs = [(node.target, node.value)]
            elif isinstance(node, ast.For | ast.comprehension):
                pairs = [(node.target, node.iter)]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend", "insert", "add")
                and isinstance(node.func.value, ast.Name)
            ):
                pairs = [(node.func.value, a) for a in node.args]
            for target, value in pairs:
                sources = {
                    p for n in walk(value) if isinstance(n, ast.Name) for p in derived.get(n.id, ())
                }
                if not sources:
                    continue
                for name in (n.id for n in walk(target) if isinstance(n, ast.Name)):
                    have = derived.setdefault(name, set())
                    if not sources <= have:
                        have |= sources
                        changed = True
        if not changed:
            break
    return derived


def _subject(node: ast.AST | None) -> str | None:
    """``v`` of ``v``, ``v.encode("utf-8")``, ``v.strip().lower()``."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else None


def _is_called(name: ast.Name, root: ast.AST) -> bool:
    """Whether ``name`` is the function of a call in ``root`` (``f(x)``: ``f`` is no value)."""
    return any(isinstance(n, ast.Call) and n.func is name for n in walk(root))


def _len_argument(node: ast.AST) -> ast.expr | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    ):
        return node.args[0]
    return None


def _end_subscript(node: ast.AST) -> tuple[ast.expr, int] | None:
    """``v[0]`` -> (v, 0), ``v[-1]`` -> (v, -1)."""
    if not isinstance(node, ast.Subscript):
        return None
    index = node.slice
    value: object = None
    if isinstance(index, ast.Constant):
        value = index.value
    elif (
        isinstance(index, ast.UnaryOp)
        and isinstance(index.op, ast.USub)
        and isinstance(index.operand, ast.Constant)
    ):
        value = -index.operand.value if type(index.operand.value) is int else None
    if type(value) is int and value in (0, -1):
        return node.value, value
    return None


def _split(call: ast.Call, constants: dict[str, object]) -> tuple[str, ast.expr] | None:
    """(separator, split value) of ``v.split(SEP)``, ``re.split(P, v)``, ``R.split(v)``."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("split", "rsplit"):
        return None
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id == "re" and len(call.args) >= 2:
        pattern = next(iter(_texts(call.args[0], constants)), None)
        separator = _one_character(pattern) if pattern is not None else None
        return (separator, call.args[1]) if separator else None
    if isinstance(owner, ast.Name) and isinstance(constants.get(owner.id), _Compiled):
        compiled = constants[owner.id]
        assert isinstance(compiled, _Compiled)
        separator = _one_character(compiled.pattern)
        return (separator, call.args[0]) if separator and call.args else None
    if call.args:
        separator = next(iter(_texts(call.args[0], constants)), None)
        return (separator, owner) if separator else None
    return None


@dataclass(frozen=True)
class _Compiled:
    pattern: str


def _one_character(pattern: str) -> str | None:
    """The character a pattern of one literal character (or a class of them) matches, the
    first of a class."""
    body = pattern[1:-1] if pattern.startswith("[") and pattern.endswith("]") else pattern
    if body.startswith("^"):
        return None
    first = body[:2] if body.startswith("\\") else body[:1]
    if not first:
        return None
    try:
        compiled = re.compile(first)
    except re.error:
        return None
    for candidate in (first[-1], first):
        if len(candidate) == 1 and compiled.fullmatch(candidate):
            return candidate
    return None


def _module_constants(tree: ast.Module) -> dict[str, object]:
    """Names the module binds once to an int, str or bytes literal, or to ``re.compile(P)``."""
    values: dict[str, list[object]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = _literal(node.value)
            for target in targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(value)
    return {name: found[0] for name, found in values.items() if len(found) == 1 and found[0]}


def _literal(node: ast.expr) -> object:
    if isinstance(node, ast.Constant) and type(node.value) in (int, str, bytes):
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compile"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return _Compiled(node.args[0].value)
    return None


def _ints(node: ast.AST, constants: dict[str, object]) -> list[int]:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [node.value]
    if isinstance(node, ast.IfExp):
        return [*_ints(node.body, constants), *_ints(node.orelse, constants)]
    if isinstance(node, ast.Name) and type(constants.get(node.id)) is int:
        value = constants[node.id]
        assert isinstance(value, int)
        return [value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        left, right = _ints(node.left, constants), _ints(node.right, constants)
        sign = 1 if isinstance(node.op, ast.Add) else -1
        return [a + sign * b for a in left for b in right]
    return []


def _compared_texts(op: ast.cmpop, other: ast.AST, constants: dict[str, object]) -> list[str]:
    """What ``v[0] == C`` (C) or ``v[0] in "abc"`` (each of its characters) wants ``v[0]``
    to be."""
    texts = _texts(other, constants)
    if isinstance(op, ast.Eq | ast.NotEq):
        return texts
    if isinstance(op, ast.In | ast.NotIn):
        return sorted({c for t in texts for c in t})
    return []


def _texts(node: ast.AST, constants: dict[str, object]) -> list[str]:
    """A str or bytes constant (a literal or a module name bound to one; a tuple of them) as
    text: bytes as Latin-1."""
    if isinstance(node, ast.Tuple):
        return [t for e in node.elts for t in _texts(e, constants)]
    value: object = node.value if isinstance(node, ast.Constant) else None
    if isinstance(node, ast.Name):
        value = constants.get(node.id)
    if isinstance(value, bytes):
        return [value.decode("latin-1")] if value else []
    return [value] if isinstance(value, str) and value else []


def _own_nodes(function: FunctionNode) -> list[ast.AST]:
    """The nodes of ``function``'s body, not those of functions and classes nested in it."""
    nested = FunctionNode | ast.ClassDef | ast.Lambda
    nodes: list[ast.AST] = []
    pending: list[ast.AST] = [s for s in function.body if not isinstance(s, nested)]
    while pending:
        node = pending.pop(0)
        nodes.append(node)
        pending.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, nested))
    return nodes
