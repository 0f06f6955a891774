"""Merges generated tests into a test file by insertion only: every line the user wrote survives."""

from __future__ import annotations

import ast
import itertools
import os
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from miogen.common.confine import inside
from miogen.emit import files
from miogen.emit.conventions import conventional
from miogen.emit.formatting import format_tests
from miogen.emit.import_places import import_inserts
from miogen.emit.imports import (
    FUTURE,
    ImportItem,
    import_items,
    module_scope,
    parse_imports,
    render_imports,
    section_of,
    select_imports,
)
from miogen.emit.placement import GeneratedTest, Placement, place_tests, test_bodies
from miogen.emit.source import (
    ExistingModule,
    UnmergeableFile,
    is_docstring,
    is_future,
    is_main_guard,
    parse_module,
)
from miogen.emit.style import Style, project_style
from miogen.emit.text import (
    BOM,
    LINE_BREAK,
    Lines,
    TextEdit,
    apply_edits,
    line_ending,
    trailing_blank_lines,
)

FALLBACK_TRIES = 100

__all__ = [
    "LINE_BREAK",
    "GeneratedTest",
    "MergeResult",
    "TextEdit",
    "UnmergeableFile",
    "apply_edits",
    "fallback_path",
    "merge_tests",
    "write_merged",
]


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


def merge_tests(
    existing: str | None,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str = "",
    style: Style | None = None,
) -> MergeResult:
    """Merge ``tests`` and their ``imports`` into ``existing``; a new module when it is empty.

    ``header`` is used for a new module only. Merging the same tests again adds nothing.
    New imports go where isort would put them, in ``style``'s sections (``Style()``: no
    first-party packages known, 88 characters).
    """
    style = style or Style()
    return _merged(existing, *conventional(imports, tests, style), header, style)


def _merged(
    existing: str | None,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str,
    style: Style,
) -> MergeResult:
    """``merge_tests`` of tests and imports in the project's conventions already."""
    wanted = parse_imports([*style.required_imports, *imports])
    if not existing:
        return _new_module(wanted, tests, header, style)
    return _merge_existing(parse_module(existing), wanted, tests, style)


def fallback_path(test_path: Path) -> Path:
    """``tests/test_shapes.py`` -> ``tests/test_shapes_miogen.py`` (``_miogen_2``... when taken).

    A candidate is taken when it exists and is not miogen's, or cannot be merged into.
    """
    return next(p for p in files.fallback_candidates(test_path) if files.is_mergeable(p))


def write_merged(
    path: Path,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str = "",
    style: Style | None = None,
    root: Path | None = None,
    setting: str = "the test file's setting",
    own_only: bool = True,
) -> tuple[Path, MergeResult]:
    """Merge into ``path`` and write it atomically; an unmergeable file is left untouched, and so
    is a file that is not miogen's (``files.is_own``) unless ``own_only`` is False (a file the
    user named).

    ``root``: the folder the written file must resolve into (``confine.inside``; a candidate
    that leaves it raises OutsideRoot naming ``setting``, and nothing is written).

    The tests are formatted in the project's style first (``style``, by default read from the
    project ``path`` is in). Returns the path written (``path`` or a fallback) and the merge
    result for that file.
    """
    path = Path(path)
    style = style or project_style(path)
    imports, tests = conventional(imports, tests, style)
    tests = format_tests(tests, style, path, imports)
    candidates = itertools.chain([path], files.fallback_candidates(path))
    for index, candidate in enumerate(itertools.islice(candidates, FALLBACK_TRIES)):
        try:
            only_own = own_only or index > 0
            target = inside(root, candidate, setting) if root is not None else candidate
            return candidate, _merge_into(target, imports, tests, header, style, only_own)
        except UnmergeableFile:
            continue
    raise UnmergeableFile(f"no mergeable file among {FALLBACK_TRIES} candidates for {path}")


