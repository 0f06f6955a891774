"""Examples of a module's use: its doctest lines (``>>>``), literal call sites, and the tests'.

A docstring's examples are inputs its author knew to be valid (a version string a library's
regex accepts, a date in the one format a parser takes): the search starts from them, and their
literals join the module's constant pool. A call ``unit(1, "a", key=2.5)`` whose arguments are
all plain literals, in a doctest example or in the module's own code, is one such example.

The project's tests build their inputs in steps more often than in one literal (``zwnj =
"\\u200c"``, then ``valid_contextj(virama + zwnj, 1)``): there a name bound once in the test
function (or the test module) to a literal, or to a ``+``/``*`` of such values, is folded into
the call's arguments (``folded``); so is a parameter of a test that ``pytest.mark.parametrize``
gives, once per row of its table (``parse(text)`` under a table of 60 date strings: 60 calls).
Those folded values, and the tests' literals, are also the project's own values for the
constant pool (``values_in_tests``): inputs its authors chose for the module's code, whichever
unit they passed them to.
"""

from __future__ import annotations

import ast
import doctest
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from miogen.analysis.survey import statement_walk
from miogen.common.syntax import parse, parse_expression

PLAIN = (int, float, str, bytes, bool, type(None))
MAX_EXAMPLES = 128  # example calls per unit: seeds, not a suite
MAX_FOLDED = 1000  # longest str or bytes a fold builds (``"a" * 64`` yes, ``"a" * 10**9`` no)
MAX_TEST_VALUES = 256  # of the project's tests, for a module's constant pool
MAX_VALUE_LENGTH = 200  # longest str or bytes of them (as the module's own constants)
MAX_ROWS = 128  # rows of a test's parametrize tables read as its arguments' values
_PARSER = doctest.DocTestParser()


@dataclass(frozen=True)
class ExampleCall:
    """``name(*positional, **dict(keywords))`` with plain literal arguments."""

    name: str
    positional: tuple[object, ...]
    keywords: tuple[tuple[str, object], ...]


def docstrings(tree: ast.Module) -> list[str]:
    """The docstrings of the module, its classes and its functions."""
    found = []
    for node in statement_walk(tree):  # ast.walk's order, without the expressions
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=True)
            if text and ">>>" in text:
                found.append(text)
    return found


def doctest_trees(docstring: str) -> list[ast.Module]:
    """Each ``>>>`` example of a docstring, parsed (examples that do not parse are skipped)."""
    return [parsed for parsed, _ in _examples(docstring)]


def _examples(docstring: str) -> list[tuple[ast.Module, str]]:
    """Each example parsed, with the output it expects."""
    try:
        examples = _PARSER.get_examples(docstring)
    except ValueError:  # inconsistent indentation: doctest itself would refuse it
        return []
    found = []
    for example in examples:
        try:
            found.append((parse(example.source), example.want))
        except (SyntaxError, ValueError):
            continue
    return found


def example_trees(tree: ast.Module) -> list[ast.Module]:
    return [parsed for text in docstrings(tree) for parsed in doctest_trees(text)]


def example_literals(tree: ast.Module) -> list[object]:
    """The plain literals of the module's doctest examples (``-1`` as one), and their expected
    outputs where those are plain literals, in order, without repeats."""
    seen: dict[tuple[type, object], None] = {}
    for text in docstrings(tree):
        for parsed, want in _examples(text):
            for node in ast.walk(parsed):
                try:
                    value = _plain(node) if isinstance(node, ast.Constant | ast.UnaryOp) else None
                except ValueError:
                    continue
                if value is not None:
                    seen.setdefault((type(value), value), None)
            try:
                value = _plain(parse_expression(want.strip()).body) if want.strip() else None
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                value = None
            if value is not None:
                seen.setdefault((type(value), value), None)
    return [value for _, value in seen]


def example_calls(
    tree: ast.Module, name: str, tests: Sequence[ast.Module] = ()
) -> list[ExampleCall]:
    """Calls of ``name`` with plain literal arguments: the doctest examples' first, then the
    module's own call sites, then those of the project's ``tests`` (``name(...)`` or
    ``module.name(...)`` there)."""
    found = dict.fromkeys(module_calls(tree).get(name, ()))
    for source in tests:
        for call in calls_in_test(source, name):
            found.setdefault(call, None)
    return list(found)[:MAX_EXAMPLES]


