"""Coverage goals from coverage.py's own parser, so that target ids are exactly coverage.py's arcs."""

from __future__ import annotations

import ast
import bisect
import functools
import io
import re
import sys
import token
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import coverage
from coverage.bytecode import ByteParser
from coverage.config import DEFAULT_EXCLUDE
from coverage.exceptions import NotPython
from coverage.misc import join_regex
from coverage.parser import PythonParser

from miogen.analysis.model import Target, Unit
from miogen.analysis.survey import Survey, is_abstract, statement_walk, survey

# Words in coverage.py's arc descriptions that mark the "condition false" side of a branch.
_NEGATIVE_MARKERS = ("always true", "didn't complete", "always matched", "was never false")


@dataclass(frozen=True)
class CodeMap:
    """coverage.py's view of the file: statements, branch arcs and the multi-line statement map."""

    statements: frozenset[int]
    branch_arcs: tuple[tuple[int, int], ...]
    parser: PythonParser
    # coverage.py's syntax tree of the source (read-only: the analysis reads it, never changes it).
    tree: ast.Module | None = field(default=None, compare=False, repr=False)

    def first_line(self, line: int) -> int:
        return self.parser.first_line(line)


@functools.lru_cache(maxsize=8)
def parse_code(source: str) -> CodeMap:
    """Parse the way coverage.py does, with its default exclusions (``# pragma: no cover``).

    Cached by source text: the analysis, the engine, the verification and the language server
    each ask for the same module's map; a CodeMap is never changed after it is built.
    """
    # coverage.py's parser takes "" for "no text given": an empty file is one empty line to it.
    kind = QuickParser if QUICK_PARSE else PythonParser
    parser = kind(text=source or "\n", exclude=join_regex(DEFAULT_EXCLUDE))
    parser.parse_source()
    tree = getattr(parser, "_ast_root", None)  # coverage.py drops it once the arcs are known
    exits = parser.exit_counts()
    arcs = tuple(sorted(a for a in parser.arcs() if exits.get(a[0], 0) > 1 and a[0] > 0))
    shared = tree if isinstance(tree, ast.Module) and source else None
    return CodeMap(frozenset(parser.statements), arcs, parser, shared)


# The coverage.py versions whose ``PythonParser._raw_parse`` ``QuickParser`` reproduces (checked
# by tests/analysis/test_targets.py against coverage.py's own parser on a corpus of modules).
QUICK_PARSE = (7, 17) <= coverage.version_info[:2] < (7, 18)


# Trees parsed already, by source text (the latest few): ``outline_source`` parses a text
# that coverage.py's parse of it (``parse_code``, for targets asked for later) need not parse again.
_TREES: dict[str, ast.Module] = {}
SHARED_TREES = 2


def share_tree(source: str, tree: ast.Module) -> None:
    """Let ``parse_code(source)`` take ``tree`` (``parse(source)``; read-only from now on)."""
    _TREES.pop(source, None)
    _TREES[source] = tree
    while len(_TREES) > SHARED_TREES:
        del _TREES[next(iter(_TREES))]


_BLANK_LINE = re.compile(r"^[ \t\f\v\r]*\n", flags=re.MULTILINE)


def excluding(pattern: str, text: str) -> bool:
    """Whether ``pattern`` (coverage.py's exclusion regex, searched as it searches it) matches
    anywhere in ``text``, in time linear in a text's runs of blank lines.

    Its ``^\\s*`` spans line breaks: tried at each line of a run of blank lines, each try scans
    the rest of the run (20,000 blank lines took 29 s). Without the blank lines the same patterns
    match or not: a blank line holds only what ``\\s*`` takes anyway, its removal leaves a line
    break between its neighbours, and every line start that remains is one of the text's.

    >>> from coverage.config import DEFAULT_EXCLUDE
    >>> from coverage.misc import join_regex
    >>> pattern = join_regex(DEFAULT_EXCLUDE)
    >>> excluding(pattern, "x = 1\\n\\n\\n  # pragma: no cover\\n"), excluding(pattern, "x = 1\\n\\n")
    (True, False)
    """
    return re.search(pattern, _BLANK_LINE.sub("", text), flags=re.MULTILINE) is not None


