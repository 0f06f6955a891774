"""The merged file's text: the header, the import lines and the tests, each in its place.

Works from the parts before it: the parsed file (``emit.source``), the imports to add with
their isort places (``emit.imports``) and the tests placed (``emit.placement``); it calls no
other part. An import that only tests already in the file (skipped) would use is left out.

A new file is the header, the imports (a blank line between isort's sections) and the tests,
blank lines between them as ruff formats them. Into an existing file every piece is an insert
(the user's lines stay as they are). A new import goes into the leading run of top-level
imports at its isort place: among the statements of its section, or as a new section between
the others (blank lines around it); ``__future__`` imports go first; a file without imports
gets a new block after its docstring. The tests go at the end, or above a trailing
``if __name__ == "__main__":``. The result must parse and define every added test at top
level, else the file is not merged into (``UnmergeableFile``).
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
import textwrap
from dataclasses import dataclass

from miogen.common.syntax import parse
from miogen.emit.imports import FUTURE, ExistingImport, ImportItem, ImportPlan, Key, Sorted
from miogen.emit.placement import Placement
from miogen.emit.source import ExistingModule, UnmergeableFile
from miogen.emit.style import Style
from miogen.emit.text import BOM, LINE_BREAK, Lines, TextEdit

Insert = tuple[int, str]  # (offset, text): new text at an offset of the file's text


def merged_text(
    module: ExistingModule | None, plan: ImportPlan, placement: Placement, header: str, style: Style
) -> tuple[str, list[TextEdit]]:
    """The text of ``module`` (None: a new file, ``header`` at its top) with the plan's imports
    and the placed tests in, and the insert-only edits that make it."""
    items = [i for i in plan.added if i.item.bound not in placement.only_skipped]
    if module is None:
        imports = "\n".join(render_imports(items, style, sections=True))
        text = _new_module(header, imports, placement, style)
        return text, [TextEdit(0, 0, 0, 0, text)] if text else []
    inserts: dict[int, str] = {}
    for offset, text in _import_inserts(module, plan.run, items, style):
        _insert(inserts, offset, text)
    if placement.sources:
        _insert(inserts, *_tests_block(module, inserts, placement.sources))
    text = _splice(module.text, inserts)
    _check_merged(text, placement.added)
    return text, _edits(module.lines, inserts)


def _import_inserts(
    module: ExistingModule, run: list[ExistingImport], items: list[Sorted], style: Style
) -> list[Insert]:
    """(offset, text) inserts that add ``items`` to the file's imports."""
    future = [i for i in items if i.section == FUTURE]
    others = [i for i in items if i.section != FUTURE]
    inserts = []
    if future:
        inserts.append(_import_block(module, _future_anchor(module), future, style))
    if others and run:
        inserts += _sorted_into(module, run, render_statements(others, style))
    elif others:
        inserts.append(_import_block(module, _new_block_anchor(module), others, style))
    return inserts


def _new_module(header: str, imports: str, placement: Placement, style: Style) -> str:
    blocks = [
        (_header_block(header, style.line_length), 1),
        (imports, 1),
        *((source.rstrip("\n"), 2) for source in placement.sources),
    ]
    text = ""
    for block, blank_lines in blocks:
        if block:
            text = text + "\n" * (blank_lines + 1) + block if text else block
    return f"{text}\n" if text else ""


def _header_block(header: str, line_length: int) -> str:
    """``header`` as a module docstring or comment, whichever it already is; plain text -> docstring.

    A one-line docstring too long for a line is wrapped, its closing quotes on a line of their own;
    so is a comment line, each piece a comment (E501 holds comments to the line length too).
    """
    text = header.strip()
    if not text or all(line.lstrip().startswith("#") for line in text.splitlines()):
        return "\n".join(_wrapped_comment(line, line_length) for line in text.splitlines())
    try:
        tree = parse(text)
    except SyntaxError:
        tree = ast.Module([], [])
    if not (len(tree.body) == 1 and ast.get_docstring(tree, clean=False) is not None):
        if '"""' in text or "\\" in text or text.endswith('"'):
            return "\n".join(f"# {line}".rstrip() for line in text.splitlines())
        text = f'"""{text}"""'
    one_line = re.fullmatch(r'"""([^"\\\n]*)"""', text)
    if one_line and len(text) > line_length:
        wrapped = textwrap.wrap(one_line.group(1), width=line_length - 3, break_long_words=False)
        return '"""' + "\n".join(wrapped) + '\n"""'
    return text


