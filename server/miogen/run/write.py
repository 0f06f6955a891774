"""Writing a module's verified tests: the module text, the merge, the file and its notes.

The text of a set of tests (imports, functions, a module-state fixture, parametrized groups) is
the same in the verification's scratch file, in the editor's WorkspaceEdit and in the file the
CLI writes; the write is insert-only and atomic (invariant 3).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from miogen.common.confine import Confined
from miogen.common.project import ModuleLocation, pytest_sys_path, time_freezer
from miogen.common.records import TestRecord
from miogen.emit import files
from miogen.emit.checks import check_notes
from miogen.emit.gate import Gated
from miogen.emit.merge import MergeResult
from miogen.emit.module import module_text
from miogen.emit.style import Style, project_style
from miogen.emit.tools import project_tools
from miogen.emit.writer import merge_text, write_merged
from miogen.host.config import PROJECT_FILE, Options
from miogen.host.interpreter import OWN, Interpreter, import_origin
from miogen.run.result import ModuleRun

HEADER = files.HEADER  # a generated file's first line: miogen writes only files that have it


@dataclass(frozen=True)
class Output:
    """Where the CLI writes a module's tests, and the folder that file must resolve into."""

    path: Path
    root: Path  # the file (and any fallback) must resolve inside it (``confine.inside``)
    setting: str = "tests-directory in [tool.miogen]"  # named when it does not
    own_only: bool = True  # only into a file of miogen's, else a fallback beside it
    tests_root: Path | None = None  # the project's test folder (``project.package_files``)


def output_for(location: ModuleLocation, settings: Options, given: Path | None) -> Output:
    """Where ``miogen generate`` writes the module's tests, decided once by the front end:
    ``given`` (``--output``), else the project's settings (``tests-directory``, pytest's
    testpaths, ``tests/``; a file of miogen's own there).

    The file must resolve into the project's folder (a symlink, a ``tests`` folder linking
    elsewhere, may not lead it out), unless ``given`` names a place outside it in so many
    words: the user's choice, then, and its own folder.
    """
    root = location.project_root
    if given is None:
        tests_root, path = settings.test_place(location)
        where = f"tests-directory in [tool.miogen] of {PROJECT_FILE}"
        return Output(path, root, where, tests_root=tests_root)
    named = Path(os.path.normpath(Path(os.getcwd(), given)))  # getcwd: symlinks resolved
    return Output(given, root if named.is_relative_to(root) else named.parent, "--output", False)


def write_module(
    result: ModuleRun,
    output: Output,
    interpreter: Interpreter = OWN,
    confined: Confined | None = None,
) -> None:
    """Merge the run's kept tests into ``output`` (none kept: nothing written), noting what
    the user should know about the file: how pytest imports the module, the project's
    checkers, a project that freezes time. ``confined``: ``output.path`` as it was checked
    before the run (``run.generate``), written to without a second check; None: checked here."""
    tests = result.tests
    if not tests:
        return
    started = time.monotonic()
    location = result.location
    style = project_style(output.path)  # read once: the tests are made, and checked, in it
    tools = project_tools(style)  # looked up once: they format the tests and check the file
    imports, generated = module_text(tests, location.module_name, result.model.has_module_state)
    gated = result.gated  # the fixes of the project's checkers' gate (``run.gate``)
    result.output, result.merge = write_merged(
        confined or output.path, imports, generated, style, tools, HEADER, root=output.root,
        setting=output.setting, own_only=output.own_only, tests_root=output.tests_root,
        rewrites=gated.rewrites if gated else None, annotations=bool(gated and gated.annotations),
        rendered=gated.rendered if gated else None,
    )  # fmt: skip
    verified_there = result.verification is not None and result.verification.in_project
    if not verified_there and (problem := import_problem(location, result.output, interpreter)):
        result.notes.append(problem)  # (the project's pytest imported it in the verification)
    result.notes += check_notes(result.output, style, tools)
    if freezer := time_freezer(location.project_root):
        result.notes.append(
            f"the project freezes time with {freezer}: clock-derived values are still "
            "not asserted (the tests do not freeze the clock)"
        )
    result.seconds["write"] = time.monotonic() - started


