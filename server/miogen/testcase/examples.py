"""Test cases from the examples of a module's use (``analysis.examples``): a function unit's
doctest calls, its literal call sites in the module and in the project's tests, as the
search's first tests; and the values of the project's tests of the module, in its constant pool
(``project_pool``)."""

from __future__ import annotations

import ast
import functools
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from miogen.analysis.examples import (
    MAX_EXAMPLES,
    ExampleCall,
    calls_by_name,
    example_calls,
    module_calls,
    values_in_tests,
)
from miogen.analysis.model import ConstantPool, Signature
from miogen.common.project import ROOT_MARKERS, is_test_file
from miogen.common.syntax import parse
from miogen.testcase.model import Statement, TestCase
from miogen.testcase.sampling import TestFactory

MAX_TEST_FILES = 400  # test files of the project read for call sites
MAX_TEST_BYTES = 1 << 20
SKIPPED = {".git", ".hg", ".tox", ".nox", ".miogen", "node_modules", "__pycache__", "build",
           "dist", "site-packages"}  # fmt: skip


def example_tests(factory: TestFactory, project_root: str = "") -> list[TestCase]:
    """One test per example call of the unit whose arguments fit its signature;
    ``project_root``: its test files' call sites count too. A class unit's are those of its
    public methods (``method_example_tests``)."""
    if factory.unit.kind == "class":
        return method_example_tests(factory, project_root)
    signature = factory.model.functions.get(factory.unit.name)
    if signature is None:
        return []
    tree = _parsed(factory.model.source)
    if tree is None:
        return []
    found = []
    uses = project_test_trees(project_root, factory.unit.name) if project_root else ()
    for call in example_calls(tree, factory.unit.name, uses):
        test = _test(call, signature)
        if test is not None:
            found.append(test)
    return found


def method_example_tests(factory: TestFactory, project_root: str = "") -> list[TestCase]:
    """A class unit's examples: per public method, the calls the module's functions forward to
    it (``forwarded_calls``: ``parse(text, fuzzy=True)`` of a ``def parse(timestr, **kwargs):
    return DEFAULT.parse(timestr, **kwargs)``, on an instance built as the function builds it)
    and the calls of its name in the project's tests (``p.parse("...")``, on an instance built
    without arguments); a static or class method's on the class. The tests of a project call its
    entry points, seldom the class behind them."""
    cls = factory.model.classes.get(factory.unit.name)
    tree = _parsed(factory.model.source)
    if cls is None or tree is None:
        return []
    found: dict[TestCase, None] = {}
    for method in cls.methods:
        if method.name.startswith("_") or method.kind not in ("method", "static", "classmethod"):
            continue
        on_instance = method.kind == "method"
        calls = dict.fromkeys(forwarded_calls(tree, cls.name, method.name, project_root))
        uses = project_test_trees(project_root, method.name) if project_root else ()
        for call in example_calls(tree, method.name, uses):
            calls.setdefault((ExampleCall(cls.name, (), ()), call), None)
        for built, call in list(calls)[:MAX_EXAMPLES]:
            statements: list[Statement] = []
            receiver = -1
            if on_instance:
                if built is None or cls.constructor is None:
                    continue
                made = _arguments(built, cls.constructor, statements)
                if made is None:
                    continue
                receiver = len(statements)
                statements.append(Statement("construct", cls.name, made, value=cls.module or None))
            args = _arguments(call, method, statements)
            if args is None:
                continue
            if on_instance:
                statements.append(Statement("method", method.name, args, receiver=receiver))
            else:
                statements.append(Statement("call", f"{cls.name}.{method.name}", args))
            test = tuple(statements)
            if factory.complete(test):
                found.setdefault(test, None)
    return list(found)


Forwarded = tuple[ExampleCall | None, ExampleCall]  # the receiver's construction, the call


def forwarded_calls(
    tree: ast.Module, cls_name: str, method: str, project_root: str = ""
) -> list[Forwarded]:
    """The example calls of the module's functions that forward their arguments to ``method``
    of ``cls_name`` (on ``cls_name(...)`` or on a module name bound to one), as calls of the
    method: each argument goes where the function passes its parameter on (by position or
    name; its ``**kwargs`` as they are), the parameters it does not pass on are left out. With
    each, the call that builds the receiver (the same way: ``Parser(format).parse(text)``), or
    a call without arguments for a module's instance (``DEFAULT.parse(text)``)."""
    found: dict[Forwarded, None] = {}
    for function, inner, receiver in _forwarders(tree, cls_name, method):
        uses = project_test_trees(project_root, function.name) if project_root else ()
        for call in example_calls(tree, function.name, uses):
            forwarded = _forward(call, function, inner, receiver, cls_name)
            if forwarded is not None:
                found.setdefault(forwarded, None)
    return list(found)


