"""Where new imports go in an existing file: each where isort would put it, by insertion only.

The file's own import lines are never touched. A new import goes into the leading run of
top-level imports at its isort place: among the statements of its section, or as a new section
between the others (blank lines around it). ``__future__`` imports go first; a file without
imports gets a new block after its docstring.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass

from miogen.emit.imports import (
    FUTURE,
    ImportItem,
    RenderedImport,
    import_items,
    render_imports,
    render_statements,
    section_of,
    statement_key,
)
from miogen.emit.source import ExistingModule, first_row, is_docstring, is_future
from miogen.emit.style import Style
from miogen.emit.text import BOM, line_ending

ImportNode = ast.Import | ast.ImportFrom


def import_inserts(
    module: ExistingModule, items: list[ImportItem], style: Style
) -> list[tuple[int, str]]:
    """(offset, text) inserts that add ``items`` to the file's imports."""
    future = [i for i in items if section_of(i) == FUTURE]
    others = [i for i in items if section_of(i) != FUTURE]
    inserts = []
    if future:
        inserts.append(_import_block(module, _future_anchor(module), future, style))
    run = _import_run(module, style)
    if others and run:
        inserts += _sorted_into(module, run, render_statements(others, style), style)
    elif others:
        inserts.append(_import_block(module, _new_block_anchor(module), others, style))
    return inserts


@dataclass(frozen=True)
class _Existing:
    """An import statement of the file, where isort puts it."""

    node: ImportNode
    section: int
    key: tuple[int, int, str]


def _import_run(module: ExistingModule, style: Style) -> list[_Existing]:
    """The first run of consecutive top-level import statements, __future__ ones left out."""
    body = [n for n in module.tree.body if not is_future(n)]
    start = next((i for i, n in enumerate(body) if isinstance(n, ImportNode)), None)
    if start is None:
        return []
    run: list[ImportNode] = []
    for node in body[start:]:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        run.append(node)
    return [
        _Existing(node, section_of(import_items(node)[0], style.first_party), statement_key(node))
        for node in run
    ]


def _sorted_into(
    module: ExistingModule, run: list[_Existing], new: list[RenderedImport], style: Style
) -> list[tuple[int, str]]:
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


def _place(run: list[_Existing], statement: RenderedImport) -> tuple[bool, int]:
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
    module: ExistingModule, anchor: _Anchor, items: list[ImportItem], style: Style
) -> tuple[int, str]:
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
