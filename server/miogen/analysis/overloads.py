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