def calls_in_test(tree: ast.Module, name: str) -> list[ExampleCall]:
    """Calls of ``name`` (or ``x.name``) in a test module whose arguments fold to plain values:
    literals, and names the enclosing function or the module binds once to such values."""
    return calls_by_name(tree).get(name, [])


@functools.lru_cache(maxsize=64)  # by the tree's identity: the units of a module share a walk
def calls_by_name(tree: ast.Module) -> dict[str, list[ExampleCall]]:
    """Every name's calls in a test module (``calls_in_test``), at most MAX_EXAMPLES each, from
    one walk of it for all the module's units."""
    found: dict[str, dict[ExampleCall, None]] = {}
    for nodes, bound in _scopes(tree):
        for call in _calls(nodes, None, True, bound):
            calls = found.setdefault(call.name, {})
            if len(calls) < MAX_EXAMPLES:
                calls.setdefault(call, None)
    return {name: list(calls) for name, calls in found.items()}


def values_in_tests(trees: Sequence[ast.Module]) -> list[object]:
    """The plain values of the project's tests, in order, without repeats: the names they bind
    once (folded), their calls' folded arguments, their literals; at most MAX_TEST_VALUES,
    str and bytes of at most MAX_VALUE_LENGTH."""
    seen: dict[tuple[type, object], None] = {}

    def add(value: object) -> None:
        if isinstance(value, bool) or value is None or len(seen) >= MAX_TEST_VALUES:
            return
        if isinstance(value, str | bytes) and len(value) > MAX_VALUE_LENGTH:
            return
        seen.setdefault((type(value), value), None)

    for tree in trees:
        for _, bound in _scopes(tree):
            for value in bound.values():
                add(value)
        for calls in calls_by_name(tree).values():
            for call in calls:
                for value in [*call.positional, *(v for _, v in call.keywords)]:
                    add(value)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, PLAIN):
                add(node.value)
    return [value for _, value in seen]


def _scopes(tree: ast.Module) -> Iterable[tuple[list[ast.AST], dict[str, object]]]:
    """Each function of a test module (its nodes, and the values its names and the module's are
    bound to), then the module's own statements outside functions."""
    functions = [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    inside = {id(n) for function in functions for n in ast.walk(function)}
    outer = [node for node in ast.walk(tree) if id(node) not in inside]
    module_bound = folded(outer, {})
    tables = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
    }
    for function in functions:
        nodes = list(ast.walk(function))
        for row in parametrized(function, tables, module_bound) or [{}]:
            given = {**module_bound, **row}
            yield nodes, {**given, **folded(nodes, given, function)}
    yield outer, module_bound


def parametrized(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    tables: dict[str, ast.expr],
    bound: dict[str, object],
) -> list[dict[str, object]]:
    """The rows of the function's ``@pytest.mark.parametrize`` tables (a list written there or
    bound to a module name, rows as tuples or ``pytest.param(...)``): per row, the parameters
    whose value folds to a plain one (``_fold``, with ``bound``); several tables multiply, at
    most MAX_ROWS rows. None: not parametrized."""
    rows: list[dict[str, object]] = [{}]
    tabled = False
    for decorator in function.decorator_list:
        if not (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "parametrize"
            and decorator.args
        ):
            continue
        names = _parameter_names(decorator.args[0])
        values = decorator.args[1] if len(decorator.args) > 1 else None
        values = next((k.value for k in decorator.keywords if k.arg == "argvalues"), values)
        if isinstance(values, ast.Name):
            values = tables.get(values.id)
        if not names or not isinstance(values, ast.List | ast.Tuple):
            continue
        table = []
        for entry in values.elts[:MAX_ROWS]:
            if isinstance(entry, ast.Call) and getattr(entry.func, "attr", "") == "param":
                cells = list(entry.args)
            elif len(names) == 1:
                cells = [entry]
            elif isinstance(entry, ast.Tuple | ast.List):
                cells = list(entry.elts)
            else:
                continue
            row = {}
            for name, cell in zip(names, cells, strict=False):
                try:
                    row[name] = _fold(cell, bound)
                except ValueError:
                    continue
            table.append(row)
        tabled = True
        rows = [{**old, **new} for old in rows for new in table][:MAX_ROWS]
    return rows if tabled else []


