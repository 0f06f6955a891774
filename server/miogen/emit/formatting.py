"""The inserted tests formatted as the project formats code: its ruff or black, else ruff's defaults.

Only the generated functions go through the formatter, never the user's file: the merge still
only inserts. The formatter runs as a separate process (the project's own ruff or black when its
configuration names one, else the ruff miogen depends on, with the project's line length), on
the tests alone. Strings too long for a line are split into implicitly concatenated pieces
first, since formatters never split a string. The result is used only if it parses to the same
code; when no formatter can run, the tests stay as rendered. Where the project configures ruff,
the safe fixes of its rules are applied next (``ruff check --fix`` with its configuration: its
quote style, its parametrize conventions), and the result formatted again.
"""

from __future__ import annotations

import ast
import io
import logging
import subprocess
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from miogen.common.syntax import parse
from miogen.emit.placement import GeneratedTest
from miogen.emit.style import Style
from miogen.emit.tools import Tools

logger = logging.getLogger(__name__)

FORMAT_TIMEOUT = 30.0  # seconds for one formatter run (black's start-up on a loaded machine)
SPLIT_ROUNDS = 3  # format, split the strings still too long, format again
MIN_PIECE = 16  # characters of a string piece, at the least
PLAIN_PREFIXES = frozenset({"", "b", "r", "u", "br", "rb"})
# ruff's fixes that are unsafe in general but not on what miogen writes: parametrize's names
# and values in the project's convention (tuple, list or "a,b"), never changing what runs
SAFE_HERE = ("PT006", "PT007")


def format_tests(
    tests: Sequence[GeneratedTest],
    style: Style,
    tools: Tools,
    path: Path | None = None,
    imports: Sequence[str] = (),
) -> list[GeneratedTest]:
    """``tests`` as the project's formatter writes them (``path``: the file they go into), and
    its ruff's safe fixes applied (the tests' ``imports`` tell ruff what their names are);
    ``tools``: the project's, looked up by the caller (``emit.tools``)."""
    if not tests:
        return []
    source = "\n\n\n".join(t.source.rstrip("\n") for t in tests) + "\n"
    command = formatter_command(style, tools, path)
    if command is None:
        return list(tests)
    formatted = _run(command, source, style.root)
    for _ in range(SPLIT_ROUNDS):
        if formatted is None:
            return list(tests)
        split = split_long_strings(formatted, style.line_length)
        if split == formatted:
            break
        formatted = _run(command, split, style.root)
    # each text is parsed once, and its tree handed on with it (``Parsed``)
    checked = _parsed(formatted) if formatted is not None else None
    if checked is None or not _same_code(source, checked):
        return list(tests)
    fixed = lint_fixed(checked.text, style, tools, path, imports)
    if fixed is not None:  # the fixes laid out as the formatter lays code out
        again = _run(command, fixed.text, style.root)
        if again == fixed.text:
            checked = fixed
        elif again is not None:
            checked = _parsed(again) or checked
    return _functions(checked, tests)


@dataclass(frozen=True)
class Parsed:
    """A text and its syntax tree (parsed once)."""

    text: str
    tree: ast.Module


def lint_fixed(
    source: str,
    style: Style,
    tools: Tools,
    path: Path | None = None,
    imports: Sequence[str] = (),
) -> Parsed | None:
    """``source`` with the safe fixes of the project's ruff configuration applied (its quotes,
    its parametrize conventions...), as ``ruff check --fix`` would on the file at ``path``, and
    parsed; None when the project does not configure ruff, ruff cannot run or fixes nothing,
    or its result does not parse. ``imports`` go above ``source`` while ruff reads it
    (``pytest.mark`` is pytest's only where ``pytest`` is imported); the result holds them
    too, the caller keeps the functions."""
    ruff = tools.ruff if style.lints else None
    if ruff is None:
        return None
    stdin_name = str(path or (style.root or Path.cwd()) / "test_miogen.py")
    command = [ruff, "check", "--fix", "--no-unsafe-fixes", "--exit-zero", "--quiet",
               "--config", f"lint.extend-safe-fixes = {list(SAFE_HERE)}",
               "--stdin-filename", stdin_name, "-"]  # fmt: skip
    text = "\n".join([*imports, "", "", source]) if imports else source
    fixed = _run(command, text, style.root)
    return _parsed(fixed) if fixed is not None and fixed != source else None


def _parsed(text: str) -> Parsed | None:
    try:
        return Parsed(text, parse(text))
    except SyntaxError:
        return None


def formatter_command(style: Style, tools: Tools, path: Path | None = None) -> list[str] | None:
    """The command that formats standard input for this project, or None without a formatter."""
    stdin_name = str(path or (style.root or Path.cwd()) / "test_miogen.py")
    if style.formatter == "black" and tools.black is not None:
        return [*tools.black, "--quiet", "--stdin-filename", stdin_name, "-"]
    ruff = tools.ruff
    if ruff is None:
        return None
    if style.formatter == "ruff":
        return [ruff, "format", "--stdin-filename", stdin_name, "-"]
    return [ruff, "format", "--isolated", "--line-length", str(style.line_length), "-"]


