"""Where a file is and what applies to it: workspace folder, project root, module, settings.

The editor's settings come in layers, weakest first: ``initializationOptions``, the client's
configuration (pulled or pushed), the client's configuration for the file's workspace folder (a
multi-root workspace can set other values per folder). ``[tool.miogen]`` in the file's project
goes below them, above them or nowhere, as their ``configurationPreference`` says (see
``miogen.host.config.merge``).

A file's ``Place`` (folder, project root and module, settings) is computed once and kept until the
settings version changes: new editor settings (``configure``), other workspace folders or a
project file that changed on disk (``changed``); a cached place is also dropped when its project
file's stamp differs (a client that does not watch files). A place also says whether a save of
the file generates (``Place.save_skipped``: decided with it; a save reads it, it does not ask the
locator again); ``history_of`` reads what the project's history
knows of its units.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from miogen.common.history import DEFAULT_PATH, recorded_units
from miogen.common.project import ModuleLocation, find_project_root, is_test_file, locate
from miogen.host.config import PROJECT_FILE, capped, merge
from miogen.lsp.settings import ProjectSettings, Settings, read_layer, resolve, section

INITIALIZATION = "initializationOptions"
MAX_PLACES = 1024  # files whose place is kept (open documents, files changed on disk)


@dataclass(frozen=True)
class Place:
    """Where a file is and what applies to it, as of one settings version."""

    path: Path
    folder: Path | None  # the innermost workspace folder holding it; None outside them all
    project_root: Path  # the nearest project folder, never above the workspace folder
    settings: Settings
    version: int  # the settings version it was computed under
    test_file: bool  # its code is tests (pytest's names, conftest.py), not units
    # why a save of the file generates nothing, and whether that is a warning; None when it
    # generates (decided with the place: a save reads it, it does not ask the locator again)
    save_skipped: tuple[str, bool] | None = None

    @cached_property
    def location(self) -> ModuleLocation:
        """Its project root, import root and module name (a file's: asked of files only)."""
        return locate(self.path, self.project_root)


class Locator:
    """Folders come from the client (they change); settings layers are kept here."""

    def __init__(
        self,
        folders: Callable[[], list[Path]],
        warn: Callable[[str], None],
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.folders = folders
        self.warn = warn
        self.log = log or (lambda _: None)
        self.told: dict[Path, str] = {}  # per project root: the settings last logged
        self.init_layer: dict[str, Any] = {}
        self.config_layer: dict[str, Any] = {}
        self.folder_layers: dict[Path, dict[str, Any]] = {}  # asked per folder (scopeUri)
        self.projects = ProjectSettings()
        self.version = 0  # bumped whenever what a place depends on may have changed
        self._places: dict[Path, tuple[float | None, Place]] = {}

    def changed(self) -> None:
        """Settings, folders or a project file changed: places are computed anew."""
        self.version += 1
        self._places.clear()

    def place(self, path: Path) -> Place:
        """``path``'s place under the current settings version (computed once per version)."""
        cached = self._places.get(path)
        if cached is not None and cached[0] == _stamp(cached[1].project_root):
            return cached[1]
        folder = self.folder_of(path)
        test_file, root = is_test_file(path), find_project_root(path.resolve())
        if folder is not None and not root.is_relative_to(folder):
            root = folder  # never above the workspace folder
        stamp, settings = _stamp(root), self._settings(path, folder, root)
        # why a save generates nothing, decided once with the place
        name, skipped = path.name, None
        if settings.save_mode == "off":
            switch = "generateOnSave" if settings.on_save else "onSave"
            skipped = f"miogen: {name} saved; {switch} is off", False
        elif test_file:
            skipped = f"miogen: {name} is a test file; nothing to generate", False
        elif folder is None:
            where = f"{path} is outside the workspace folders"
            skipped = f"miogen: {name} saved; not generating: {where}", True
        place = Place(path, folder, root, settings, self.version, test_file, skipped)
        if len(self._places) >= MAX_PLACES:
            self._places.clear()
        self._places[path] = (stamp, place)
        return place

    def module_name(self, path: Path) -> str:
        return self.place(path).location.module_name

    def configure(self, raw: Any, origin: str) -> Settings:
        """Take one layer of settings (bad values are reported and dropped); the result."""
        values, problems = read_layer(section(raw), origin)
        for problem in problems:
            self.warn(problem)
        if origin == INITIALIZATION:
            self.init_layer = values
        else:
            self.config_layer = values
        self.changed()
        return resolve(self.init_layer, self.config_layer)

    def configure_folders(self, answers: dict[Path, Any]) -> None:
        """Take the client's settings for each workspace folder (bad values reported, dropped)."""
        self.folder_layers = {}
        self.changed()
        for folder, raw in answers.items():
            values, problems = read_layer(section(raw), f"workspace/configuration for {folder}")
            self.folder_layers[folder] = values
            for problem in problems:
                self.warn(problem)

    def settings_in(self, folder: Path | None) -> Settings:
        """The editor's settings for files of ``folder`` (without the project file)."""
        scoped = self.folder_layers.get(folder, {}) if folder is not None else {}
        return resolve(self.init_layer, self.config_layer, scoped)

    def settings_for(self, path: Path) -> Settings:
        """The settings for ``path``: the editor's and its project's, in the editor's order."""
        return self.place(path).settings

    def _settings(self, path: Path, folder: Path | None, root: Path) -> Settings:
        scoped = self.folder_layers.get(folder, {}) if folder is not None else {}
        editor = (self.init_layer, self.config_layer, scoped)
        preference = resolve(*editor).configuration_preference
        if preference == "editorOnly":
            return resolve(*editor)  # the project file is not even read (nor reported on)
        project = self.projects.read(root, self.warn)
        settings = resolve(merge(project, *editor, preference=preference))
        if project:  # the log says what is used: the project file's values, capped
            notes = capped(project, *editor)[1]
            told = " ".join([settings.describe(), *notes])
            if self.told.get(root) != told:
                self.told[root] = told
                for note in notes:
                    self.warn(f"miogen: {note}")
                self.log(f"miogen: settings for {root} (with its {PROJECT_FILE}): "
                         f"{settings.describe()}")  # fmt: skip
        return settings

    def folder_of(self, path: Path) -> Path | None:
        """The innermost workspace folder holding ``path``; None outside them all."""
        inside = [f for f in self.folders() if path.resolve().is_relative_to(f)]
        return max(inside, key=lambda f: len(f.parts)) if inside else None

    def project_root(self, path: Path) -> Path:
        """The nearest pyproject.toml/setup.cfg/.git folder, but never above the workspace folder."""
        return self.place(path).project_root

    def location(self, path: Path) -> ModuleLocation:
        return self.place(path).location


def _stamp(root: Path) -> float | None:
    """The project file's modification time (None: there is none)."""
    try:
        return (root / PROJECT_FILE).stat().st_mtime
    except OSError:
        return None


def history_of(project_root: Path, path: Path) -> set[str]:
    """The units of the module at ``path`` that the project's history knows (reads a file)."""
    try:
        module = path.resolve().relative_to(project_root.resolve()).as_posix()
    except ValueError:
        return set()
    return recorded_units(project_root / DEFAULT_PATH, module)