class QuickParser(PythonParser):
    """coverage.py's parser with the same results in a fraction of its time on long modules.

    Its ``_raw_parse`` tokenizes the whole text with the pure-Python ``tokenize`` (about a third
    of a 10,000-function module's analysis) only to find the lines of multi-line statements and
    the lines a ``# pragma: no cover`` excludes, and compiles the text that ``parse_source`` has
    just parsed. Here, when nothing is excluded (no line matches the exclusion pattern), the
    statements' lines come from the interpreter's own tokenizer (C; the same NEWLINE tokens and
    first tokens of statements) and the bytecode is compiled from the parsed tree. A text with
    an exclusion, or with a lone carriage return (a line break to the parser but not to
    ``tokenize``'s line reading), takes coverage.py's own path.
    """

    def parse_source(self) -> None:
        """coverage.py's, on the tree ``share_tree`` kept for the text when there is one (the
        same as coverage.py's ``parse(self.text)``, parsed once instead of twice)."""
        tree = _TREES.get(self.text)
        if tree is None:
            super().parse_source()
            return
        self._ast_root = tree
        try:
            self._raw_parse()
        except (tokenize.TokenError, IndentationError, SyntaxError) as error:
            raise NotPython(
                f"Couldn't parse '{self.filename}' as Python source: {error.args[0]!r}"
            ) from error
        ignore = self.excluded | self.raw_docstrings
        starts = self.raw_statements - ignore
        self.statements = self.first_lines(starts) - ignore

    def _raw_parse(self) -> None:
        text = self.text
        if (self.exclude and excluding(self.exclude, text)) or (
            "\r" in text and text.count("\r") != text.count("\r\n")
        ):
            super()._raw_parse()
            return
        root = self._ast_root
        assert isinstance(root, ast.Module)
        self.multiline_map, empty = _statement_lines(text)
        if not empty:
            code = compile(root, self.filename, "exec", dont_inherit=True)
            self.raw_statements.update(ByteParser(code=code).find_statements())
        # coverage.py's walk for docstrings (the same statements, found faster); its exclusions
        # carried to bodies: none here.
        for node in statement_walk(root):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
                first = node.body[0] if node.body else None
                if (
                    isinstance(first, ast.Expr)
                    and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)
                ):
                    self.raw_docstrings.update(range(first.lineno, cast(int, first.end_lineno) + 1))


def _statement_lines(text: str) -> tuple[dict[int, int], bool]:
    """coverage.py's ``multiline_map_from_tokens`` over the C tokenizer's tokens (which leaves
    out comments and blank lines: tokens coverage.py skips), and whether the text has no token."""
    multiline: dict[int, int] = {}
    first_line = 0
    empty = True
    newline = token.NEWLINE
    for item in _tokens(text):  # (text, type, first line, last line, ...): indexed, not unpacked
        if item[1] == newline:
            end = item[3]
            if first_line and end != first_line:
                for line in range(first_line, end + 1):
                    multiline[line] = first_line
            first_line = 0
        elif not first_line and item[0].strip():
            first_line = item[2]
            empty = False
    return multiline, empty


def _tokens(text: str) -> Iterable[tuple[Any, ...]]:
    """(text, type, first line, last line, ...) of the tokens of ``text`` but comments and
    blank lines, from the interpreter's tokenizer (written in C; ``tokenize`` is since Python
    3.12). On 3.11 its own iterator, whose tuples begin so: no generator between."""
    if sys.version_info >= (3, 12):
        return (
            (string, kind, start, end)
            for kind, string, (start, _), (end, _), _ in tokenize.generate_tokens(
                io.StringIO(text).readline
            )
            if kind not in (tokenize.COMMENT, tokenize.NL)
        )
    from _tokenize import TokenizerIter  # type: ignore[import-not-found]  # CPython 3.11's own

    return cast(Iterable[tuple[Any, ...]], TokenizerIter(text))


