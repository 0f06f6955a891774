"""Import statements: what they bind, which are missing, and their isort-like order."""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from miogen.emit.style import Style

FUTURE, STANDARD_LIBRARY, THIRD_PARTY, FIRST_PARTY, LOCAL_FOLDER = range(5)  # isort's sections


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

    def dotted(self) -> str:
        """The module as written after ``from``: leading dots for a relative import."""
        return "." * self.level + self.module

    def statement(self) -> str:
        if self.name is None:
            return f"import {self.imported()}"
        return f"from {self.dotted()} import {self.imported()}"


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


def section_of(item: ImportItem, first_party: frozenset[str] = frozenset()) -> int:
    """isort's sections, in ruff's default order: __future__, standard library, third party,
    first party (the project's own packages), local folder (relative imports)."""
    top = item.module.split(".")[0]
    if item.level:
        return LOCAL_FOLDER
    if top == "__future__":
        return FUTURE
    if top in first_party:
        return FIRST_PARTY
    return STANDARD_LIBRARY if top in sys.stdlib_module_names else THIRD_PARTY


def _name_order(item: ImportItem) -> tuple[int, str, str]:
    """ruff's order-by-type: CONSTANTS, then Classes, then the rest."""
    name = item.name or ""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower(), item.imported()


@dataclass(frozen=True)
class RenderedImport:
    """One import statement's lines, with its isort section and its place in that section."""

    section: int
    key: tuple[int, int, str]
    lines: tuple[str, ...]


def render_imports(items: list[ImportItem], style: Style, *, sections: bool) -> list[str]:
    """Import lines in isort's order; a blank line between sections when ``sections``."""
    lines: list[str] = []
    previous = None
    for rendered in render_statements(items, style):
        if sections and previous is not None and rendered.section != previous:
            lines.append("")
        lines += rendered.lines
        previous = rendered.section
    return lines


def render_statements(items: list[ImportItem], style: Style) -> list[RenderedImport]:
    """The import statements for ``items``, sorted as isort (ruff's ``I`` rules) wants them:
    by section, plain ``import`` before ``from``, then by module, case-insensitively."""
    by_statement: dict[tuple[int, tuple[int, int, str]], list[ImportItem]] = {}
    for item in items:
        section = section_of(item, style.first_party)
        by_statement.setdefault((section, _item_key(item)), []).append(item)
    found = []
    for section, key in sorted(by_statement):
        group = by_statement[section, key]
        if key[0] == 0:
            lines = [i.statement() for i in sorted(set(group), key=lambda i: i.statement())]
        else:
            lines = _render_from(group[0].dotted(), group, style.line_length)
        found.append(RenderedImport(section, key, tuple(lines)))
    return found


def statement_key(node: ast.Import | ast.ImportFrom) -> tuple[int, int, str]:
    """Where an existing import statement sorts within its section (as ``render_statements``)."""
    return _item_key(import_items(node)[0])


def _item_key(item: ImportItem) -> tuple[int, int, str]:
    """Plain imports first, then from-imports; relative ones furthest first (``..`` before
    ``.``), as ruff's default ``relative-imports-order`` has them; then by module."""
    if item.name is None:
        return 0, 0, item.module.lower()
    return 1, -item.level, item.module.lower()


def _render_from(module: str, items: list[ImportItem], line_length: int) -> list[str]:
    """``from m import *``, then the names without ``as`` in one statement, then each aliased
    name in a statement of its own (ruff's default: ``combine-as-imports = false``)."""
    lines = [f"from {module} import *"] if any(i.name == "*" for i in items) else []
    named = sorted({i for i in items if i.name != "*"}, key=_name_order)
    plain = [i.imported() for i in named if i.alias is None]
    statements = [plain] if plain else []
    statements += [[i.imported()] for i in named if i.alias is not None]
    for names in statements:
        line = f"from {module} import {', '.join(names)}"
        if len(line) <= line_length:
            lines.append(line)
        else:
            lines += [f"from {module} import (", *(f"    {n}," for n in names), ")"]
    return lines


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
