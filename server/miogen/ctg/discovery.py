"""Finds the modules under the given paths and reads each one statically (never imports it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from miogen.analysis.model import ModuleModel, Unit
from miogen.analysis.module import analyze_file
from miogen.common.errors import MiogenError
from miogen.common.history import content_hash
from miogen.common.project import (
    GENERATED_PATTERN,
    ModuleLocation,
    default_test_path,
    find_project_root,
    locate,
    module_files,
    project_tests_folder,
)
from miogen.emit.files import own_path


@dataclass
class Module:
    """One module of the project: where it is, its tests, and its static model (or why not)."""

    location: ModuleLocation
    relative: str  # path from the project root, with "/": the history's key
    test_path: Path  # its generated test file (miogen's own: ``emit.files.own_path``)
    source_hash: str
    model: ModuleModel | None = None
    error: str = ""
    tests_root: Path | None = None  # the project's test folder (``project.project_tests_folder``)
    # Private units taken beside the public ones, with their targets the project's suite
    # leaves open (``run.shares.unreached_private``): set once the suite is measured.
    private: list[tuple[Unit, int]] = field(default_factory=list)

    def key(self, unit: Unit) -> str:
        return f"{self.relative}::{unit.name}"

    @property
    def units(self) -> list[Unit]:
        """The module's public units, and the private ones taken (``private``)."""
        if self.model is None:
            return []
        return [*self.model.units, *(unit for unit, _ in self.private)]

    @property
    def analysed(self) -> ModuleModel:
        """The static model of a module that was analysed (the runner keeps only those)."""
        if self.model is None:
            raise ValueError(f"{self.relative} was not analysed: {self.error}")
        return self.model


def project_root(paths: list[Path], given: str | Path | None = None) -> Path:
    if given:
        return Path(given).resolve()
    return find_project_root(paths[0].resolve() if paths else Path.cwd())


def discover(
    paths: list[Path],
    root: Path,
    tests_directory: str = "",
    test_file_pattern: str = GENERATED_PATTERN,
) -> list[Module]:
    """Every module under ``paths``, analysed; a module that does not parse carries its error.
    Each module's test file is ``test_file_pattern`` under ``tests_directory`` (relative to
    ``root``; empty: ``project.project_tests_folder``), in folders mirroring its package path."""
    modules = []
    try:
        files = module_files(paths)
    except FileNotFoundError as error:
        raise MiogenError(str(error)) from None
    for path in files:
        location = locate(path, root)
        try:
            relative = path.relative_to(root).as_posix()
        except ValueError:
            relative = path.as_posix()
        if _is_empty(path):
            continue  # an empty __init__.py has nothing to test (and coverage.py's parser refuses it)
        test_file = own_path(default_test_path(location, tests_directory, test_file_pattern))
        module = Module(location, relative, test_file, content_hash(path))
        module.tests_root = (
            root / tests_directory if tests_directory else project_tests_folder(root, path)
        )
        try:
            module.model = analyze_file(path, location.module_name)
        except MiogenError as error:
            module.error = str(error)
        except Exception as error:  # noqa: BLE001 - one unreadable module must not stop the run
            module.error = f"{path}: cannot be analysed: {type(error).__name__}: {error}"
        modules.append(module)
    return modules


def _is_empty(path: Path) -> bool:
    try:
        return not path.read_bytes().strip()
    except OSError:
        return False