def find_targets(
    source: str,
    tree: ast.Module,
    units: Iterable[Unit],
    walked: Survey | _Statements | None = None,
) -> dict[str, list[Target]]:
    """The targets of ``units`` from coverage.py's parse of ``source``: the module's text, or a
    ``segment`` of it that holds the units' ranges (``tree``: the module's; ``walked``: its
    survey, or the ``statements_in`` the units' ranges).

    A unit's targets depend on its own code alone (coverage.py's arcs and statements of a
    function or class body are those of its own code object, and ids are made from arcs and
    lines: ``target_id``), so a unit's targets from a segment are those of the whole text.
    """
    code = parse_code(source)
    body_lines = [node.lineno for node in tree.body]  # sorted: the body is in source order
    conditions = _conditions(source, walked or survey(tree))
    starts = [arc[0] for arc in code.branch_arcs]  # sorted: the arcs are
    targets: dict[str, list[Target]] = {}
    for unit in units:
        found: list[Target] = []
        for start, end in unit.ranges:
            for arc in _arcs_from(code, starts, start, end):
                description = code.parser.missing_arc_description(arc[0], arc[1])
                positive = not any(m in description for m in _NEGATIVE_MARKERS)
                found.append(
                    Target(
                        target_id(arc[0], arc),
                        unit.name,
                        "branch",
                        arc[0],
                        arc,
                        description,
                        positive,
                        conditions.get(arc[0], ""),
                    )
                )
        for line in _branchless_function_lines(tree, body_lines, unit, code, starts):
            found.append(
                Target(
                    target_id(line, None),
                    unit.name,
                    "line",
                    line,
                    None,
                    f"line {line} was never executed",
                )
            )
        targets[unit.name] = found
    return targets


# A target's id: its first line in the high bits; below, a branch's end line (offset to be
# positive) with a 0 bit, or a 1 bit for a line goal. No counter over the module's units: a
# unit's ids are the same whatever else the module holds, and whichever text they came from.
_END_BITS = 32
_END_OFFSET = 1 << (_END_BITS - 1)  # an arc's end is a line or minus one (an exit): |end| < this


def target_id(line: int, arc: tuple[int, int] | None) -> int:
    """The id of the branch target of ``arc`` (which leaves ``line``), or of the line goal of
    ``line`` (``arc`` None): distinct for distinct goals of a module, equal for the same arc
    (a private helper's, in each unit that calls it: the same goal, covered by the same runs)."""
    low = 1 if arc is None else (arc[1] + _END_OFFSET) << 1
    return (line << (_END_BITS + 1)) | low


def statements_in(tree: ast.Module, ranges: Iterable[tuple[int, int]]) -> _Statements:
    """The statements of the top-level statements that begin in ``ranges`` (``find_targets``
    reads no other of a segment's)."""
    body_lines = [node.lineno for node in tree.body]
    return _Statements(_top_level_in(tree, body_lines, ranges))


def segment(source: str, tree: ast.Module, ranges: Iterable[tuple[int, int]]) -> str:
    """The lines of ``ranges`` (of top-level statements) at their own line numbers, every other
    line an empty comment but the ``from __future__`` imports (they change how the module
    compiles): coverage.py's parse of it has the statements, arcs and descriptions of those
    statements' code as the whole text's parse has them, at a cost that grows with the ranges,
    not with the module (but for the comment lines, which the parser skips quickly).

    Comments, not blank lines: coverage.py's exclusion patterns begin ``^\\s*`` and are searched
    in the whole text, so each line of a run of blank lines is matched to the run's end (the
    last unit of a 74,000-line text took 50 s to parse that way)."""
    starts = _line_starts(source)
    wanted = sorted(
        {
            *ranges,
            *(
                (node.lineno, node.end_lineno or node.lineno)
                for node in tree.body
                if isinstance(node, ast.ImportFrom) and node.module == "__future__"
            ),
        }
    )
    parts: list[str] = []
    line = 1  # the next line to write
    for first, last in wanted:
        first = max(first, line)
        if last < first:
            continue  # inside a range written already
        parts.append(_FILLER * (first - line))
        end = starts[last] if last < len(starts) else len(source)
        parts.append(source[starts[first - 1] : end])
        line = last + 1
    return "".join(parts)


_FILLER = "#\n"  # a line of a segment that is not in its ranges


@functools.lru_cache(maxsize=2)
def _line_starts(source: str) -> list[int]:
    """The offset of each line's first character (the parser's line breaks), kept for the
    latest texts: each segment of one text needs them."""
    return [0, *(match.end() for match in _LINE_BREAKS.finditer(source))]


