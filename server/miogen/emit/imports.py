"""Import statements: what they bind, which are missing, and their isort-like order."""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass

IMPORT_WIDTH = 88  # ruff's default line length: wider from-imports are wrapped


@dataclass(frozen=True)
class ImportItem:
    """One imported name: ``import module [as alias]`` or ``from module import name [as alias]``."""

    module: str
    name: str | None = None  # None for ``import module``; "*" for a star import
    alias: str | None = None
    level: int = 0  # leading dots of a relative import

    @property
    def bound(self) -> str | None:
        """The name this import binds in the namespace (None for a star import)."""
        if self.name is None:
            return self.alias or self.module.split(".")[0]
        return None if self.name == "*" else self.alias or self.name

    @property
    def is_plain(self) -> bool:
        return self.name is None and self.alias is None

    def imported(self) -> str:
        """What follows ``import``: ``name`` or ``name as alias``."""
        name = self.name or self.module
        return name if self.alias is None else f"{name} as {self.alias}"

    def statement(self) -> str:
        if self.name is None:
            return f"import {self.imported()}"
        return f"from {'.' * self.level}{self.module} import {self.imported()}"


def import_items(node: ast.Import | ast.ImportFrom) -> list[ImportItem]:
    if isinstance(node, ast.Import):
        return [ImportItem(a.name, None, _alias(a.name, a.asname)) for a in node.names]
    module = node.module or ""
    return [ImportItem(module, a.name, _alias(a.name, a.asname), node.level) for a in node.names]


def _alias(name: str, asname: str | None) -> str | None:
    return None if asname == name else asname


def parse_imports(imports: Sequence[str]) -> list[ImportItem]:
    items: list[ImportItem] = []
    for line in imports:
        try:
            body = ast.parse(line).body
        except SyntaxError as error:
            raise ValueError(f"not an import statement: {line!r}") from error
        for node in body:
            if not isinstance(node, ast.Import | ast.ImportFrom):
                raise ValueError(f"not an import statement: {line!r}")
            items += import_items(node)
    return items


def _satisfies(have: ImportItem, want: ImportItem) -> bool:
    """Whether ``have`` already gives what ``want`` would (``import a.b`` gives ``import a``)."""
    if want.is_plain and have.is_plain:
        return have.module == want.module or have.module.startswith(want.module + ".")
    return have == want


def _rebinds(want: ImportItem, have: ImportItem) -> bool:
    """Whether adding ``want`` would rebind the name ``have`` binds to something else."""
    if want.bound is None or want.bound != have.bound:
        return False
    return not (want.is_plain and have.is_plain)  # ``import a.b`` after ``import a``: same ``a``


def select_imports(
    wanted: list[ImportItem], have: list[ImportItem], other_names: set[str]
) -> tuple[list[ImportItem], list[ImportItem]]:
    """The imports to add, and those left out because their name is already bound otherwise."""
    known, added, conflicts = list(have), [], []
    for item in wanted:
        if any(_satisfies(h, item) for h in known) or item in conflicts:
            continue
        if item.bound in other_names or any(_rebinds(item, h) for h in known):
            conflicts.append(item)
            continue
        added.append(item)
        known.append(item)
    return added, conflicts


def section_of(item: ImportItem) -> int:
    """isort-like sections: __future__, standard library, everything else, relative."""
    top = item.module.split(".")[0]
    if item.level:
        return 3
    if top == "__future__":
        return 0
    return 1 if top in sys.stdlib_module_names else 2


def _name_order(item: ImportItem) -> tuple[int, str, str]:
    """ruff's order-by-type: CONSTANTS, then Classes, then the rest."""
    name = item.name or ""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower(), item.imported()


def render_imports(items: list[ImportItem], *, sections: bool) -> list[str]:
    """Import lines in isort-like order; a blank line between sections when ``sections``."""
    lines: list[str] = []
    for section in sorted({section_of(i) for i in items}):
        if lines and sections:
            lines.append("")
        lines += _render_section([i for i in items if section_of(i) == section])
    return lines


def _render_section(items: list[ImportItem]) -> list[str]:
    plain = sorted(
        {i for i in items if i.name is None}, key=lambda i: (i.module.lower(), i.statement())
    )
    lines = [i.statement() for i in plain]
    by_module: dict[tuple[int, str], list[ImportItem]] = {}
    for item in items:
        if item.name is not None:
            by_module.setdefault((item.level, item.module), []).append(item)
    for level, module in sorted(by_module, key=lambda k: (k[1].lower(), k[0])):
        lines += _render_from(f"{'.' * level}{module}", by_module[level, module])
    return lines


def _render_from(module: str, items: list[ImportItem]) -> list[str]:
    lines = [f"from {module} import *"] if any(i.name == "*" for i in items) else []
    names = [i.imported() for i in sorted(set(items), key=_name_order) if i.name != "*"]
    if not names:
        return lines
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= IMPORT_WIDTH:
        return [*lines, line]
    return [*lines, f"from {module} import (", *(f"    {n}," for n in names), ")"]


def module_scope(tree: ast.Module) -> tuple[list[ImportItem], set[str]]:
    """Imports run at module level (also under if/try/with), and other names bound there."""
    items: list[ImportItem] = []
    names: set[str] = set()
    _collect_scope(tree, items, names)
    return items, names


def _collect_scope(node: ast.AST, items: list[ImportItem], names: set[str]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            items += import_items(child)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(child.name)
        elif isinstance(child, ast.Lambda | ast.comprehension):
            continue
        else:
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif isinstance(child, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and child.name:
                names.add(child.name)
            _collect_scope(child, items, names)