def merge_into(
    existing: str | None,
    tests: Sequence[TestRecord],
    module_name: str,
    module_state: bool,
    style: Style | None = None,
    path: Path | None = None,
    gated: Gated | None = None,
) -> MergeResult:
    """The merge of ``tests`` into a test file's text (the editor's, for the language server),
    made in the project's ``style`` as its file at ``path`` is written (``emit.writer``); None:
    as generated. ``gated``: the checkers' gate's decisions on them (``run.gate``): its fixes
    made, its last text taken when it is theirs."""
    imports, generated = module_text(tests, module_name, module_state)
    project = (style, project_tools(style)) if style is not None else None
    fixes = (gated.rewrites, gated.annotations) if gated is not None else ({}, False)
    rendered = gated.rendered if gated is not None else None
    return merge_text(existing, imports, generated, HEADER, project, path, fixes, rendered)


def write_tests(
    path: Path,
    tests: Sequence[TestRecord],
    module_name: str,
    module_state: bool,
    root: Path,
    setting: str = "tests-directory in [tool.miogen]",
    own_only: bool = True,
    tests_root: Path | None = None,
    gated: Gated | None = None,
) -> tuple[Path, MergeResult]:
    """Merge ``tests`` into the file at ``path`` (insert-only, atomic; a fallback file when it
    cannot be merged into, or is not miogen's while ``own_only``); returns the path written and
    the merge. The file written must resolve inside ``root`` (else OutsideRoot, naming
    ``setting``, and nothing is written). ``tests_root``: the project's test folder; where it is
    a package, the folders made under it get an ``__init__.py`` of miogen's
    (``project.package_files``). The tests are made in the project's style (``emit.style``).
    ``gated``: the checkers' gate's decisions on them (``run.gate``): its fixes made, its last
    text taken when it is theirs."""
    imports, generated = module_text(tests, module_name, module_state)
    style = project_style(path)
    return write_merged(
        Path(path), imports, generated, style, project_tools(style), HEADER, root=root,
        setting=setting, own_only=own_only, tests_root=tests_root,
        rewrites=gated.rewrites if gated else None, annotations=bool(gated and gated.annotations),
        rendered=gated.rendered if gated else None,
    )  # fmt: skip


def import_fix(location: ModuleLocation) -> str:
    """How to make the project's plain pytest import the module from its import root."""
    relative = Path(os.path.relpath(location.import_root, location.project_root)).as_posix()
    return (
        f'add pythonpath = ["{relative}"] under [tool.pytest.ini_options] in pyproject.toml, or '
        "install the project into its environment (pip install -e .)"
    )


def import_problem(
    location: ModuleLocation, test_file: Path, interpreter: Interpreter = OWN
) -> str:
    """Why the project's plain ``pytest`` (at its root, its configuration, no PYTHONPATH of
    miogen's) would not import the module under test from ``test_file`` as the tests expect,
    and how to fix it; empty when it would."""
    root = location.project_root.resolve()
    if not test_file.resolve().is_relative_to(root):
        return ""  # a file the user put elsewhere: run from where, nobody knows
    top = location.module_name.split(".")[0]
    first = pytest_sys_path(location.project_root, test_file)
    origin = import_origin(interpreter, top, first, location.project_root)
    if origin is not None and Path(origin).resolve().is_relative_to(location.import_root.resolve()):
        return ""
    fix = import_fix(location)
    if origin is None:
        return f"the project's pytest cannot import {top} from {test_file.name}: {fix}"
    return (
        f"the project's pytest imports {top} from {origin}, not from {location.import_root}: {fix}"
    )