@functools.lru_cache(maxsize=64)
def _forwarders(
    tree: ast.Module, cls_name: str, method: str
) -> tuple[tuple[ast.FunctionDef, ast.Call, ast.Call | None], ...]:
    """The module's functions that call ``method`` on an instance of ``cls_name``: each with
    the first such call of its body and the call that built its receiver there (``Parser(f)``
    of ``Parser(f).parse(s)``, or of ``p = Parser(f)`` then ``p.parse(s)``; None: an instance
    the module built, ``DEFAULT = Parser()``)."""
    instances = _built_names(tree.body, cls_name)
    found: list[tuple[ast.FunctionDef, ast.Call, ast.Call | None]] = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        local = _built_names(list(ast.walk(node)), cls_name)
        for inner in ast.walk(node):
            if not (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and inner.func.attr == method
            ):
                continue
            receiver = inner.func.value
            if isinstance(receiver, ast.Name) and receiver.id in local:
                receiver = local[receiver.id]
            if isinstance(receiver, ast.Call) and _builds(receiver, cls_name):
                found.append((node, inner, receiver))
                break
            if isinstance(receiver, ast.Name) and receiver.id in instances:
                found.append((node, inner, None))
                break
    return tuple(found)


def _built_names(nodes: list[ast.AST] | list[ast.stmt], cls_name: str) -> dict[str, ast.Call]:
    """The names ``nodes`` bind (once) to ``cls_name(...)``, with that call."""
    stores: dict[str, int] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    return {
        node.targets[0].id: node.value  # type: ignore[misc]
        for node in nodes
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and _builds(node.value, cls_name)
        and stores.get(node.targets[0].id, 1) == 1
    }


def _builds(node: ast.expr, cls_name: str) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == cls_name
    )


def _forward(
    call: ExampleCall,
    function: ast.FunctionDef,
    inner: ast.Call,
    receiver: ast.Call | None,
    cls_name: str,
) -> Forwarded | None:
    """``call`` (of ``function``) as the call ``inner`` of its body makes, with the receiver's
    construction; None where an argument cannot be placed."""
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    named = {*positional, *(a.arg for a in arguments.kwonlyargs)}
    if len(call.positional) > len(positional):
        return None  # into *args: not followed
    given = dict(zip(positional, call.positional, strict=False))
    extra: list[tuple[str, object]] = []
    for key, value in call.keywords:
        if key in named and key not in given:
            given[key] = value
        elif arguments.kwarg is not None and key not in named:
            extra.append((key, value))
        else:
            return None
    rest = arguments.kwarg.arg if arguments.kwarg is not None else None
    method = _hand_on(inner, given, extra, rest, named)
    if method is None or not (method.positional or method.keywords):
        return None
    built: ExampleCall | None = ExampleCall(cls_name, (), ())
    if receiver is not None:
        built = _hand_on(receiver, given, extra, rest, named)
    return None if built is None else (built, method)


def _hand_on(
    node: ast.Call,
    given: dict[str, object],
    extra: list[tuple[str, object]],
    rest: str | None,
    named: set[str],
) -> ExampleCall | None:
    """The call ``node`` of a function's body with the values ``given`` to the function's
    parameters (``named``; ``extra`` the keys of its ``**rest``): a parameter not given is left
    out; None where ``node`` passes a value of its own by position."""
    out: list[object] = []
    for index, arg in enumerate(node.args):
        if isinstance(arg, ast.Name) and arg.id in named:
            if arg.id not in given:  # its default: no later positional argument can follow
                if any(isinstance(a, ast.Name) and a.id in given for a in node.args[index + 1 :]):
                    return None
                break
            out.append(given[arg.id])
        else:
            return None  # another value: the function's own, not the example's
    keywords: list[tuple[str, object]] = []
    for keyword in node.keywords:
        value = keyword.value
        if keyword.arg is None:
            if isinstance(value, ast.Name) and rest is not None and value.id == rest:
                keywords.extend(extra)
        elif isinstance(value, ast.Name) and value.id in given:
            keywords.append((keyword.arg, given[value.id]))
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    return ExampleCall(name, tuple(out), tuple(keywords))


@functools.lru_cache(maxsize=8)
def project_pool(pool: ConstantPool, root: str, names: tuple[str, ...]) -> ConstantPool:
    """``pool`` and the plain values of the project's test files that mention one of ``names``
    (the module's units): what its authors passed to the module's code, folded where they built
    it in steps (``analysis.examples.values_in_tests``), for every unit of the module."""
    values = project_values(root, names)
    if not values:
        return pool
    ints = {v for v in values if type(v) is int and abs(v) < 2**63}
    floats = {v for v in values if type(v) is float}
    texts = {v for v in values if type(v) is str}
    raw = {v for v in values if type(v) is bytes}
    return ConstantPool(
        tuple(sorted(ints.union(pool.ints))),
        tuple(sorted(floats.union(pool.floats))),
        tuple(sorted(texts.union(pool.strings))),
        tuple(sorted(raw.union(pool.bytes_))),
        pool.patterns,
    )