def _wrapped_comment(line: str, line_length: int) -> str:
    """``# words...`` in lines of at most ``line_length`` characters where the words allow it."""
    if len(line) <= line_length or line.startswith("#!"):
        return line
    indent = line[: len(line) - len(line.lstrip())]
    words = line.lstrip().removeprefix("#").strip()
    width = max(1, line_length - len(indent) - 2)
    pieces = textwrap.wrap(words, width=width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(f"{indent}# {piece}" for piece in pieces) or line


def _insert(inserts: dict[int, str], offset: int, text: str) -> None:
    inserts[offset] = inserts.get(offset, "") + text


def _splice(text: str, inserts: dict[int, str]) -> str:
    pieces, cursor = [], 0
    for offset in sorted(inserts):
        pieces += [text[cursor:offset], inserts[offset]]
        cursor = offset
    return "".join(pieces) + text[cursor:]


def _edits(lines: Lines, inserts: dict[int, str]) -> list[TextEdit]:
    edits = []
    for offset in sorted(inserts):
        line, character = _position(lines, offset)
        edits.append(TextEdit(line, character, line, character, inserts[offset]))
    return edits


def _tests_block(
    module: ExistingModule, inserts: dict[int, str], sources: list[str]
) -> tuple[int, str]:
    """The tests at the end of the file, or above a trailing ``if __name__ == "__main__":``."""
    body = module.tree.body
    guarded = bool(body) and _is_main_guard(body[-1])
    if guarded:
        offset, _ = _offset_after(
            module, _row_before(module, _above_comments(module, body[-1].lineno))
        )
    else:
        offset = len(module.text)
    ending = line_ending(module.text, offset)
    before = _splice(module.text[:offset], {o: t for o, t in inserts.items() if o <= offset})
    open_line = before.replace(BOM, "") and not LINE_BREAK.search(before[-1])
    text = ending if open_line else ""
    if (before + text).replace(BOM, "").strip():
        text += ending * max(0, 2 - trailing_blank_lines(before + text))
    text += (ending * 2).join(source.replace("\n", ending) for source in sources)
    return offset, text + ending * 2 * guarded


def _check_merged(text: str, added: list[str]) -> None:
    """A last guard: the merged file parses and defines every added test at top level."""
    try:
        tree = parse(text.removeprefix(BOM))
    except (SyntaxError, ValueError) as error:
        raise UnmergeableFile(f"merging would break the file: {error}") from error
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if missing := set(added) - defined:
        raise UnmergeableFile(f"merged tests did not land at top level: {sorted(missing)}")


# --- imports into an existing file ------------------------------------------------------


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
            row = _row_before(module, _above_comments(module, _first_row(neighbour.node)))
        else:
            row = _row_after(module, neighbour.node.end_lineno or neighbour.node.lineno)
        offset, needs_break = _offset_after(module, row)
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
        return _Anchor(_row_after(module, futures[-1].end_lineno or 0), joins=True)
    return _top_anchor(module)


def _new_block_anchor(module: ExistingModule) -> _Anchor:
    """A block of its own: after the __future__ imports, else at the top."""
    futures = _futures(module)
    if futures:
        return _Anchor(_row_after(module, futures[-1].end_lineno or 0), joins=False)
    return _top_anchor(module)


def _futures(module: ExistingModule) -> list[ast.stmt]:
    """The file's leading ``__future__`` imports (after its docstring)."""
    body = module.tree.body[1 if module.docstring else 0 :]
    return list(itertools.takewhile(lambda node: node in module.futures, body))


def _top_anchor(module: ExistingModule) -> _Anchor:
    """After the module docstring, else above the first statement and its comments, else at the end."""
    body = module.tree.body
    if module.docstring:
        return _Anchor(_row_after(module, body[0].end_lineno or 0), joins=False)
    if body:
        return _Anchor(
            _row_before(module, _above_comments(module, _first_row(body[0]))), joins=False
        )
    return _Anchor(module.lines.rows, joins=False)


def _import_block(
    module: ExistingModule, anchor: _Anchor, items: list[Sorted], style: Style
) -> Insert:
    offset, needs_break = _offset_after(module, anchor.row)
    ending = line_ending(module.text, offset)
    lines = render_imports(items, style, sections=not anchor.joins)
    if not anchor.joins:
        lines = [""] * (0 < anchor.row and not _is_blank(module, anchor.row)) + lines
        lines += [""] * _blank_lines_before(module, anchor.row + 1)
    return offset, ending * needs_break + "".join(line + ending for line in lines)


def _blank_lines_before(module: ExistingModule, row: int) -> int:
    """Blank lines a new import block needs above ``row``: two above a def or class, as ruff wants."""
    if row > module.lines.rows or _is_blank(module, row):
        return 0
    while row in module.comment_rows:
        row += 1
    if row > module.lines.rows:
        return 1
    statement = _content(module.lines, row).removeprefix(BOM)
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


# --- rows and offsets of the existing file ---------------------------------------------


def _offset_after(module: ExistingModule, row: int) -> tuple[int, bool]:
    """Where a line inserted after ``row`` starts, and whether a line break must come first."""
    if row == 0:
        return int(module.text.startswith(BOM)), False
    if row < len(module.lines.starts):
        return module.lines.starts[row], False
    return len(module.text), True


def _row_before(module: ExistingModule, row: int) -> int:
    """The last safe row before ``row``: inserting after it puts lines just above ``row``."""
    row -= 1
    while row > module.protected_rows and row not in module.safe_rows:
        row -= 1
    return row


def _row_after(module: ExistingModule, row: int) -> int:
    """The first safe row from ``row`` on: the end of the logical line holding ``row``."""
    while row < module.lines.rows and row not in module.safe_rows:
        row += 1
    return row


def _above_comments(module: ExistingModule, row: int) -> int:
    """The first row of the column-0 comment block right above ``row``, unless it is a header."""
    top = row
    while top > 1 and top - 1 in module.comment_rows:
        top -= 1
    return row if top <= max(1, module.protected_rows) else top


def _content(lines: Lines, row: int) -> str:
    return lines.text[lines.starts[row - 1] : lines.ends[row - 1]]


def _is_blank(module: ExistingModule, row: int) -> bool:
    return (
        1 <= row <= module.lines.rows and not _content(module.lines, row).replace(BOM, "").strip()
    )


def _position(lines: Lines, offset: int) -> tuple[int, int]:
    line = bisect.bisect_right(lines.starts, offset) - 1
    return line, offset - lines.starts[line]


def _first_row(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def line_ending(text: str, offset: int) -> str:
    """The line break for lines inserted at ``offset``: the one of the line above, else the
    file's first; never a lone CR right before an LF, which would fuse into one break."""
    above = text[max(0, offset - 2) : offset]
    if above == "\r\n":
        ending = above
    elif above[-1:] in ("\r", "\n"):
        ending = above[-1]
    else:
        first = LINE_BREAK.search(text)
        ending = first.group() if first else "\n"
    return "\r\n" if ending == "\r" and text[offset : offset + 1] == "\n" else ending


def trailing_blank_lines(text: str) -> int:
    """Blank lines at the end of ``text``, which ends with a line break."""
    count = 0
    for line in reversed(LINE_BREAK.split(text)[:-1]):
        if line.replace(BOM, "").strip():
            break
        count += 1
    return count


def _is_main_guard(node: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` (either way round)."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    values = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and values == ["__main__"]
