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

from miogen.common.syntax import parse_expression

# Modules whose names annotate protocols and abstract types that plain values satisfy
# (``Hashable``, ``Sized``, ``Number``): not opaque.
TYPING_MODULES = frozenset(
    {"typing", "typing_extensions", "collections", "abc", "numbers", "builtins", "__future__"}
)
CLASS_OBJECTS = frozenset({"type", "Type"})


class OpaqueNames:
    """What a module imports from modules other than the typing ones, and its aliases."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: set[str] = set()  # from m import Name
        self.modules: set[str] = set()  # import m
        self.aliases: dict[str, ast.expr] = {}
        bound: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if node.module.split(".")[0] not in TYPING_MODULES:
                    self.names |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] not in TYPING_MODULES:
                        self.modules.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name):
                    if target.id in bound:
                        self.aliases.pop(target.id, None)
                    elif isinstance(node.value, ast.Subscript | ast.BinOp | ast.Name):
                        self.aliases[target.id] = node.value
                    bound.add(target.id)

    def opaque(self, annotation: ast.expr | None, depth: int = 0) -> bool:
        """Whether ``annotation`` asks only for what the sampler cannot build."""
        if annotation is None or depth > 5:
            return False
        node = annotation
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = parse_expression(node.value).body
            except SyntaxError:
                return False
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.opaque(self.aliases[node.id], depth + 1)
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