def _merge_into(
    path: Path,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str,
    style: Style,
    own_only: bool,
) -> MergeResult:
    """Merge into one file; retried when the file changes between reading and replacing.
    ``imports`` and ``tests``: in the project's conventions (``write_merged``'s)."""
    target = Path(os.path.realpath(path))  # replace a symlink's target, not the link
    for _ in range(3):
        original = files.read(target)
        if own_only and not files.is_own(original):
            raise UnmergeableFile(f"{path} is not a file of miogen's: it is left as it is")
        if original is None:
            result = _merged(None, imports, tests, header, style)
            data = result.text.encode("utf-8")
        else:
            decoded = files.decode(original)
            result = _merged(decoded.text, imports, tests, header, style)
            data = files.encode_inserts(original, decoded, result.edits, result.text)
        if data == (original or b""):
            return result
        if files.replace_if_unchanged(target, data, expected=original):
            return result
    raise UnmergeableFile(f"{path} kept changing while the tests were merged into it")


# --- a new module -------------------------------------------------------------------------


def _new_module(
    wanted: list[ImportItem], tests: Sequence[GeneratedTest], header: str, style: Style
) -> MergeResult:
    chosen, conflicts = select_imports(wanted, [], set())
    placement = place_tests(tests, {i.bound for i in chosen if i.bound}, set())
    chosen = _without_skipped_needs(chosen, tests, placement)
    blocks = [
        (_header_block(header, style.line_length), 1),
        ("\n".join(render_imports(chosen, style, sections=True)), 1),
        *((source.rstrip("\n"), 2) for source in placement.sources),
    ]
    text = ""
    for block, blank_lines in blocks:
        if block:
            text = text + "\n" * (blank_lines + 1) + block if text else block
    text = f"{text}\n" if text else ""
    edits = [TextEdit(0, 0, 0, 0, text)] if text else []
    return _result(text, placement, edits, conflicts)


def _without_skipped_needs(
    items: list[ImportItem], tests: Sequence[GeneratedTest], placement: Placement
) -> list[ImportItem]:
    """Leave out imports that only skipped tests use (their twins already in the file do not)."""
    wanted_by = {name for test in tests for name in _names_used(test.source)}
    used = {name for source in placement.sources for name in _names_used(source)}
    return [i for i in items if i.bound is None or i.bound in used or i.bound not in wanted_by]


def _names_used(source: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}


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


def _result(
    text: str, placement: Placement, edits: list[TextEdit], conflicts: list[ImportItem]
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


def _merge_existing(
    module: ExistingModule, wanted: list[ImportItem], tests: Sequence[GeneratedTest], style: Style
) -> MergeResult:
    wanted, refused = _refuse_new_futures(module, wanted)
    have, other_names = module_scope(module.tree)
    added, conflicts = select_imports(wanted, have, other_names)
    conflicts = [*dict.fromkeys([*refused, *conflicts])]
    bound = other_names | {i.bound for i in (*have, *added) if i.bound}
    placement = place_tests(tests, bound, test_bodies(module.tree))
    added = _without_skipped_needs(added, tests, placement)
    inserts: dict[int, str] = {}
    for offset, text in import_inserts(module, added, style):
        _insert(inserts, offset, text)
    if placement.sources:
        _insert(inserts, *_tests_block(module, inserts, placement.sources))
    text = _splice(module.text, inserts)
    _check_merged(text, placement.added)
    return _result(text, placement, _edits(module.lines, inserts), conflicts)


def _refuse_new_futures(
    module: ExistingModule, wanted: list[ImportItem]
) -> tuple[list[ImportItem], list[ImportItem]]:
    """Leave out __future__ imports the file lacks: they would change how its code compiles."""
    body = module.tree.body
    start = 1 if body and is_docstring(body[0]) else 0
    if all(is_future(node) for node in body[start:]):
        return wanted, []
    have = {
        item
        for node in body[start:]
        if isinstance(node, ast.ImportFrom) and is_future(node)
        for item in import_items(node)
    }
    refused = [i for i in wanted if section_of(i) == FUTURE and i not in have]
    return [i for i in wanted if i not in refused], refused


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
