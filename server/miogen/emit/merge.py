"""Merges generated tests into a test file by insertion only: every line the user wrote survives."""

from __future__ import annotations

import ast
import bisect
import codecs
import copy
import io
import itertools
import os
import re
import secrets
import sys
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from miogen.atomic import sync_folder

LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what both Python and LSP count as a line end
IMPORT_WIDTH = 88  # ruff's default line length: wider from-imports are wrapped
FALLBACK_TRIES = 100
_BOM = "\ufeff"
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
_DEF = r"^(\s*(?:async\s+)?def\s+){}\b"


@dataclass(frozen=True)
class GeneratedTest:
    """One generated test function: ``source`` starts with ``def name(`` (or its decorators)."""

    name: str
    source: str


@dataclass(frozen=True)
class TextEdit:
    """An LSP-style edit; lines and characters are 0-based, characters are Python str indices."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int
    new_text: str


@dataclass(frozen=True)
class MergeResult:
    """The merged text, what went into it, and the insert-only edits that produce it."""

    text: str
    added: list[str]
    renamed: dict[str, str]  # original name -> new name (a repeated original name keeps the last)
    skipped: list[str]  # original names of tests whose body the file already holds
    edits: list[TextEdit]
    # Imports left out: the name is bound to something else, or a __future__ import that would
    # change how the existing code compiles.
    conflicts: list[str] = field(default_factory=list)


class UnmergeableFile(Exception):
    """The existing file cannot be merged into (it does not parse): write a new file instead."""


# --- public API ---------------------------------------------------------------------------


def merge_tests(
    existing: str | None,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str = "",
) -> MergeResult:
    """Merge ``tests`` and their ``imports`` into ``existing``; a new module when it is empty.

    ``header`` is used for a new module only. Merging the same tests again adds nothing.
    """
    wanted = _parse_imports(imports)
    if not existing:
        return _new_module(wanted, tests, header)
    return _merge_existing(_parse_module(existing), wanted, tests)


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    """Apply LSP-style edits to ``text``; inserts at one position keep their order in ``edits``."""
    lines = _Lines.of(text)
    spans = sorted(
        (
            lines.offset(e.start_line, e.start_character),
            lines.offset(e.end_line, e.end_character),
            i,
        )
        for i, e in enumerate(edits)
    )
    pieces, cursor = [], 0
    for start, end, index in spans:
        if start < cursor or end < start:
            raise ValueError(f"edit {index} overlaps another edit or ends before it starts")
        pieces += [text[cursor:start], edits[index].new_text]
        cursor = end
    return "".join(pieces) + text[cursor:]


def fallback_path(test_path: Path) -> Path:
    """``tests/test_shapes.py`` -> ``tests/test_shapes_miogen.py`` (``_miogen_2``... when taken).

    A candidate is taken when it exists and cannot be merged into.
    """
    return next(path for path in _fallback_candidates(test_path) if _is_mergeable(path))


def write_merged(
    path: Path,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str = "",
) -> tuple[Path, MergeResult]:
    """Merge into ``path`` and write it atomically; an unmergeable file is left untouched.

    Returns the path written (``path`` or a fallback) and the merge result for that file.
    """
    path = Path(path)
    candidates = itertools.chain([path], _fallback_candidates(path))
    for candidate in itertools.islice(candidates, FALLBACK_TRIES):
        try:
            return candidate, _merge_into(candidate, imports, tests, header)
        except UnmergeableFile:
            continue
    raise UnmergeableFile(f"no mergeable file among {FALLBACK_TRIES} candidates for {path}")


# --- lines and positions ------------------------------------------------------------------


@dataclass(frozen=True)
class _Lines:
    """Line starts and content ends of a text, split where Python and LSP both split lines."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> _Lines:
        breaks = list(LINE_BREAK.finditer(text))
        starts = (0, *(m.end() for m in breaks))
        ends = (*(m.start() for m in breaks), len(text))
        return cls(text, starts, ends)

    @property
    def rows(self) -> int:
        """Number of 1-based rows that hold text or end in a line break."""
        return len(self.starts) - (self.starts[-1] == len(self.text))

    def content(self, row: int) -> str:
        return self.text[self.starts[row - 1] : self.ends[row - 1]]

    def offset(self, line: int, character: int) -> int:
        if not 0 <= line < len(self.starts):
            raise ValueError(f"line {line} is outside the text")
        if not 0 <= character <= self.ends[line] - self.starts[line]:
            raise ValueError(f"character {character} is outside line {line}")
        return self.starts[line] + character

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]


