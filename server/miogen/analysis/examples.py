"""Examples of a module's use: its doctest lines (``>>>``), literal call sites, and the tests'.

A docstring's examples are inputs its author knew to be valid (a version string a library's
regex accepts, a date in the one format a parser takes): the search starts from them, and their
literals join the module's constant pool. A call ``unit(1, "a", key=2.5)`` whose arguments are
all plain literals, in a doctest example or in the module's own code, is one such example.
"""

from __future__ import annotations

import ast
import doctest
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from miogen.analysis.survey import statement_walk

PLAIN = (int, float, str, bytes, bool, type(None))
MAX_EXAMPLES = 32  # example calls per unit: seeds, not a suite
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
            found.append((ast.parse(example.source), example.want))
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
                value = _plain(ast.parse(want.strip(), mode="eval").body) if want.strip() else None
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
        for call in _calls(ast.walk(source), name, True):
            found.setdefault(call, None)
    return list(found)[:MAX_EXAMPLES]


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


def _calls(nodes: Iterable[ast.AST], name: str | None, qualified: bool) -> Iterable[ExampleCall]:
    """Calls of ``name`` (None: of any plain name) with plain literal arguments."""
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        called = node.func
        if isinstance(called, ast.Name):
            if name is not None and called.id != name:
                continue
            name_called = called.id
        elif qualified and isinstance(called, ast.Attribute) and called.attr == name:
            name_called = called.attr
        else:
            continue
        try:
            positional = tuple(_plain(arg) for arg in node.args)
            keywords = tuple((k.arg, _plain(k.value)) for k in node.keywords if k.arg is not None)
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