def _run(command: list[str], source: str, cwd: Path | None) -> str | None:
    try:
        done = subprocess.run(
            command, input=source, capture_output=True, text=True, cwd=cwd,
            timeout=FORMAT_TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        logger.warning("miogen: the formatter %s did not run: %s", command[0], error)
        return None
    if done.returncode != 0:
        logger.warning("miogen: the formatter %s failed: %s", command[0], done.stderr[-500:])
        return None
    return done.stdout


def _same_code(before: str, after: Parsed) -> bool:
    if before == after.text:
        return True  # the formatter changed nothing
    try:
        return ast.dump(parse(before)) == ast.dump(after.tree)
    except SyntaxError:
        return False


def _functions(formatted: Parsed, tests: Sequence[GeneratedTest]) -> list[GeneratedTest]:
    """The formatted text cut back into its functions, one for each of ``tests`` in order."""
    lines = formatted.text.splitlines(keepends=True)
    sources = []
    for node in formatted.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            sources.append((node.name, "".join(lines[start - 1 : node.end_lineno])))
    if [name for name, _ in sources] != [t.name for t in tests]:
        return list(tests)
    return [replace(test, source=source) for test, (_, source) in zip(tests, sources, strict=True)]


# --- strings too long for a line ---------------------------------------------------------


def split_long_strings(source: str, line_length: int) -> str:
    """``source`` with each plain string literal on a too long line split into pieces that fit:
    ``("first piece " "second piece")``, which a formatter then lays out one piece a line."""
    lines = source.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    replacements = []
    for index, token in enumerate(tokens):
        if token.type != tokenize.STRING:
            continue
        line = lines[token.start[0] - 1].rstrip("\r\n")
        if len(line) <= line_length or not _splittable(tokens, index):
            continue
        indent = len(line) - len(line.lstrip())
        pieces = split_string(token.string, max(MIN_PIECE, line_length - indent - 12))
        if len(pieces) == 1:  # short, but on a line with others (a dict's key and value)
            pieces = split_string(token.string, max(MIN_PIECE, len(token.string) // 2 + 3))
        if len(pieces) > 1:
            replacements.append((token.start, token.end, "(" + " ".join(pieces) + ")"))
    for (row, start), (_, end), text in reversed(replacements):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + text + line[end:]
    return "".join(lines)


def _splittable(tokens: list[tokenize.TokenInfo], index: int) -> bool:
    """One-line plain string, not a docstring, not already part of a concatenation."""
    token = tokens[index]
    prefix = token.string[: len(token.string) - len(token.string.lstrip("bBrRuU"))]
    body = token.string[len(prefix) :]
    if prefix.lower() not in PLAIN_PREFIXES or body[:3] in ('"""', "'''"):
        return False
    if token.start[0] != token.end[0]:
        return False
    neighbours = [tokens[i] for i in (index - 1, index + 1) if 0 <= i < len(tokens)]
    if any(n.type == tokenize.STRING for n in neighbours):
        return False
    # A string that starts a statement (a docstring) stays; one on a continuation line inside
    # brackets (after NL tokens: a tuple laid out one item a line) is split like any other.
    previous = index - 1
    while previous >= 0 and tokens[previous].type in (tokenize.NL, tokenize.COMMENT):
        previous -= 1
    before = tokens[previous].type if previous >= 0 else tokenize.NEWLINE
    return before not in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)


def split_string(literal: str, width: int) -> list[str]:
    """A string literal as pieces of at most about ``width`` characters each, cut after a space
    where one is near, never inside an escape sequence.

    >>> split_string('"one two three"', 9)
    ['"one "', '"two "', '"three"']
    """
    prefix = literal[: len(literal) - len(literal.lstrip("bBrRuU"))]
    quote = literal[len(prefix)]
    units = _units(literal[len(prefix) + 1 : -1], raw="r" in prefix.lower())
    room = max(1, width - len(prefix) - 2)
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for unit in units:
        if current and size + len(unit) > room:
            cut = _last_space(current)
            pieces.append("".join(current[:cut]))
            current = current[cut:]
            size = sum(len(u) for u in current)
        current.append(unit)
        size += len(unit)
    pieces.append("".join(current))
    return [f"{prefix}{quote}{piece}{quote}" for piece in pieces if piece] or [literal]


def _units(body: str, raw: bool) -> list[str]:
    """The literal's body as indivisible pieces: characters and whole escape sequences."""
    units, index = [], 0
    while index < len(body):
        end = index + 1
        if body[index] == "\\" and index + 1 < len(body):
            end = index + 2 if raw else _escape_end(body, index)
        units.append(body[index:end])
        index = end
    return units


def _escape_end(body: str, index: int) -> int:
    kind = body[index + 1]
    lengths = {"x": 4, "u": 6, "U": 10}
    if kind in lengths:
        return min(len(body), index + lengths[kind])
    if kind == "N" and "}" in body[index:]:
        return body.index("}", index) + 1
    if kind in "01234567":
        end = index + 2
        while end < min(len(body), index + 4) and body[end] in "01234567":
            end += 1
        return end
    return index + 2


def _last_space(units: list[str]) -> int:
    """Where to cut ``units``: after the last space in their second half, else at the end."""
    for position in range(len(units) - 1, len(units) // 2, -1):
        if units[position - 1] == " ":
            return position
    return len(units)
