"""Annotations that name what the sampler cannot build: a class of another module it does not
know (``types.ModuleType``, ``email.message.Message``), or a class object of a class it does not
know. (The ``ast`` module's nodes and ``type[C]`` of a class the module has are built:
testcase.ast_nodes, analysis.typespec; such annotations read as a type and are not opaque.)

Such a parameter reads as ``any``, and the values drawn for it (a string, a bool, a list) type
check nowhere: mypy refuses every call so written. A call that must pass one is left out; one
with a default leaves it out (analysis.enrich marks the parameter ``opaque``).
"""

from __future__ import annotations

import ast

from miogen.analysis.bindings import ASSIGN, FROM, IMPORT, bound_once, resolve, top_level

# Modules whose names annotate protocols and abstract types that plain values satisfy
# (``Hashable``, ``Sized``, ``Number``): not opaque.
TYPING_MODULES = frozenset(
    {"typing", "typing_extensions", "collections", "abc", "numbers", "builtins", "__future__"}
)
CLASS_OBJECTS = frozenset({"type", "Type"})


class OpaqueNames:
    """What a module imports from modules other than the typing ones, and its aliases."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: set[str] = {  # from m import Name
            b.name
            for b in top_level(tree, FROM)
            if b.module and not b.level and b.module.split(".")[0] not in TYPING_MODULES
        }
        self.modules: set[str] = {  # import m
            b.name for b in top_level(tree, IMPORT) if b.module.split(".")[0] not in TYPING_MODULES
        }
        assigned = [b for b in top_level(tree, ASSIGN) if b.sole]
        self.aliases: dict[str, ast.expr] = {
            b.name: b.value
            for b in bound_once(assigned)
            if isinstance(b.value, ast.Subscript | ast.BinOp | ast.Name)
        }

    def opaque(self, annotation: ast.expr | None, depth: int = 0) -> bool:
        """Whether ``annotation`` asks only for what the sampler cannot build."""
        if annotation is None or depth > 5:
            return False
        found = resolve(annotation, self.aliases, 5 - depth)
        if found is None:
            return False
        node, followed = found
        depth += followed
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            return isinstance(node.value, ast.Name) and node.value.id in self.modules
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.opaque(node.left, depth + 1) and self.opaque(node.right, depth + 1)
        if isinstance(node, ast.Subscript):
            base = node.value
            name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
            if name in CLASS_OBJECTS:
                return True
            if name == "Union":
                items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                return all(self.opaque(item, depth + 1) for item in items)
        return False
