"""Merges generated tests into a test file's text by insertion only: every line the user
wrote survives.

One function, ``merged``, makes the text, calling each part once, in order, and handing
each what the parts before it found:

    the file's text and the import lines -> parsed (``emit.source``)
    -> the imports to add, and the names bound once they are in (``emit.imports``)
    -> the tests that go in, under which names (``emit.placement``)
    -> the text, the import lines where isort puts them and the tests at the end, its
       insert-only edits, checked (``emit.layout``)

No part calls another. ``merge_tests`` applies the project's import conventions first (tests
as generated); writing a file is ``emit.writer``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from miogen.emit import files
from miogen.emit.conventions import conventional
from miogen.emit.imports import plan_imports
from miogen.emit.layout import merged_text
from miogen.emit.placement import GeneratedTest, place_tests
from miogen.emit.source import UnmergeableFile, parse_merge
from miogen.emit.style import Style
from miogen.emit.targets import fallback_candidates
from miogen.emit.text import LINE_BREAK, TextEdit, apply_edits

__all__ = [
    "LINE_BREAK",
    "GeneratedTest",
    "MergeResult",
    "TextEdit",
    "UnmergeableFile",
    "apply_edits",
    "fallback_path",
    "merge_tests",
    "merged",
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
    imports, tests = conventional(imports, tests, style)
    return merged(existing, imports, tests, header, style)


def merged(
    existing: str | None,
    imports: Sequence[str],
    tests: Sequence[GeneratedTest],
    header: str,
    style: Style,
) -> MergeResult:
    """``merge_tests`` of tests and imports in the project's conventions already."""
    parsed = parse_merge(existing, imports, style.required_imports)
    module = parsed.module
    plan = plan_imports(parsed.imports, module, style)
    placement = place_tests(tests, plan.taken, module.tree if module is not None else None)
    text, edits = merged_text(module, plan, placement, header, style)
    return MergeResult(
        text, placement.added, placement.renamed, placement.skipped, edits, plan.conflicts
    )


def fallback_path(test_path: Path) -> Path:
    """``tests/test_shapes.py`` -> ``tests/test_shapes_miogen.py`` (``_miogen_2``... when taken).

    A candidate is taken when it exists and is not miogen's, or cannot be merged into.
    """
    return next(p for p in fallback_candidates(test_path) if files.is_mergeable(p))