def _ending(text: str, offset: int) -> str:
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


def _trailing_blank_lines(text: str) -> int:
    """Blank lines at the end of ``text``, which ends with a line break."""
    count = 0
    for line in reversed(LINE_BREAK.split(text)[:-1]):
        if line.replace(_BOM, "").strip():
            break
        count += 1
    return count


# --- the existing module ------------------------------------------------------------------


@dataclass(frozen=True)
class _Module:
    """The parsed existing file and the rows where a new line may start."""

    lines: _Lines
    tree: ast.Module
    safe_rows: frozenset[int]  # rows after which a line can go without splitting a statement
    comment_rows: frozenset[int]  # rows holding only a comment that starts in column 0
    protected_rows: int  # leading rows (shebang, coding cookie) that must stay first

    @property
    def text(self) -> str:
        return self.lines.text

    def offset_after(self, row: int) -> tuple[int, bool]:
        """Where a line inserted after ``row`` starts, and whether a line break must come first."""
        if row == 0:
            return int(self.text.startswith(_BOM)), False
        if row < len(self.lines.starts):
            return self.lines.starts[row], False
        return len(self.text), True

    def row_before(self, row: int) -> int:
        """The last safe row before ``row``: inserting after it puts lines just above ``row``."""
        row -= 1
        while row > self.protected_rows and row not in self.safe_rows:
            row -= 1
        return row

    def row_after(self, row: int) -> int:
        """The first safe row from ``row`` on: the end of the logical line holding ``row``."""
        while row < self.lines.rows and row not in self.safe_rows:
            row += 1
        return row

    def above_comments(self, row: int) -> int:
        """The first row of the column-0 comment block right above ``row``, unless it is a header."""
        top = row
        while top > 1 and top - 1 in self.comment_rows:
            top -= 1
        return row if top <= max(1, self.protected_rows) else top

    def is_blank(self, row: int) -> bool:
        return 1 <= row <= self.lines.rows and not self.lines.content(row).replace(_BOM, "").strip()


def _parse_module(text: str) -> _Module:
    lines = _Lines.of(text)
    rows = [
        lines.content(r) + ("\n" if r < len(lines.starts) else "") for r in range(1, lines.rows + 1)
    ]
    if rows:
        rows[0] = rows[0].removeprefix(_BOM)
    try:
        tree = ast.parse("".join(rows))
        safe, comments = _scan_rows(rows)
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError) as error:
        raise UnmergeableFile(f"the existing file does not parse: {error}") from error
    return _Module(lines, tree, safe, comments, _protected_rows(rows))


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


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.level == 0


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


