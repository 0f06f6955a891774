"""The import lines a merge adds: rendered in isort's order, each where isort would put it.

Works from ``emit.imports``' plan and the tests' placement: an import that only tests already
in the file (skipped) would use is left out. In a new file the imports are one block, a blank
line between sections. In an existing file, by insertion only: the file's own import lines
are never touched. A new import goes into the leading run of
top-level imports at its isort place: among the statements of its section, or as a new section
between the others (blank lines around it). ``__future__`` imports go first; a file without
imports gets a new block after its docstring.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass

from miogen.emit.imports import FUTURE, ExistingImport, ImportItem, ImportPlan, Key, Sorted
from miogen.emit.placement import Placement
from miogen.emit.source import ExistingModule
from miogen.emit.statements import first_row, is_docstring, is_future
from miogen.emit.style import Style
from miogen.emit.text import BOM, line_ending

Insert = tuple[int, str]  # (offset, text): new text at an offset of the file's text


def import_inserts(
    module: ExistingModule | None, plan: ImportPlan, placement: Placement, style: Style
) -> list[Insert]:
    """(offset, text) inserts that add the plan's imports to ``module``'s; for a new file
    (None), the block of import lines at offset 0, without its last line ending."""
    items = [i for i in plan.added if i.item.bound not in placement.only_skipped]
    if module is None:
        block = "\n".join(render_imports(items, style, sections=True))
        return [(0, block)] if block else []
    future = [i for i in items if i.section == FUTURE]
    others = [i for i in items if i.section != FUTURE]
    inserts = []
    if future:
        inserts.append(_import_block(module, _future_anchor(module), future, style))
    run = plan.run
    if others and run:
        inserts += _sorted_into(module, run, render_statements(others, style))
    elif others:
        inserts.append(_import_block(module, _new_block_anchor(module), others, style))
    return inserts


def _sorted_into(
    module: ExistingModule, run: list[ExistingImport], new: list[RenderedImport]
) -> list[Insert]:
    """Each new statement before the first of its section that sorts after it, else after the
    last of its section; a statement of a section the file lacks goes before the first later
    section, else after the run, with a blank line between it and its neighbours' sections."""
    places: dict[tuple[bool, int], list[RenderedImport]] = {}
    for statement in new:
        places.setdefault(_place(run, statement), []).append(statement)
    inserts = []
    for (before, index), group in places.items():
        neighbour = run[index]
        if before:
            row = module.row_before(module.above_comments(first_row(neighbour.node)))
        else:
            row = module.row_after(neighbour.node.end_lineno or neighbour.node.lineno)
        offset, needs_break = module.offset_after(row)
        ending = line_ending(module.text, offset)
        lines = _lines_between(group, neighbour.section, before)
        inserts.append((offset, ending * needs_break + "".join(line + ending for line in lines)))
    return inserts


def _place(run: list[ExistingImport], statement: RenderedImport) -> tuple[bool, int]:
    """(before, index): next to which statement of ``run`` the new one goes."""
    same = [i for i, e in enumerate(run) if e.section == statement.section]
    if same:
        later = [i for i in same if run[i].key > statement.key]
        return (True, later[0]) if later else (False, same[-1])
    later = [i for i, e in enumerate(run) if e.section > statement.section]
    return (True, later[0]) if later else (False, len(run) - 1)


def _lines_between(group: list[RenderedImport], neighbour: int, before: bool) -> list[str]:
    """The group's lines, a blank line wherever the section changes (the neighbour's too)."""
    lines: list[str] = []
    previous = None if before else neighbour
    for statement in group:
        if previous is not None and statement.section != previous:
            lines.append("")
        lines += statement.lines
        previous = statement.section
    if before and previous != neighbour:
        lines.append("")
    return lines


@dataclass(frozen=True)
class _Anchor:
    """Where new imports go: after ``row``; ``joins`` when that row ends an existing import."""

    row: int
    joins: bool


def _future_anchor(module: ExistingModule) -> _Anchor:
    futures = _futures(module)
    if futures:
        return _Anchor(module.row_after(futures[-1].end_lineno or 0), joins=True)
    return _top_anchor(module)


def _new_block_anchor(module: ExistingModule) -> _Anchor:
    """A block of its own: after the __future__ imports, else at the top."""
    futures = _futures(module)
    if futures:
        return _Anchor(module.row_after(futures[-1].end_lineno or 0), joins=False)
    return _top_anchor(module)


def _futures(module: ExistingModule) -> list[ast.stmt]:
    body = module.tree.body
    start = 1 if body and is_docstring(body[0]) else 0
    return list(itertools.takewhile(is_future, body[start:]))


def _top_anchor(module: ExistingModule) -> _Anchor:
    """After the module docstring, else above the first statement and its comments, else at the end."""
    body = module.tree.body
    if body and is_docstring(body[0]):
        return _Anchor(module.row_after(body[0].end_lineno or 0), joins=False)
    if body:
        return _Anchor(module.row_before(module.above_comments(first_row(body[0]))), joins=False)
    return _Anchor(module.lines.rows, joins=False)


def _import_block(
    module: ExistingModule, anchor: _Anchor, items: list[Sorted], style: Style
) -> Insert:
    offset, needs_break = module.offset_after(anchor.row)
    ending = line_ending(module.text, offset)
    lines = render_imports(items, style, sections=not anchor.joins)
    if not anchor.joins:
        lines = [""] * (0 < anchor.row and not module.is_blank(anchor.row)) + lines
        lines += [""] * _blank_lines_before(module, anchor.row + 1)
    return offset, ending * needs_break + "".join(line + ending for line in lines)


def _blank_lines_before(module: ExistingModule, row: int) -> int:
    """Blank lines a new import block needs above ``row``: two above a def or class, as ruff wants."""
    if row > module.lines.rows or module.is_blank(row):
        return 0
    while row in module.comment_rows:
        row += 1
    if row > module.lines.rows:
        return 1
    statement = module.lines.content(row).removeprefix(BOM)
    return 2 if re.match(r"(@|def |class |async def )", statement) else 1


# --- the lines of import statements ------------------------------------------------------


def _name_order(item: ImportItem) -> tuple[int, str, str]:
    """ruff's order-by-type: CONSTANTS, then Classes, then the rest."""
    name = item.name or ""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower(), item.imported()


@dataclass(frozen=True)
class RenderedImport:
    """One import statement's lines, with its isort section and its place in that section."""

    section: int
    key: Key
    lines: tuple[str, ...]


def render_imports(items: list[Sorted], style: Style, *, sections: bool) -> list[str]:
    """Import lines in isort's order; a blank line between sections when ``sections``."""
    lines: list[str] = []
    previous = None
    for rendered in render_statements(items, style):
        if sections and previous is not None and rendered.section != previous:
            lines.append("")
        lines += rendered.lines
        previous = rendered.section
    return lines


def render_statements(items: list[Sorted], style: Style) -> list[RenderedImport]:
    """The import statements for ``items``, sorted as isort (ruff's ``I`` rules) wants them:
    by section, plain ``import`` before ``from``, then by module, case-insensitively."""
    by_statement: dict[tuple[int, Key], list[ImportItem]] = {}
    for sorted_item in items:
        by_statement.setdefault((sorted_item.section, sorted_item.key), []).append(sorted_item.item)
    found = []
    for section, key in sorted(by_statement):
        group = by_statement[section, key]
        if key[0] == 0:
            lines = [i.statement() for i in sorted(set(group), key=lambda i: i.statement())]
        else:
            lines = _render_from(group[0].dotted(), group, style.line_length)
        found.append(RenderedImport(section, key, tuple(lines)))
    return found


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
