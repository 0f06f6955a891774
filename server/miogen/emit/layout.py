"""The merged file's text: the header, the import lines and the tests, each in its place.

A new file is the header, the imports and the tests, blank lines between them as ruff formats
them. Into an existing file every piece is an insert (the user's lines stay as they are): the
imports where ``emit.import_places`` puts them, the tests at the end, or above a trailing
``if __name__ == "__main__":``. The result must parse and define every added test at top level,
else the file is not merged into (``UnmergeableFile``).
"""

from __future__ import annotations

import ast
import re
import textwrap

from miogen.emit.placement import Placement
from miogen.emit.source import ExistingModule, UnmergeableFile
from miogen.emit.statements import is_docstring, is_main_guard
from miogen.emit.style import Style
from miogen.emit.text import BOM, LINE_BREAK, Lines, TextEdit, line_ending, trailing_blank_lines

Insert = tuple[int, str]  # (offset, text): new text at an offset of the file's text


def merged_text(
    module: ExistingModule | None,
    imports: list[Insert],
    placement: Placement,
    header: str,
    style: Style,
) -> tuple[str, list[TextEdit]]:
    """The text of ``module`` (None: a new file, ``header`` at its top) with ``imports`` (for a
    new file, one block) and the placed tests in, and the insert-only edits that make it."""
    if module is None:
        text = _new_module(header, "".join(block for _, block in imports), placement, style)
        return text, [TextEdit(0, 0, 0, 0, text)] if text else []
    inserts: dict[int, str] = {}
    for offset, text in imports:
        _insert(inserts, offset, text)
    if placement.sources:
        _insert(inserts, *_tests_block(module, inserts, placement.sources))
    text = _splice(module.text, inserts)
    _check_merged(text, placement.added)
    return text, _edits(module.lines, inserts)


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
        body = ast.parse(text).body
    except SyntaxError:
        body = []
    if not (len(body) == 1 and is_docstring(body[0])):
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
        line, character = lines.position(offset)
        edits.append(TextEdit(line, character, line, character, inserts[offset]))
    return edits


def _tests_block(
    module: ExistingModule, inserts: dict[int, str], sources: list[str]
) -> tuple[int, str]:
    """The tests at the end of the file, or above a trailing ``if __name__ == "__main__":``."""
    body = module.tree.body
    guarded = bool(body) and is_main_guard(body[-1])
    if guarded:
        offset, _ = module.offset_after(module.row_before(module.above_comments(body[-1].lineno)))
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
        tree = ast.parse(text.removeprefix(BOM))
    except (SyntaxError, ValueError) as error:
        raise UnmergeableFile(f"merging would break the file: {error}") from error
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if missing := set(added) - defined:
        raise UnmergeableFile(f"merged tests did not land at top level: {sorted(missing)}")