@functools.lru_cache(maxsize=8)
def project_values(root: str, names: tuple[str, ...]) -> tuple[object, ...]:
    """The plain values of the project's test files that mention one of ``names``, those that
    mention them most first: the pool holds at most MAX_TEST_VALUES, and a suite's files in
    the order of their names would fill it with the values of files that import the module
    once (dateutil's test_imports.py before the 100 date strings of its test_parser.py)."""
    if not root:
        return ()
    wanted = [name.encode() for name in names]
    counted = [(sum(text.count(w) for w in wanted), text) for text in _test_sources(root)]
    ranked = sorted((item for item in counted if item[0]), key=lambda item: -item[0])
    trees = (_parsed(text) for _, text in ranked)
    return tuple(values_in_tests([tree for tree in trees if tree is not None]))


def read_project_tests(root: str, names: Iterable[str], source: str = "") -> int:
    """Read the project's test files and parse those that mention one of ``names``, once,
    before the units share the budget (the first unit's slice would otherwise pay for the
    whole module's), and find their calls; with ``source`` (the module's), its own example
    calls too. How many test files were parsed."""
    if source:
        tree = _parsed(source)
        if tree is not None:
            module_calls(tree)
    if not root:
        return 0
    wanted = [name.encode() for name in names]
    texts = [text for text in _test_sources(root) if any(name in text for name in wanted)]
    trees = [tree for tree in map(_parsed, texts) if tree is not None]
    for tree in trees:
        calls_by_name(tree)
    return len(trees)


def project_test_trees(root: str, name: str) -> tuple[ast.Module, ...]:
    """The project's test files (pytest's names) that mention ``name``, parsed (each once per
    worker: the units of a module share them)."""
    trees = (_parsed(text) for text in _test_sources(root) if name.encode() in text)
    return tuple(tree for tree in trees if tree is not None)


@functools.lru_cache(maxsize=512)
def _parsed(source: str | bytes) -> ast.Module | None:
    """``source`` parsed, once for all units (None: it does not parse). The trees are only read,
    and ``example_calls`` keeps its walk of the module in ``module_calls``' cache."""
    try:
        return parse(source)
    except (SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=4)
def _test_sources(root: str) -> tuple[bytes, ...]:
    """The bytes of a project's test files (``project_test_files``)."""
    sources = []
    for path in project_test_files(root):
        try:
            sources.append(path.read_bytes())
        except OSError:
            continue
    return tuple(sources)


def project_test_files(root: str) -> tuple[Path, ...]:
    """A project's test files whose call sites count, in the order they are read; none
    outside a project (a folder of an installation, the standard library's, has test files of
    its own that are no user's). A dask job carries those naming its units (``ctg.remote``)."""
    base = Path(root)
    prefixes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    if "site-packages" in base.parts or any(base.is_relative_to(p) for p in prefixes):
        return ()
    if not any((base / marker).exists() for marker in ROOT_MARKERS):
        return ()
    found: list[Path] = []
    for folder, folders, files in os.walk(base):
        folders[:] = sorted(
            f for f in folders
            if f not in SKIPPED and not f.startswith(".")
            and not os.path.exists(os.path.join(folder, f, "pyvenv.cfg"))
        )  # fmt: skip
        for file_name in sorted(files):
            path = Path(folder, file_name)
            if file_name == "conftest.py" or not is_test_file(path):
                continue
            try:
                if file_name.endswith(".py") and path.stat().st_size <= MAX_TEST_BYTES:
                    found.append(path)
            except OSError:
                continue
            if len(found) >= MAX_TEST_FILES:
                return tuple(found)
    return tuple(found)


def _test(call: ExampleCall, signature: Signature) -> TestCase | None:
    """``call`` as statements (its literals, then the call), or None where it does not fit."""
    statements: list[Statement] = []
    args = _arguments(call, signature, statements)
    if args is None:
        return None
    statements.append(Statement("call", signature.name, args))
    return tuple(statements)


def _arguments(
    call: ExampleCall, signature: Signature, statements: list[Statement]
) -> tuple[tuple[str, int], ...] | None:
    """The arguments of ``call`` for ``signature``, their literals appended to ``statements``;
    None where they do not fit."""
    positional = [p for p in signature.params if not p.keyword_only]
    by_name = {p.name.lstrip("/"): p for p in signature.params if not p.name.startswith("*")}
    args: list[tuple[str, int]] = []
    for index, value in enumerate(call.positional):
        if index < len(positional) and not positional[index].name.startswith("*"):
            name = positional[index].name
        else:
            rest = next((p for p in positional if p.name.startswith("*")), None)
            if rest is None:
                return None
            name = rest.name
        statements.append(Statement("value", value=value))
        args.append((name, len(statements) - 1))
    for key, value in call.keywords:
        parameter = by_name.get(key)
        if parameter is None or parameter.name.startswith("/"):
            return None
        statements.append(Statement("value", value=value))
        args.append((parameter.name, len(statements) - 1))
    return tuple(args)