def _first_row(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


# --- imports ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ImportItem:
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


def _import_items(node: ast.Import | ast.ImportFrom) -> list[_ImportItem]:
    if isinstance(node, ast.Import):
        return [_ImportItem(a.name, None, _alias(a.name, a.asname)) for a in node.names]
    module = node.module or ""
    return [_ImportItem(module, a.name, _alias(a.name, a.asname), node.level) for a in node.names]


def _alias(name: str, asname: str | None) -> str | None:
    return None if asname == name else asname


def _parse_imports(imports: Sequence[str]) -> list[_ImportItem]:
    items: list[_ImportItem] = []
    for line in imports:
        try:
            body = ast.parse(line).body
        except SyntaxError as error:
            raise ValueError(f"not an import statement: {line!r}") from error
        for node in body:
            if not isinstance(node, ast.Import | ast.ImportFrom):
                raise ValueError(f"not an import statement: {line!r}")
            items += _import_items(node)
    return items


def _satisfies(have: _ImportItem, want: _ImportItem) -> bool:
    """Whether ``have`` already gives what ``want`` would (``import a.b`` gives ``import a``)."""
    if want.is_plain and have.is_plain:
        return have.module == want.module or have.module.startswith(want.module + ".")
    return have == want


def _rebinds(want: _ImportItem, have: _ImportItem) -> bool:
    """Whether adding ``want`` would rebind the name ``have`` binds to something else."""
    if want.bound is None or want.bound != have.bound:
        return False
    return not (want.is_plain and have.is_plain)  # ``import a.b`` after ``import a``: same ``a``


def _select_imports(
    wanted: list[_ImportItem], have: list[_ImportItem], other_names: set[str]
) -> tuple[list[_ImportItem], list[_ImportItem]]:
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


def _section(item: _ImportItem) -> int:
    """isort-like sections: __future__, standard library, everything else, relative."""
    top = item.module.split(".")[0]
    if item.level:
        return 3
    if top == "__future__":
        return 0
    return 1 if top in sys.stdlib_module_names else 2


def _name_order(item: _ImportItem) -> tuple[int, str, str]:
    """ruff's order-by-type: CONSTANTS, then Classes, then the rest."""
    name = item.name or ""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower(), item.imported()


def _render_imports(items: list[_ImportItem], *, sections: bool) -> list[str]:
    """Import lines in isort-like order; a blank line between sections when ``sections``."""
    lines: list[str] = []
    for section in sorted({_section(i) for i in items}):
        if lines and sections:
            lines.append("")
        lines += _render_section([i for i in items if _section(i) == section])
    return lines


def _render_section(items: list[_ImportItem]) -> list[str]:
    plain = sorted(
        {i for i in items if i.name is None}, key=lambda i: (i.module.lower(), i.statement())
    )
    lines = [i.statement() for i in plain]
    by_module: dict[tuple[int, str], list[_ImportItem]] = {}
    for item in items:
        if item.name is not None:
            by_module.setdefault((item.level, item.module), []).append(item)
    for level, module in sorted(by_module, key=lambda k: (k[1].lower(), k[0])):
        lines += _render_from(f"{'.' * level}{module}", by_module[level, module])
    return lines


def _render_from(module: str, items: list[_ImportItem]) -> list[str]:
    lines = [f"from {module} import *"] if any(i.name == "*" for i in items) else []
    names = [i.imported() for i in sorted(set(items), key=_name_order) if i.name != "*"]
    if not names:
        return lines
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= IMPORT_WIDTH:
        return [*lines, line]
    return [*lines, f"from {module} import (", *(f"    {n}," for n in names), ")"]


def _module_scope(tree: ast.Module) -> tuple[list[_ImportItem], set[str]]:
    """Imports run at module level (also under if/try/with), and other names bound there."""
    items: list[_ImportItem] = []
    names: set[str] = set()
    _collect_scope(tree, items, names)
    return items, names


def _collect_scope(node: ast.AST, items: list[_ImportItem], names: set[str]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            items += _import_items(child)
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


# --- tests --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Placement:
    """The tests that go in, under their final names, and what happened to the others."""

    sources: list[str]  # "\n"-terminated, final names
    added: list[str]
    renamed: dict[str, str]
    skipped: list[str]


def _place_tests(tests: Sequence[GeneratedTest], taken: set[str], bodies: set[str]) -> _Placement:
    """Skip tests whose body is already there; rename the rest away from ``taken`` names."""
    taken, bodies = set(taken), set(bodies)
    placement = _Placement([], [], {}, [])
    for test in tests:
        source = LINE_BREAK.sub("\n", test.source).rstrip() + "\n"
        function = _parse_test(test.name, source)
        body = _body_key(function)
        if body in bodies:
            placement.skipped.append(test.name)
            continue
        bodies.add(body)
        name = _free_name(test.name, taken)
        taken.add(name)
        if name != test.name:
            placement.renamed[test.name] = name
            source = _rename(source, function.lineno, test.name, name)
        placement.sources.append(source)
        placement.added.append(name)
    return placement


def _parse_test(name: str, source: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    try:
        body = ast.parse(source).body
    except SyntaxError as error:
        raise ValueError(f"generated test {name} does not parse: {error}") from error
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        raise ValueError(f"generated test {name} is not a single function definition")
    if body[0].name != name:
        raise ValueError(f"generated test {name} defines {body[0].name}")
    return body[0]


def _body_key(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function without its name: two tests with equal keys test the same thing."""
    anonymous = copy.copy(function)
    anonymous.name = ""
    return ast.dump(anonymous)


def _test_bodies(tree: ast.Module) -> set[str]:
    return {
        _body_key(node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    }


def _free_name(name: str, taken: set[str]) -> str:
    candidate, counter = name, 2
    while candidate in taken:
        candidate, counter = f"{name}_{counter}", counter + 1
    return candidate


def _rename(source: str, row: int, old: str, new: str) -> str:
    """Rename the ``def`` on ``row`` (1-based) and nothing else."""
    lines = source.split("\n")
    renamed = re.sub(_DEF.format(re.escape(old)), rf"\g<1>{new}", lines[row - 1], count=1)
    if renamed == lines[row - 1]:
        raise ValueError(f"cannot find 'def {old}' on line {row} of its source")
    lines[row - 1] = renamed
    return "\n".join(lines)


# --- a new module -------------------------------------------------------------------------


def _new_module(
    wanted: list[_ImportItem], tests: Sequence[GeneratedTest], header: str
) -> MergeResult:
    chosen, conflicts = _select_imports(wanted, [], set())
    placement = _place_tests(tests, {i.bound for i in chosen if i.bound}, set())
    blocks = [
        (_header_block(header), 1),
        ("\n".join(_render_imports(chosen, sections=True)), 1),
        *((source.rstrip("\n"), 2) for source in placement.sources),
    ]
    text = ""
    for block, blank_lines in blocks:
        if block:
            text = text + "\n" * (blank_lines + 1) + block if text else block
    text = f"{text}\n" if text else ""
    edits = [TextEdit(0, 0, 0, 0, text)] if text else []
    return _result(text, placement, edits, conflicts)


def _header_block(header: str) -> str:
    """``header`` as a module docstring or comment, whichever it already is; plain text -> docstring."""
    text = header.strip()
    if not text or all(line.lstrip().startswith("#") for line in text.splitlines()):
        return text
    try:
        body = ast.parse(text).body
    except SyntaxError:
        body = []
    if len(body) == 1 and _is_docstring(body[0]):
        return text
    if '"""' not in text and "\\" not in text and not text.endswith('"'):
        return f'"""{text}"""'
    return "\n".join(f"# {line}".rstrip() for line in text.splitlines())


def _result(
    text: str, placement: _Placement, edits: list[TextEdit], conflicts: list[_ImportItem]
) -> MergeResult:
    return MergeResult(
        text=text,
        added=placement.added,
        renamed=placement.renamed,
        skipped=placement.skipped,
        edits=edits,
        conflicts=[c.statement() for c in conflicts],
    )


# --- merging into an existing module ------------------------------------------------------


@dataclass(frozen=True)
class _Anchor:
    """Where new imports go: after ``row``; ``joins`` when that row ends an existing import."""

    row: int
    joins: bool


def _merge_existing(
    module: _Module, wanted: list[_ImportItem], tests: Sequence[GeneratedTest]
) -> MergeResult:
    wanted, refused = _refuse_new_futures(module, wanted)
    have, other_names = _module_scope(module.tree)
    added, conflicts = _select_imports(wanted, have, other_names)
    conflicts = [*dict.fromkeys([*refused, *conflicts])]
    bound = other_names | {i.bound for i in (*have, *added) if i.bound}
    placement = _place_tests(tests, bound, _test_bodies(module.tree))
    inserts: dict[int, str] = {}
    for anchor, items in _anchored_imports(module, added):
        _insert(inserts, *_import_block(module, anchor, items))
    if placement.sources:
        _insert(inserts, *_tests_block(module, inserts, placement.sources))
    text = _splice(module.text, inserts)
    _check_merged(text, placement.added)
    return _result(text, placement, _edits(module.lines, inserts), conflicts)


def _refuse_new_futures(
    module: _Module, wanted: list[_ImportItem]
) -> tuple[list[_ImportItem], list[_ImportItem]]:
    """Leave out __future__ imports the file lacks: they would change how its code compiles."""
    body = module.tree.body
    start = 1 if body and _is_docstring(body[0]) else 0
    if all(_is_future(node) for node in body[start:]):
        return wanted, []
    futures = [
        node for node in body[start:] if isinstance(node, ast.ImportFrom) and _is_future(node)
    ]
    have = {item for node in futures for item in _import_items(node)}
    refused = [i for i in wanted if _section(i) == 0 and i not in have]
    return [i for i in wanted if i not in refused], refused


def _insert(inserts: dict[int, str], offset: int, text: str) -> None:
    inserts[offset] = inserts.get(offset, "") + text


def _splice(text: str, inserts: dict[int, str]) -> str:
    pieces, cursor = [], 0
    for offset in sorted(inserts):
        pieces += [text[cursor:offset], inserts[offset]]
        cursor = offset
    return "".join(pieces) + text[cursor:]


def _edits(lines: _Lines, inserts: dict[int, str]) -> list[TextEdit]:
    edits = []
    for offset in sorted(inserts):
        line, character = lines.position(offset)
        edits.append(TextEdit(line, character, line, character, inserts[offset]))
    return edits


def _anchored_imports(
    module: _Module, items: list[_ImportItem]
) -> list[tuple[_Anchor, list[_ImportItem]]]:
    """Group new imports by where they go: __future__ ones first in the file, the rest after
    the last import."""
    future = [i for i in items if _section(i) == 0]
    others = [i for i in items if _section(i) != 0]
    groups: dict[_Anchor, list[_ImportItem]] = {}
    if future:
        groups.setdefault(_future_anchor(module), []).extend(future)
    if others:
        groups.setdefault(_import_anchor(module), []).extend(others)
    return sorted(groups.items(), key=lambda group: group[0].row)


def _future_anchor(module: _Module) -> _Anchor:
    body = module.tree.body
    start = 1 if body and _is_docstring(body[0]) else 0
    futures = list(itertools.takewhile(_is_future, body[start:]))
    if futures:
        return _Anchor(module.row_after(futures[-1].end_lineno or 0), joins=True)
    return _top_anchor(module)


def _import_anchor(module: _Module) -> _Anchor:
    imports = [n for n in module.tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    if imports:
        return _Anchor(module.row_after(imports[-1].end_lineno or 0), joins=True)
    return _top_anchor(module)


def _top_anchor(module: _Module) -> _Anchor:
    """After the module docstring, else above the first statement and its comments, else at the end."""
    body = module.tree.body
    if body and _is_docstring(body[0]):
        return _Anchor(module.row_after(body[0].end_lineno or 0), joins=False)
    if body:
        return _Anchor(module.row_before(module.above_comments(_first_row(body[0]))), joins=False)
    return _Anchor(module.lines.rows, joins=False)


def _import_block(module: _Module, anchor: _Anchor, items: list[_ImportItem]) -> tuple[int, str]:
    offset, needs_break = module.offset_after(anchor.row)
    ending = _ending(module.text, offset)
    lines = _render_imports(items, sections=not anchor.joins)
    if not anchor.joins:
        lines = [""] * (0 < anchor.row and not module.is_blank(anchor.row)) + lines
        lines += [""] * _blank_lines_before(module, anchor.row + 1)
    return offset, ending * needs_break + "".join(line + ending for line in lines)


def _blank_lines_before(module: _Module, row: int) -> int:
    """Blank lines a new import block needs above ``row``: two above a def or class, as ruff wants."""
    if row > module.lines.rows or module.is_blank(row):
        return 0
    while row in module.comment_rows:
        row += 1
    if row > module.lines.rows:
        return 1
    statement = module.lines.content(row).removeprefix(_BOM)
    return 2 if re.match(r"(@|def |class |async def )", statement) else 1


def _tests_block(module: _Module, inserts: dict[int, str], sources: list[str]) -> tuple[int, str]:
    """The tests at the end of the file, or above a trailing ``if __name__ == "__main__":``."""
    body = module.tree.body
    guarded = bool(body) and _is_main_guard(body[-1])
    if guarded:
        offset, _ = module.offset_after(module.row_before(module.above_comments(body[-1].lineno)))
    else:
        offset = len(module.text)
    ending = _ending(module.text, offset)
    before = _splice(module.text[:offset], {o: t for o, t in inserts.items() if o <= offset})
    open_line = before.replace(_BOM, "") and not LINE_BREAK.search(before[-1])
    text = ending if open_line else ""
    if (before + text).replace(_BOM, "").strip():
        text += ending * max(0, 2 - _trailing_blank_lines(before + text))
    text += (ending * 2).join(source.replace("\n", ending) for source in sources)
    return offset, text + ending * 2 * guarded


def _check_merged(text: str, added: list[str]) -> None:
    """A last guard: the merged file parses and defines every added test at top level."""
    try:
        tree = ast.parse(text.removeprefix(_BOM))
    except (SyntaxError, ValueError) as error:
        raise UnmergeableFile(f"merging would break the file: {error}") from error
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if missing := set(added) - defined:
        raise UnmergeableFile(f"merged tests did not land at top level: {sorted(missing)}")


# --- files --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Decoded:
    """A file's text, the codec that round-trips it, and the BOM bytes kept aside."""

    text: str
    encoding: str
    prefix: bytes = b""


def _decode(data: bytes) -> _Decoded:
    """Decode as Python would (PEP 263 cookie, BOM); only byte-exact round trips are accepted."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        prefix = codecs.BOM_UTF8 if encoding == "utf-8-sig" else b""
        encoding = "utf-8" if prefix else encoding
        text = data[len(prefix) :].decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise UnmergeableFile(f"cannot decode the existing file: {error}") from error
    if text.encode(encoding) != data[len(prefix) :]:
        raise UnmergeableFile(f"the existing file does not round-trip through {encoding}")
    return _Decoded(text, encoding, prefix)


def _encode_merged(original: bytes, decoded: _Decoded, result: MergeResult) -> bytes:
    """The original bytes, untouched, with the inserted text encoded between them."""
    lines = _Lines.of(decoded.text)
    pieces, cursor, byte_cursor = [decoded.prefix], 0, len(decoded.prefix)
    try:
        for edit in result.edits:
            offset = lines.offset(edit.start_line, edit.start_character)
            byte_offset = byte_cursor + len(decoded.text[cursor:offset].encode(decoded.encoding))
            pieces += [original[byte_cursor:byte_offset], edit.new_text.encode(decoded.encoding)]
            cursor, byte_cursor = offset, byte_offset
    except UnicodeEncodeError as error:
        raise UnmergeableFile(f"the tests cannot be written in {decoded.encoding}") from error
    data = b"".join([*pieces, original[byte_cursor:]])
    if data[len(decoded.prefix) :].decode(decoded.encoding) != result.text:
        raise UnmergeableFile(f"the merged text does not round-trip through {decoded.encoding}")
    return data


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _merge_into(
    path: Path, imports: Sequence[str], tests: Sequence[GeneratedTest], header: str
) -> MergeResult:
    """Merge into one file; retried when the file changes between reading and replacing."""
    target = Path(os.path.realpath(path))  # replace a symlink's target, not the link
    for _ in range(3):
        original = _read(target)
        if original is None:
            result = merge_tests(None, imports, tests, header)
            data = result.text.encode("utf-8")
        else:
            decoded = _decode(original)
            result = merge_tests(decoded.text, imports, tests, header)
            data = _encode_merged(original, decoded, result)
        if data == (original or b""):
            return result
        if _replace_atomically(target, data, expected=original):
            return result
    raise UnmergeableFile(f"{path} kept changing while the tests were merged into it")


def _replace_atomically(path: Path, data: bytes, expected: bytes | None) -> bool:
    """Write ``data`` to ``path`` via a synced temporary file and ``os.replace``.

    Returns False, writing nothing, when ``path`` no longer holds ``expected``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.miogen.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(temporary, flags, 0o666)  # the umask applies, as for any new file
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if expected is not None:
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        if _read(path) != expected:
            return False
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    sync_folder(path.parent)
    return True


def _fallback_candidates(test_path: Path) -> Iterator[Path]:
    stem, suffix = test_path.stem, test_path.suffix
    yield test_path.with_name(f"{stem}_miogen{suffix}")
    for counter in itertools.count(2):
        yield test_path.with_name(f"{stem}_miogen_{counter}{suffix}")


def _is_mergeable(path: Path) -> bool:
    data = _read(path)
    if data is None:
        return True
    try:
        text = _decode(data).text
        if text:
            _parse_module(text)
    except UnmergeableFile:
        return False
    return True
