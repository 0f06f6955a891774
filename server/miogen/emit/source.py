"""What a merge reads, parsed once: the existing test file and the import statements to add.

What the parts after it need of the file is found here, once: its docstring, its
``__future__`` imports, the rows that end a logical line, its comment rows. The import lines
(the tests' and the project's required ones) are parsed here too, with it: the import plan
(``emit.imports``) works from their trees and parses nothing.
"""

from __future__ import annotations

import ast
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from miogen.common.syntax import parse
from miogen.emit.text import BOM, Lines

_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


class UnmergeableFile(Exception):
    """The existing file cannot be merged into (it does not parse): write a new file instead."""


@dataclass(frozen=True)
class ExistingModule:
    """The parsed existing file and the rows where a new line may start."""

    lines: Lines
    tree: ast.Module
    safe_rows: frozenset[int]  # rows after which a line can go without splitting a statement
    comment_rows: frozenset[int]  # rows holding only a comment that starts in column 0
    protected_rows: int  # leading rows (shebang, coding cookie) that must stay first
    docstring: bool  # the first statement is the module's docstring
    futures: tuple[ast.stmt, ...]  # the top-level ``from __future__`` imports

    @property
    def text(self) -> str:
        return self.lines.text


ImportNode = ast.Import | ast.ImportFrom


@dataclass(frozen=True)
class MergeSource:
    """The texts of one merge, parsed: the existing file (None: a new file) and the import
    statements wanted, the project's required ones first."""

    module: ExistingModule | None
    imports: tuple[ImportNode, ...]


def parse_merge(
    existing: str | None, imports: Sequence[str], required: Sequence[str] = ()
) -> MergeSource:
    """``existing`` (empty or None: a new file), then ``required`` and ``imports`` parsed, each
    once. A ``required`` line that is not import statements is left out (as ruff's isort does
    not apply it); such a line of ``imports``: ValueError."""
    module = parse_module(existing) if existing else None
    return MergeSource(module, (*import_statements(required, True), *import_statements(imports)))


def import_statements(lines: Sequence[str], lenient: bool = False) -> list[ImportNode]:
    """The import statements of ``lines``; ValueError on a line that is not import statements
    (``lenient``: that line is left out)."""
    nodes: list[ImportNode] = []
    for line in lines:
        try:
            body = parse(line).body
        except SyntaxError as error:
            if lenient:
                continue
            raise ValueError(f"not an import statement: {line!r}") from error
        found = [node for node in body if isinstance(node, ast.Import | ast.ImportFrom)]
        if len(found) < len(body) or (lenient and not body):
            if lenient:
                continue
            raise ValueError(f"not an import statement: {line!r}")
        nodes += found
    return nodes


def parse_module(text: str) -> ExistingModule:
    lines = Lines.of(text)
    rows = [
        lines.content(r) + ("\n" if r < len(lines.starts) else "") for r in range(1, lines.rows + 1)
    ]
    if rows:
        rows[0] = rows[0].removeprefix(BOM)
    try:
        tree = parse("".join(rows))
        safe, comments = _scan_rows(rows)
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError) as error:
        raise UnmergeableFile(f"the existing file does not parse: {error}") from error
    futures = tuple(node for node in tree.body if is_future(node))
    docstring = ast.get_docstring(tree, clean=False) is not None
    return ExistingModule(lines, tree, safe, comments, _protected_rows(rows), docstring, futures)


def _scan_rows(rows: list[str]) -> tuple[frozenset[int], frozenset[int]]:
    """Rows that end a logical line or hold only a comment/blank, and column-0 comment rows."""
    safe: set[int] = set()
    comments: set[int] = set()
    depth = 0
    for token in tokenize.generate_tokens(iter(rows).__next__):
        row = token.start[0]
        if token.type == tokenize.OP and token.string in {"(", "[", "{"}:
            depth += 1
        elif token.type == tokenize.OP and token.string in {")", "]", "}"}:
            depth -= 1
        elif token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth == 0):
            safe.add(row)
        elif token.type == tokenize.COMMENT and token.start[1] == 0 and token.line.startswith("#"):
            comments.add(row)
    return frozenset(safe), frozenset(comments & safe)


def _protected_rows(rows: list[str]) -> int:
    if len(rows) > 1 and _CODING.match(rows[1]):
        return 2
    if rows and (rows[0].startswith("#!") or _CODING.match(rows[0])):
        return 1
    return 0


def is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.level == 0
