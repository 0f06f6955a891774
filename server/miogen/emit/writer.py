"""Generated tests into a test file: the project's ways first, then the merge, then the file.

One function makes each, calling each part once, in order, with what the parts before found,
in the project's style (line length, formatter, import aliases, minimum Python: ``emit.style``),
which the caller reads once and hands down with the project's tools (``emit.tools``: it
checks the written file in the same style, with the same tools):

    the spellings of its minimum Python (``emit.versions``)
    -> its import conventions (``emit.conventions``)
    -> its formatter and its ruff's safe fixes, on the tests alone (``emit.formatting``)
    -> ``write_merged``: the file placed (``emit.targets``: the intended file, then its
       fallbacks, each confined), then into the first that miogen may write (``emit.files``),
       merged by insertion only (``emit.merge``), written atomically; ``merge_text``: the
       editor's text

The tests' own text (names, imports, fixture) is ``emit.module``'s, made before.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path

from miogen.common.confine import Confined
from miogen.emit import files
from miogen.emit.conventions import conventional
from miogen.emit.formatting import format_tests
from miogen.emit.gate import Rendered, annotate, rewritten
from miogen.emit.merge import MergeResult, merged
from miogen.emit.placement import GeneratedTest
from miogen.emit.source import UnmergeableFile
from miogen.emit.state import FIXTURE_NAME
from miogen.emit.style import Style
from miogen.emit.targets import targets
from miogen.emit.tools import Tools
from miogen.emit.versions import spelled

FALLBACK_TRIES = 100


def merge_text(
    existing: str | None,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str = "",
    project: tuple[Style, Tools] | None = None,
    path: Path | None = None,
    gate: tuple[Mapping[str, Sequence[tuple[str, str]]], bool] = ({}, False),
    rendered: Rendered | None = None,
) -> MergeResult:
    """The merge of ``tests`` into ``existing`` (the editor's text of the file at ``path``),
    made in the ``project``'s style with its tools (``emit.style``, ``emit.tools``: read by
    the caller) as ``write_merged`` writes it; None: as generated. ``gate``, ``rendered``: the
    checkers' gate's fixes and its last text, as for ``write_merged``."""
    style, tools = project if project is not None else (None, None)
    if style is not None and tools is not None:
        imports, tests = _reused(imports, tests, path, rendered, gate[0]) or prepare(
            imports, tests, path, style, tools, gate
        )
    # a file that has the fixture keeps its own (the merge would add a second, renamed)
    fixture = existing is not None and f"def {FIXTURE_NAME}" in existing
    here = [t for t in tests if t.name != FIXTURE_NAME] if fixture else tests
    return merged(existing, imports, here, header, style or Style())


def _reused(
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    path: Path | None,
    rendered: Rendered | None,
    rewrites: Mapping[str, Sequence[tuple[str, str]]],
) -> tuple[list[str], list[GeneratedTest]] | None:
    """The gate's last text of ``imports`` and ``tests`` (``rendered``), with its rewrites,
    when it is theirs at ``path``; None: they are made again."""
    if rendered is None or path is None or not rendered.reusable(path, imports, tests):
        return None
    return list(rendered.prepared[0]), rewritten(rendered.prepared[1], rewrites)


def prepare(
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    path: Path | None,
    style: Style,
    tools: Tools,
    gate: tuple[Mapping[str, Sequence[tuple[str, str]]], bool] = ({}, False),
) -> tuple[list[str], list[GeneratedTest]]:
    """The tests in the project's ``style``: its Python's spellings, its import conventions,
    its formatter's layout (as the file at ``path``, with the project's ``tools``). ``gate``:
    the fixes of the project's checkers' gate (``emit.gate``): its rewrites of lines as
    formatted, made last, and whether each test is annotated, first."""
    rewrites, annotations = gate
    if annotations:
        tests = [annotate(test) for test in tests]
    tests = [dataclasses.replace(t, source=spelled(t.source, style.minimum_python)) for t in tests]
    imports, tests = conventional(imports, tests, style)
    return imports, rewritten(format_tests(tests, style, tools, path, imports), rewrites)


def write_merged(
    path: Path | Confined,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    style: Style,
    tools: Tools,
    header: str = "",
    root: Path | None = None,
    setting: str = "the test file's setting",
    own_only: bool = True,
    tests_root: Path | None = None,
    rewrites: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    annotations: bool = False,
    rendered: Rendered | None = None,
) -> tuple[Path, MergeResult]:
    """Merge into ``path`` and write it atomically; an unmergeable file is left untouched, and so
        is a file that is not miogen's (``files.is_own``) unless ``own_only`` is False (a file the
        user named): the next fallback beside it is tried (``emit.targets``: each candidate named,
    confined and given its package files before ``emit.files`` reads and writes it).

        ``root``: the folder the written file must resolve into (``confine.inside``; a candidate
        that leaves it raises OutsideRoot naming ``setting``, before it is read; nothing is written).
        ``path`` confined already (``confine.Confined``, checked before the run, so that a refused
        output costs no search): its root and setting confine it again at the write, as they do the
        fallbacks (the search takes minutes; a folder may have become a link meanwhile).
        ``tests_root``: the project's test folder; where it is a package, the folders made under it
        get an ``__init__.py`` of miogen's (``project.package_files``).

        The tests are made in the project's ``style`` first (``emit.style.project_style`` of
        ``path``, read by the caller), with its ``tools`` (``emit.tools``, looked up by the caller,
        who checks the written file with them). ``rewrites``: the fixes of the project's
        checkers' gate (``emit.gate``: lines of the tests as formatted, and as written);
        ``annotations``: the gate's too, each test annotated first (``emit.gate.annotate``).
        ``rendered``: the gate's last text (``emit.gate.Rendered``), taken as it is when it is
        of these tests at ``path`` (not made, nor formatted, a second time). Returns the path written and the merge result for that file.
    """
    if isinstance(path, Confined):
        root, setting = path.root, path.setting
        path = path.path
    path = Path(path)
    gate = (rewrites or {}, annotations)
    imports, tests = _reused(imports, tests, path, rendered, gate[0]) or prepare(
        imports, tests, path, style, tools, gate
    )

    def merge(existing: str | None) -> MergeResult:
        # a file that has the fixture keeps its own, as in ``merge_text``
        fixture = existing is not None and f"def {FIXTURE_NAME}" in existing
        here = [t for t in tests if t.name != FIXTURE_NAME] if fixture else tests
        return merged(existing, imports, here, header, style)

    # Each candidate confined again as it is reached, though a Confined was checked before the
    # run: the search took minutes, and a folder on the path may have become a link since.
    placed = itertools.islice(targets(path, root, setting, tests_root), FALLBACK_TRIES)
    for index, target in enumerate(placed):
        try:
            own = own_only or index > 0
            return target.path, files.merge_into(target.written, merge, own, target.packages)
        except UnmergeableFile:
            continue
    raise UnmergeableFile(f"no mergeable file among {FALLBACK_TRIES} candidates for {path}")