def _parameter_names(node: ast.expr) -> list[str]:
    """``"a,b"``, ``("a", "b")`` or ``["a", "b"]``: the names a parametrize table gives."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [name.strip() for name in node.value.split(",") if name.strip()]
    if isinstance(node, ast.Tuple | ast.List):
        found = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        if all(isinstance(name, str) for name in found) and len(found) == len(node.elts):
            return [str(name) for name in found]
    return []


def folded(
    nodes: Sequence[ast.AST],
    outer: dict[str, object],
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
) -> dict[str, object]:
    """The names ``nodes`` bind exactly once, by ``name = <expression>``, to an expression that
    folds to a plain value (literals, names bound so before it or in ``outer``, ``+`` and
    ``*``); a parameter of ``function`` is no such name."""
    stores: dict[str, int] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            stores[node.id] = stores.get(node.id, 0) + 1
    if function is not None:
        for arg in ast.walk(function.args):
            if isinstance(arg, ast.arg):
                stores[arg.arg] = 2  # its value is the caller's
    assignments = sorted(
        (
            node
            for node in nodes
            if isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and stores.get(node.targets[0].id) == 1
        ),
        key=lambda node: (node.lineno, node.col_offset),
    )
    bound: dict[str, object] = {}
    for node in assignments:
        try:
            bound[node.targets[0].id] = _fold(node.value, {**outer, **bound})  # type: ignore[attr-defined]
        except ValueError:
            continue
    return bound


def _fold(node: ast.expr, bound: dict[str, object]) -> object:
    """The plain value ``node`` folds to (see ``folded``); ValueError where it does not."""
    if isinstance(node, ast.Name):
        if node.id not in bound:
            raise ValueError("unbound")
        return bound[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult):
        left, right = _fold(node.left, bound), _fold(node.right, bound)
        sized = [v for v in (left, right) if isinstance(v, str | bytes)]
        if isinstance(node.op, ast.Mult) and sized:
            count = right if sized[0] is left else left
            if type(count) is not int or len(sized[0]) * max(count, 0) > MAX_FOLDED:
                raise ValueError("too long")
        try:
            value = left + right if isinstance(node.op, ast.Add) else left * right  # type: ignore[operator]
        except TypeError as error:
            raise ValueError("no such operation") from error
        if not isinstance(value, PLAIN) or (
            isinstance(value, str | bytes) and len(value) > MAX_FOLDED
        ):
            raise ValueError("not a plain value")
        return value
    return _plain(node)


@functools.lru_cache(maxsize=8)  # by the tree's identity: the units of a module share one walk
def module_calls(tree: ast.Module) -> dict[str, list[ExampleCall]]:
    """Every name's example calls in the module (its doctest examples' first, then its own call
    sites), at most MAX_EXAMPLES each: one walk for all the module's units."""
    found: dict[str, dict[ExampleCall, None]] = {}
    for source in [*example_trees(tree), tree]:
        for call in _calls(ast.walk(source), None, False):
            calls = found.setdefault(call.name, {})
            if len(calls) < MAX_EXAMPLES:
                calls.setdefault(call, None)
    return {name: list(calls) for name, calls in found.items()}


def _calls(
    nodes: Iterable[ast.AST],
    name: str | None,
    qualified: bool,
    bound: dict[str, object] | None = None,
) -> Iterable[ExampleCall]:
    """Calls of ``name`` (None: of any plain name, or with ``qualified`` of any ``x.name``) with
    plain literal arguments; with ``bound``, arguments that fold to plain values (``_fold``)."""
    value_of = _plain if bound is None else functools.partial(_fold, bound=bound)
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        called = node.func
        if isinstance(called, ast.Name):
            if name is not None and called.id != name:
                continue
            name_called = called.id
        elif qualified and isinstance(called, ast.Attribute) and name in (None, called.attr):
            name_called = called.attr
        else:
            continue
        try:
            positional = tuple(value_of(arg) for arg in node.args)
            keywords = tuple((k.arg, value_of(k.value)) for k in node.keywords if k.arg is not None)
        except ValueError:
            continue
        if len(keywords) == len(node.keywords):
            yield ExampleCall(name_called, positional, keywords)


def _plain(node: ast.expr) -> object:
    """The value of a plain literal (``-1`` included); ValueError for anything else."""
    if isinstance(node, ast.Starred):
        raise ValueError("starred")
    try:
        value = ast.literal_eval(node)
    except (TypeError, SyntaxError, MemoryError, RecursionError) as error:
        raise ValueError("not a literal") from error
    if not isinstance(value, PLAIN):
        raise ValueError("not a plain literal")
    return value