class _Statements:
    """The branching statements of some top-level statements, as ``Survey.of_type`` gives
    those of the whole module (``_conditions`` reads nothing else)."""

    def __init__(self, statements: list[ast.stmt]) -> None:
        self.statements = statements

    def of_type(self, *kinds: type[ast.stmt]) -> list[ast.stmt]:
        return [n for s in self.statements for n in ast.walk(s) if isinstance(n, kinds)]


def _conditions(source: str, walked: Survey | _Statements) -> dict[int, str]:
    """Source text of each branching statement's condition, by line."""
    segment = SourceSegments(source)
    found: dict[int, str] = {}
    for node in walked.of_type(ast.If, ast.While, ast.For, ast.AsyncFor):
        if isinstance(node, ast.If | ast.While):
            found[node.lineno] = segment(node.test)
        elif isinstance(node, ast.For | ast.AsyncFor):
            found[node.lineno] = f"for {segment(node.target) or '_'} in {segment(node.iter)}"
    return {line: " ".join(text.split()) for line, text in found.items()}


class SourceSegments:
    """``ast.get_source_segment`` over a source split once (it splits the whole source per call,
    which made the analysis of a 2,500-line module quadratic: seconds instead of milliseconds)."""

    def __init__(self, source: str) -> None:
        # The same line breaks as the parser's (form feeds and other separators stay inside).
        self.lines = _LINE_BREAKS.split(source)
        self.encoded: dict[int, bytes] = {}

    def _line(self, index: int) -> bytes:
        encoded = self.encoded.get(index)
        if encoded is None:
            encoded = self.encoded[index] = self.lines[index].encode()
        return encoded

    def __call__(self, node: ast.AST) -> str:
        """The node's source text ('' when it has no complete position)."""
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None or end_line > len(self.lines):
            return ""
        first, last = node.lineno - 1, end_line - 1  # type: ignore[attr-defined]
        start = node.col_offset  # type: ignore[attr-defined]  # UTF-8 byte offsets, as the parser's
        if first == last:
            return self._line(first)[start:end_col].decode()
        parts = [self._line(first)[start:], *map(self._line, range(first + 1, last))]
        parts.append(self._line(last)[:end_col])
        return b"\n".join(parts).decode()


_LINE_BREAKS = re.compile(r"\r\n|\r|\n")


def _functions_of(
    tree: ast.Module, body_lines: list[int], unit: Unit
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions and methods defined in the unit's ranges (``body_lines``: the first lines
    of the module's statements). Found by bisection: a scan of the whole module per unit made
    the analysis quadratic in the number of functions."""
    functions = []
    for node in _top_level_in(tree, body_lines, unit.ranges):
        if isinstance(node, ast.ClassDef):
            functions += [
                n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.append(node)
    return functions


def _top_level_in(
    tree: ast.Module, body_lines: list[int], ranges: Iterable[tuple[int, int]]
) -> list[ast.stmt]:
    """The module's statements whose first line lies in one of ``ranges``, in source order."""
    indices: set[int] = set()
    for first, last in ranges:
        indices.update(
            range(bisect.bisect_left(body_lines, first), bisect.bisect_right(body_lines, last))
        )
    return [tree.body[index] for index in sorted(indices)]


def _arcs_from(
    code: CodeMap, starts: list[int], first: int, last: int
) -> tuple[tuple[int, int], ...]:
    """The branch arcs leaving lines ``first``..``last`` (``starts``: their sorted first lines)."""
    return code.branch_arcs[bisect.bisect_left(starts, first) : bisect.bisect_right(starts, last)]


def _branchless_function_lines(
    tree: ast.Module, body_lines: list[int], unit: Unit, code: CodeMap, starts: list[int]
) -> list[int]:
    """One line goal per function that has no branch of its own: its first body statement."""
    lines = []
    for function in _functions_of(tree, body_lines, unit):
        if is_abstract(function):
            continue  # an interface method: subclasses run their own code, never this
        body = function.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        if not body:
            continue
        start, end = function.lineno, function.end_lineno or function.lineno
        if _arcs_from(code, starts, start, end):
            continue
        line = code.first_line(body[0].lineno)
        if line in code.statements:
            lines.append(line)
    return lines
