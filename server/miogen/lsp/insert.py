"""Where generated tests go and the WorkspaceEdit that puts them there (insert-only, invariant 3)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path
from pygls.workspace.position_codec import PositionCodec

from miogen.common.confine import inside
from miogen.common.project import ModuleLocation, default_test_path, package_files
from miogen.common.records import TestRecord
from miogen.emit import files
from miogen.emit.gate import Gated
from miogen.emit.merge import MergeResult, UnmergeableFile, fallback_path
from miogen.emit.style import project_style
from miogen.lsp import convert
from miogen.lsp.settings import Settings
from miogen.run.write import merge_into

SETTING = "miogen.testsDirectory (or tests-directory in [tool.miogen])"
OpenFiles = dict[Path, tuple[str, int | None]]  # open documents: path -> (text, version)


@dataclass(frozen=True)
class Insertion:
    path: Path
    uri: str
    shown_path: str  # relative to the project, for titles
    merge: MergeResult
    edit: types.WorkspaceEdit
    exists: bool  # the test file exists (else the edit creates it, when the client can)
    # ``__init__.py`` files of miogen's to create first: the test folder is a package, and the
    # folders the file goes in are new (``project.package_files``).
    packages: tuple[Path, ...] = ()

    @property
    def count(self) -> int:
        return len(self.merge.added)


def test_path(location: ModuleLocation, settings: Settings) -> Path:
    """The unit's generated test file as intended (``plan`` writes to ``own_path`` of it)."""
    return default_test_path(location, settings.tests_directory, settings.test_file_pattern)


def own_test_path(location: ModuleLocation, settings: Settings, open_files: OpenFiles) -> Path:
    """The generated test file the tests go to: the intended one, or the first fallback that is
    miogen's (``emit.files.own_path``), as the editor has the files (unsaved text included)."""

    def text_of(path: Path) -> bytes | None:
        if path in open_files:
            return open_files[path][0].encode("utf-8", "surrogatepass")
        return files.read(path)

    return files.own_path(test_path(location, settings), text_of)


def plan(
    tests: Sequence[TestRecord],
    module_state: bool,
    location: ModuleLocation,
    settings: Settings,
    open_files: OpenFiles,
    codec: PositionCodec,
    document_changes: bool,
    gated: Gated | None = None,
) -> Insertion:
    """Merge ``tests`` into the test file as the editor (or else the disk) has it.

    A file that is not miogen's (``emit.files.is_own``), or does not parse, is never touched:
    the tests go to a fallback (``test_x_miogen_2.py``). ``module_state``: the module the tests were made for keeps state at
    module level (the tests then come with the fresh-state fixture). Reads files, so call it
    off the event loop. The test file (or its fallback) must resolve inside the project root
    (``confine.inside``): else OutsideRoot, and no edit. ``gated``: the project's checkers'
    gate on the tests (``run.gate``, in their job): its fixes are made, its text reused.
    """
    path = own_test_path(location, settings, open_files)
    inside(location.project_root, path, SETTING)
    style = project_style(path)
    text, version, exists = _current(path, open_files)
    try:
        merge = merge_into(text, tests, location.module_name, module_state, style, path, gated)
    except UnmergeableFile:
        path = fallback_path(path)
        inside(location.project_root, path, SETTING)
        text, version, exists = _current(path, open_files)
        merge = merge_into(text, tests, location.module_name, module_state, style, path, gated)
    uri = from_fs_path(str(path)) or path.as_uri()
    edits = convert.text_edits(merge.edits, text or "", codec)
    edit = convert.workspace_edit(
        uri, edits, create=not exists, version=version, document_changes=document_changes
    )
    shown = os.path.relpath(path, location.project_root)
    packages = tuple(package_files(settings.tests_root(location), path))
    return Insertion(path, uri, shown, merge, edit, exists, packages)


def prepare_folder(insertion: Insertion) -> None:
    """The test file's folder, and the ``__init__.py`` files it needs (marked as miogen's; one
    that exists is never touched)."""
    insertion.path.parent.mkdir(parents=True, exist_ok=True)
    for package in insertion.packages:
        try:
            with package.open("x", encoding="utf-8") as init:
                init.write(files.PACKAGE_HEADER)
        except FileExistsError:
            pass


def _current(path: Path, open_files: OpenFiles) -> tuple[str | None, int | None, bool]:
    """(text, version of the open document, whether the file exists)."""
    if path in open_files:
        text, version = open_files[path]
        return text, version, True
    try:
        return path.read_text(encoding="utf-8"), None, True
    except FileNotFoundError:
        return None, None, False
    except (OSError, UnicodeDecodeError):
        return "\0", None, True  # unreadable: merge_tests refuses it and the fallback is used
