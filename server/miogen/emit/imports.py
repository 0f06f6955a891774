"""Import statements: what they bind, which a file lacks, and where isort sorts them.

``plan_imports`` reads the imports a merge wants (their statements, parsed with the file by
``emit.source``) and the file's own, once: the imports to add
(each with its isort section and place in it), those left out, the names bound at module level
once they are in, and the file's leading run of imports. ``emit.import_places`` writes the
lines from that plan; nothing comes back here.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from miogen.emit.source import ExistingModule, ImportNode
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


def statement_key(node: ast.Import | ast.ImportFrom) -> Key:
    """Where an existing import statement sorts within its section (as a new one would)."""
    return _item_key(import_items(node)[0])


def _item_key(item: ImportItem) -> Key:
    """Plain imports first, then from-imports; relative ones furthest first (``..`` before
    ``.``), as ruff's default ``relative-imports-order`` has them; then by module."""
    if item.name is None:
        return 0, 0, item.module.lower()
    return 1, -item.level, item.module.lower()


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


Key = tuple[int, int, str]  # where a statement sorts within its section (``_item_key``)


@dataclass(frozen=True)
class Sorted:
    """An import to add, with its isort section and where it sorts within it."""

    item: ImportItem
    section: int
    key: Key


@dataclass(frozen=True)
class ExistingImport:
    """An import statement of the file, where isort puts it."""

    node: ImportNode
    section: int
    key: Key


@dataclass(frozen=True)
class ImportPlan:
    """What a merge does with imports, decided before the tests are placed."""

    added: list[Sorted]  # in the order wanted
    conflicts: list[str]  # statements left out: name bound otherwise, or a new __future__
    taken: set[str]  # names bound at module level once ``added`` is in
    run: list[ExistingImport]  # the file's first run of top-level imports, __future__ left out


def plan_imports(
    statements: Sequence[ImportNode], module: ExistingModule | None, style: Style
) -> ImportPlan:
    """The plan for adding the import ``statements`` (``style``'s required imports among them,
    parsed with the file: ``source.parse_merge``) to ``module`` (None: a new file): what it
    lacks, what would rebind a name or change how its code compiles."""
    wanted = [item for node in statements for item in import_items(node)]
    have: list[ImportItem] = []
    other_names: set[str] = set()
    refused: list[ImportItem] = []
    if module is not None:
        wanted, refused = _refuse_new_futures(module, wanted)
        have, other_names = module_scope(module.tree)
    added, conflicts = select_imports(wanted, have, other_names)
    conflicts = [*dict.fromkeys([*refused, *conflicts])]
    return ImportPlan(
        added=[Sorted(i, section_of(i, style.first_party), _item_key(i)) for i in added],
        conflicts=[c.statement() for c in conflicts],
        taken=other_names | {i.bound for i in (*have, *added) if i.bound},
        run=_import_run(module, style) if module is not None else [],
    )


def _refuse_new_futures(
    module: ExistingModule, wanted: list[ImportItem]
) -> tuple[list[ImportItem], list[ImportItem]]:
    """Leave out __future__ imports the file lacks: they would change how its code compiles."""
    if len(module.tree.body) - module.docstring == len(module.futures):
        return wanted, []  # nothing but __future__ imports (and a docstring) to change
    have = {
        item
        for node in module.futures
        if isinstance(node, ast.ImportFrom)
        for item in import_items(node)
    }
    refused = [i for i in wanted if section_of(i) == FUTURE and i not in have]
    return [i for i in wanted if i not in refused], refused


def _import_run(module: ExistingModule, style: Style) -> list[ExistingImport]:
    """The first run of consecutive top-level import statements, __future__ ones left out."""
    body = [n for n in module.tree.body if n not in module.futures]
    start = next((i for i, n in enumerate(body) if isinstance(n, ImportNode)), None)
    if start is None:
        return []
    run: list[ImportNode] = []
    for node in body[start:]:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        run.append(node)
    return [
        ExistingImport(
            node, section_of(import_items(node)[0], style.first_party), statement_key(node)
        )
        for node in run
    ]
