"""What a type checker sees of an overloaded function whose implementation takes ``*args``.

``def scanl(func, iterable, *args)`` after ``@overload`` stubs ``(func, iterable)`` and
``(func, iterable, initial: B)``; ``Range.__init__(self, *args)`` after ``(stop: int)``,
``(start: int, stop: int)``, ``(start: int, stop: int, step: int)``. A checker reads only the
stubs: calls written from the implementation (any number of anything for ``*args``) run, yet
match no overload. The parameters become those of the longest stub, each by position (``*args``
takes no keyword), those past the shortest stub's count optional, of the stubs' types.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from miogen.analysis.model import Parameter, Signature
from miogen.analysis.survey import decorator_names
from miogen.analysis.typespec import TypeReader

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
WITH_RECEIVER = ("method", "classmethod", "property", "constructor", "operator", "setter")


def overload_stubs(tree: ast.Module) -> dict[int, list[FunctionNode]]:
    """id(implementation) -> its ``@overload`` stubs, for the module's functions and the
    methods of its classes (nested ones too)."""
    found: dict[int, list[FunctionNode]] = {}
    bodies = [tree.body]
    while bodies:
        body = bodies.pop()
        stubs: dict[str, list[FunctionNode]] = {}
        for node in body:
            if isinstance(node, ast.ClassDef):
                bodies.append(node.body)
            elif isinstance(node, FunctionNode):
                if "overload" in decorator_names(node):
                    stubs.setdefault(node.name, []).append(node)
                elif stubs.get(node.name):
                    found[id(node)] = stubs.pop(node.name)
    return found


def as_overloaded(
    signature: Signature, node: FunctionNode, stubs: list[FunctionNode], reader: TypeReader
) -> Signature:
    """``signature`` (of ``node``) as its stubs give it, when ``node`` takes an unannotated
    ``*args`` and every stub takes plain positional parameters only; else unchanged."""
    vararg = node.args.vararg
    if vararg is None and stubs:
        return _by_keywords(signature, node, stubs, reader)
    if vararg is None or vararg.annotation is not None or not stubs:
        return signature
    if any(s.args.vararg or s.args.kwarg or s.args.kwonlyargs for s in stubs):
        return signature
    skip = 1 if signature.kind in WITH_RECEIVER else 0
    shapes = [(s.args.posonlyargs + s.args.args)[skip:] for s in stubs]
    if any(len(s.args.defaults) for s in stubs):
        return signature
    longest = max(shapes, key=len)
    required = min(len(shape) for shape in shapes)
    params = tuple(
        Parameter(
            "/" + argument.arg,
            reader.read(argument.annotation),
            has_default=index >= required,
            annotated=argument.annotation is not None,
        )
        for index, argument in enumerate(longest)
    )
    return replace(signature, params=params)


def _by_keywords(
    signature: Signature, node: FunctionNode, stubs: list[FunctionNode], reader: TypeReader
) -> Signature:
    """``def split_by(iterable, empty_segments=False, *, criterion=None, separator=None)``
    after stubs that each require some of its keyword-only parameters (``*, criterion:
    Callable[[A], bool]`` in one, ``*, separator: A`` in the other): each unannotated
    keyword-only parameter takes the type a stub gives it, and ``overload_keywords`` keeps
    the sets the stubs require (a call passing another set matches none)."""
    own = {argument.arg for argument in node.args.kwonlyargs}
    required: list[frozenset[str]] = []
    given: dict[str, ast.expr] = {}
    for stub in stubs:
        names = {argument.arg for argument in stub.args.kwonlyargs}
        if not names or not names <= own or stub.args.vararg or stub.args.kwarg:
            return signature
        defaults = stub.args.kw_defaults
        required.append(
            frozenset(
                a.arg for a, d in zip(stub.args.kwonlyargs, defaults, strict=True) if d is None
            )
        )
        for argument in stub.args.kwonlyargs:
            if argument.annotation is not None:
                given.setdefault(argument.arg, argument.annotation)
    if len(set(required)) < 2:
        return signature
    params = tuple(
        replace(p, type=reader.read(given[p.name]), annotated=True)
        if p.keyword_only and not p.annotated and p.name in given
        else p
        for p in signature.params
    )
    return replace(signature, params=params, overload_keywords=tuple(dict.fromkeys(required)))
