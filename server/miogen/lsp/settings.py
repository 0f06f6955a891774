"""Server settings: a typed record with safe defaults, read from layers that may hold junk.

The editor's layers, weakest first: ``initializationOptions``, then ``workspace/configuration``
(section ``miogen``, or what ``workspace/didChangeConfiguration`` pushes), then the answer for the
file's workspace folder. ``[tool.miogen]`` in the file's pyproject.toml comes before or after
them as the editor's ``configurationPreference`` says (``miogen.host.config``: editorFirst by default,
so an explicit editor setting wins; VS Code sends only the settings the user set). A bad value
is dropped with a message and the other layers (in the end the default) apply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from miogen.common.records import to_json
from miogen.host import config
from miogen.host.config import Options, Preference, SaveMode


@dataclass(frozen=True)
class Settings(Options):
    """The engine's options (``miogen.host.config.Options``) and what only the editor uses."""

    on_save: bool = True  # the older switch: false turns generation on save off whatever the mode
    generate_on_save: SaveMode = "untested"  # changed units, then untested ones; or changed only
    diagnostic_severity: str = "information"
    show_covered_branches: bool = True
    max_parallel_jobs: int = 1
    configuration_preference: Preference = "editorFirst"
    # The generate command's edit shown for the user to accept (clients with change annotations)
    preview_tests: bool = True
    # Tests that run on every save should be cheap: covered goals keep the test with the lower
    # performance score (aDynaMOSA's Eq. 1), which never costs coverage.
    performance: bool = True

    @property
    def save_mode(self) -> SaveMode:
        """What a save generates: ``onSave: false`` still means nothing (older settings)."""
        return self.generate_on_save if self.on_save else "off"

    def describe(self) -> str:
        """``onSave=True budgetSeconds=5.0 ...`` with the protocol's key names."""
        values = {key: getattr(self, name) for key, (name, _) in KEYS.items()}
        return " ".join(f"{key}={to_json(value)!r}" for key, value in values.items())


KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    name: (key.field, key.check) for name, key in config.KEYS.items()
}


def read_layer(raw: Any, origin: str) -> tuple[dict[str, Any], list[str]]:
    """The valid values of one layer (by field name) and one message per bad value.

    Unknown keys are ignored: the editor keeps its own settings (the interpreter, the marks'
    style) in the same section.
    """
    raw = plain(raw)
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [f"miogen: settings from {origin} are not an object; using defaults"]
    values, problems = config.read_values(raw, config.KEYS)
    messages = []
    for problem in (p for p in problems if p.known):
        name = config.canonical(problem.key) or problem.key
        default = getattr(Settings(), KEYS[name][0])
        messages.append(
            f"miogen: ignoring {name}={problem.value!r} from {origin} ({problem.reason}); "
            f"falling back to {default!r} unless another source sets it"
        )
    return values, messages


def resolve(*layers: Mapping[str, Any]) -> Settings:
    """Defaults overlaid with each layer's valid values, weakest layer first."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update(layer)
    return dataclasses.replace(Settings(), **merged)


def section(raw: Any) -> Any:
    """The ``miogen`` section of a pushed or initial settings object, or the object itself."""
    raw = plain(raw)
    if isinstance(raw, Mapping) and isinstance(raw.get("miogen"), Mapping):
        return raw["miogen"]
    return raw


def plain(value: Any) -> Any:
    """JSON-like data from what pygls hands over (namedtuples for unknown shapes)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


class ProjectSettings:
    """``[tool.miogen]`` of each project's pyproject.toml, re-read when the file changes; its
    problems (unknown keys, bad values, a file that does not parse) are reported once."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[float, dict[str, Any]]] = {}

    def read(self, project_root: Path, log: Callable[[str], None]) -> dict[str, Any]:
        path = project_root / config.PROJECT_FILE
        try:
            stamp = path.stat().st_mtime
        except OSError:
            return {}
        cached = self._cache.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        found = config.read_project(project_root)
        for problem in found.problems:
            log(f"miogen: ignoring {problem}")
        self._cache[path] = (stamp, found.values)
        return found.values
