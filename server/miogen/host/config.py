"""The settings every front end shares: their keys and checks, ``[tool.miogen]``, one precedence.

A setting has one name in every place it can be written: ``budgetSeconds`` in an editor's
settings, ``budget-seconds`` (or ``budget_seconds``) in the ``[tool.miogen]`` table of the
project's pyproject.toml, ``--budget`` on the command line. Where several places set it, the
rule is ruff's ``configurationPreference``: the command line or the editor first, then the
project file, then the default (``editorFirst``); ``filesystemFirst`` lets the project file win,
``editorOnly`` ignores it. The CLI always works as ``editorFirst`` with its flags as the editor.

``[tool.miogen]`` holds the engine's keys (all front ends) and the editor's (the language
server); ``[tool.miogen.ctg]`` holds ``miogen ctg``'s own. A key nobody knows, or a value of the
wrong kind, is a problem that names the key and the file: the CLI stops with it, the server
reports it and uses the rest.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from miogen.common.confine import escapes
from miogen.common.errors import MiogenError
from miogen.common.project import (
    GENERATED_PATTERN,
    ModuleLocation,
    default_test_path,
    project_tests_folder,
)
from miogen.common.records import Algorithm
from miogen.criteria import parse_criteria

Preference = Literal["editorFirst", "filesystemFirst", "editorOnly"]
PREFERENCES: tuple[Preference, ...] = get_args(Preference)
SaveMode = Literal["untested", "changed", "off"]  # what a save generates, in the editor
SAVE_MODES: tuple[SaveMode, ...] = get_args(SaveMode)
Scope = Literal["engine", "editor", "client", "ctg"]
PROJECT_FILE = "pyproject.toml"
TABLE = "[tool.miogen]"
SEVERITIES = ("error", "warning", "information", "hint")
MAX_BUDGET_SECONDS = 3600.0
MAX_PARALLEL_JOBS = 64


class ConfigError(MiogenError):
    """The project's configuration cannot be used as written (the CLI stops with it)."""


@dataclass(frozen=True)
class Options:
    """What every front end hands the engine: one generation job's settings and its test file.

    Built once per command or editor event from the layers (``merge``, ``options``) and handed
    on as it is: ``run.job.job_spec`` copies the engine's fields into the worker's JobSpec.
    ``budget_seconds`` is one job's: a module's units share it in ``miogen generate``; the
    language server runs one job per class or function.
    """

    budget_seconds: float = 5.0
    tests_directory: str = ""  # relative to the project root; "": pytest's testpaths, tests/...
    test_file_pattern: str = GENERATED_PATTERN  # the name of a generated test file
    seed: int = 0  # of the search's random choices
    evaluations: int | None = None  # a budget in fitness evaluations instead (reproducible runs)
    algorithm: Algorithm = Algorithm.MIO
    criteria: str = "smart"  # goals besides branches: smart | all | branch | a comma list
    performance: bool = False  # covered goals keep the cheaper test (aDynaMOSA's Eq. 1)
    # Kept tests joined into fewer that each do several things (cheaper to run, harder to
    # read); off: one behaviour per test.
    join_tests: bool = False
    test_timeout: float = 1.0  # seconds per test execution
    mutation_share: float = 0.2  # budget share kept for killing mutants; 0 = coverage only

    def test_path(self, location: ModuleLocation) -> Path:
        """The module's generated test file as intended (``emit.files.own_path``: as written)."""
        return default_test_path(location, self.tests_directory, self.test_file_pattern)

    def tests_root(self, location: ModuleLocation) -> Path:
        """The project's test folder, under which generated test files mirror the packages."""
        if self.tests_directory:
            return location.project_root / self.tests_directory
        return project_tests_folder(location.project_root, location.path)

    def test_place(self, location: ModuleLocation) -> tuple[Path, Path]:
        """``tests_root`` and ``test_path`` together, the project's test folder found once."""
        root = self.tests_root(location)
        return root, default_test_path(location, pattern=self.test_file_pattern, folder=root)


DEFAULTS = Options()  # every setting at its default


# --- checks: each returns the clean value or raises ValueError with the reason -------------


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError("expected true or false")


def _seconds(high: float) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("expected a number of seconds")
        if not (math.isfinite(value) and 0 < value <= high):
            raise ValueError(f"expected more than 0 and at most {high:g} seconds")
        return float(value)

    return check


def _fraction(high: float, inclusive: bool) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("expected a number")
        if not (0 <= value <= high if inclusive else 0 <= value < high):
            raise ValueError(f"expected 0 to {high:g}{'' if inclusive else ' (not included)'}")
        return float(value)

    return check


def _whole(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise ValueError("expected a whole number")
        if not low <= value <= high:
            raise ValueError(f"expected {low} to {high}")
        return int(value)

    return check


def _directory(value: Any) -> str:
    """A test folder relative to the project root; "" (the default): pytest's ``testpaths``,
    else ``tests/`` or ``test/`` (``project.project_tests_folder``)."""
    if not isinstance(value, str):
        raise ValueError("expected a folder name")
    if not value.strip():
        return ""
    if Path(value.strip()).is_absolute():
        raise ValueError("expected a folder relative to the project root")
    if escapes(value.strip()):
        raise ValueError("expected a folder inside the project root (miogen writes only there)")
    return value.strip()


def _pattern(value: Any) -> str:
    if not isinstance(value, str) or "{module}" not in value or not value.endswith(".py"):
        raise ValueError("expected a file name with {module} that ends in .py")
    try:
        name = value.format(module="m")
    except (KeyError, IndexError, ValueError) as error:
        raise ValueError(f"the pattern does not format: {error}") from None
    if "/" in name or "\\" in name:
        raise ValueError("expected a file name, not a path")
    return value


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str]:
    by_folded = {choice.lower(): choice for choice in choices}

    def check(value: Any) -> str:
        if isinstance(value, str) and value.strip().lower() in by_folded:
            return by_folded[value.strip().lower()]
        raise ValueError(f"expected one of {', '.join(choices)}")

    return check


def _save_mode(value: Any) -> SaveMode:
    if isinstance(value, bool):  # the boolean onSave written under the new name
        return "untested" if value else "off"
    for mode in SAVE_MODES:
        if isinstance(value, str) and value.strip().lower() == mode:
            return mode
    raise ValueError(f"expected one of {', '.join(SAVE_MODES)}")


def _algorithm(value: Any) -> Algorithm:
    return Algorithm(_one_of(tuple(Algorithm))(value))


def _criteria(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected smart, all, branch or a comma-separated list of criteria")
    parse_criteria(value)  # its ValueError names the criteria there are
    return value


# --- the keys -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """One setting: its record field, its check, who reads it, and how a flag's text parses."""

    field: str
    check: Callable[[Any], Any]
    scope: Scope
    parse: Callable[[str], Any] = str


KEYS: dict[str, Key] = {
    "onSave": Key("on_save", _bool, "editor"),
    "generateOnSave": Key("generate_on_save", _save_mode, "editor"),
    "budgetSeconds": Key("budget_seconds", _seconds(MAX_BUDGET_SECONDS), "engine", float),
    "testsDirectory": Key("tests_directory", _directory, "engine"),
    "testFilePattern": Key("test_file_pattern", _pattern, "engine"),
    "diagnosticSeverity": Key("diagnostic_severity", _one_of(SEVERITIES), "editor"),
    "showCoveredBranches": Key("show_covered_branches", _bool, "editor"),
    "maxParallelJobs": Key("max_parallel_jobs", _whole(1, MAX_PARALLEL_JOBS), "editor", int),
    "seed": Key("seed", _whole(0, 2**31 - 1), "engine", int),
    "evaluations": Key("evaluations", _whole(1, 10**8), "engine", int),
    "algorithm": Key("algorithm", _algorithm, "engine"),
    "criteria": Key("criteria", _criteria, "engine"),
    "performance": Key("performance", _bool, "engine"),
    "joinTests": Key("join_tests", _bool, "engine"),
    "testTimeout": Key("test_timeout", _seconds(600.0), "engine", float),
    "mutationShare": Key("mutation_share", _fraction(1.0, inclusive=False), "engine", float),
    "configurationPreference": Key("configuration_preference", _one_of(PREFERENCES), "client"),
    "previewTests": Key("preview_tests", _bool, "editor"),
}
CTG_KEYS: dict[str, Key] = {  # [tool.miogen.ctg]
    "budget": Key("budget", _seconds(MAX_BUDGET_SECONDS), "ctg", float),
    "jobs": Key("jobs", _whole(1, MAX_PARALLEL_JOBS), "ctg", int),
    "failUnder": Key("fail_under", _fraction(100.0, inclusive=True), "ctg", float),
    "verifyRuns": Key("verify_runs", _whole(1, 20), "ctg", int),
}


def folded(name: str) -> str:
    """``budgetSeconds``, ``budget_seconds`` and ``budget-seconds`` all fold to one name."""
    return name.replace("_", "").replace("-", "").lower()


def kebab(name: str) -> str:
    """The project file's spelling: ``budgetSeconds`` -> ``budget-seconds``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def canonical(name: str, keys: Mapping[str, Key] = KEYS) -> str | None:
    """The protocol name of a key however it is spelled; None for a key ``keys`` lacks."""
    return next((known for known in keys if folded(known) == folded(name)), None)


@dataclass(frozen=True)
class Problem:
    """A key of one layer that is left out: unknown, or with a value its check refuses."""

    key: str  # as written
    value: Any
    reason: str
    known: bool  # False: no setting has this name


def read_values(
    raw: Mapping[str, Any], keys: Mapping[str, Key] = KEYS
) -> tuple[dict[str, Any], list[Problem]]:
    """The valid values of one layer (by record field) and the keys left out. None is unset."""
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for written, value in raw.items():
        name = canonical(str(written), keys)
        if name is None:
            problems.append(Problem(str(written), value, _unknown(str(written), keys), False))
        elif value is not None:
            try:
                values[keys[name].field] = keys[name].check(value)
            except ValueError as error:
                problems.append(Problem(str(written), value, str(error), True))
    return values, problems


def _unknown(written: str, keys: Mapping[str, Key]) -> str:
    spelled = [kebab(name) for name in keys]
    close = difflib.get_close_matches(kebab(written.replace("_", "-")), spelled, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"no such setting (known: {', '.join(spelled)}){hint}"


def flag(name: str, keys: Mapping[str, Key] = KEYS) -> Callable[[str], Any]:
    """An argparse ``type=`` for the setting: the flag's text is checked as the file's value."""
    key = keys[name]

    def parse(text: str) -> Any:
        try:
            value = key.parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        try:
            return key.check(value)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"{text!r}: {error}") from None

    parse.__name__ = kebab(name)  # argparse names the type in some messages
    return parse


# --- the project file -----------------------------------------------------------------------


@dataclass(frozen=True)
class ProjectConfig:
    """``[tool.miogen]`` of one project: valid values by record field, and what was left out."""

    path: Path
    values: dict[str, Any]
    ctg: dict[str, Any]  # [tool.miogen.ctg]
    problems: tuple[str, ...] = ()  # each names the file and the key

    def check(self) -> ProjectConfig:
        """Itself, or a ConfigError listing every problem (what the CLI does with the file)."""
        if self.problems:
            raise ConfigError("\n".join(self.problems))
        return self


def read_project(root: Path) -> ProjectConfig:
    """The configuration in ``root``'s pyproject.toml (none there: empty), never raising."""
    path = root / PROJECT_FILE
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("miogen")
    except FileNotFoundError:
        return ProjectConfig(path, {}, {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return ProjectConfig(path, {}, {}, (f"{path}: cannot read the file: {error}",))
    if table is None:
        return ProjectConfig(path, {}, {})
    if not isinstance(table, dict):
        return ProjectConfig(path, {}, {}, (f"{path}: {TABLE} is not a table",))
    ctg = table.pop("ctg", {})
    values, problems = read_values(table, KEYS)
    messages = [_message(path, TABLE, problem) for problem in problems]
    messages += _client_only(path, values)
    if not isinstance(ctg, dict):
        messages.append(f"{path}: {TABLE} ctg: expected a table ([tool.miogen.ctg])")
        ctg = {}
    ctg_values, ctg_problems = read_values(ctg, CTG_KEYS)
    messages += [_message(path, "[tool.miogen.ctg]", problem) for problem in ctg_problems]
    return ProjectConfig(path, values, ctg_values, tuple(messages))


def load_project(root: Path) -> ProjectConfig:
    """The project's configuration, or a ConfigError naming each bad key and the file."""
    return read_project(root).check()


def _message(path: Path, table: str, problem: Problem) -> str:
    if not problem.known:
        return f"{path}: {table} {problem.key}: {problem.reason}"
    return f"{path}: {table} {problem.key} = {json.dumps(problem.value, default=str)}: {problem.reason}"


def _client_only(path: Path, values: dict[str, Any]) -> list[str]:
    """Editor settings that say how to treat this file cannot be set in it."""
    names = [name for name, key in KEYS.items() if key.scope == "client" and key.field in values]
    for name in names:
        del values[KEYS[name].field]
    return [
        f"{path}: {TABLE} {kebab(name)}: an editor setting (miogen.{name}); it cannot be set "
        "in the project file"
        for name in names
    ]


# --- precedence -----------------------------------------------------------------------------


# Settings that widen what runs: a project file (a cloned repository) may lower them, but not
# raise them above the editor's or the command line's value, nor, where those leave them unset,
# above these ceilings (by record field).
PROJECT_CEILINGS: dict[str, float] = {
    "max_parallel_jobs": 4,
    "budget_seconds": 60.0,
    "evaluations": 100_000,
    "test_timeout": 10.0,
    "jobs": 4,  # [tool.miogen.ctg]
    "budget": 600.0,  # [tool.miogen.ctg]
}
_NAMES = {key.field: name for name, key in (*KEYS.items(), *CTG_KEYS.items())}


def capped(
    project: Mapping[str, Any], *explicit: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The project file's values with those that widen what runs capped (``PROJECT_CEILINGS``,
    or the explicit layers' value when they set one), and one note per value capped."""
    given: dict[str, Any] = {}
    for layer in explicit:
        given.update(layer)
    values, notes = dict(project), []
    for field, ceiling in PROJECT_CEILINGS.items():
        value = values.get(field)
        if value is None:
            continue
        limit = given.get(field) if given.get(field) is not None else ceiling
        if value > limit:
            values[field] = type(value)(limit)
            whose = "the explicit setting" if given.get(field) is not None else "miogen's ceiling"
            notes.append(
                f"{kebab(_NAMES[field])} = {value:g} in {PROJECT_FILE} is capped at "
                f"{values[field]:g} ({whose}: a project file may not raise it)"
            )
    return values, notes


def merge(
    project: Mapping[str, Any],
    *explicit: Mapping[str, Any],
    preference: Preference = "editorFirst",
) -> dict[str, Any]:
    """Values by record field from the project file and the explicit layers (weakest first:
    flags, or the editor's settings), as ``preference`` orders them; defaults fill the rest.
    The project file's values that widen what runs are ``capped`` first."""
    project = capped(project, *explicit)[0]
    if preference == "editorOnly":
        layers: tuple[Mapping[str, Any], ...] = explicit
    elif preference == "filesystemFirst":
        layers = (*explicit, project)
    else:
        layers = (project, *explicit)
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update(layer)
    return merged


def options(values: Mapping[str, Any]) -> Options:
    """The engine's options among merged values (editor-only and ctg keys are left aside)."""
    fields = Options.__dataclass_fields__
    return Options(**{name: value for name, value in values.items() if name in fields})


FIELDS = frozenset(key.field for key in (*KEYS.values(), *CTG_KEYS.values()))


def command_line(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The CLI's values by record field: the flags given (not None) > ``[tool.miogen]`` and
    ``[tool.miogen.ctg]`` of ``root`` (a ConfigError names every bad key) > the defaults."""
    project = load_project(root)
    given = _set({name: value for name, value in vars(args).items() if name in FIELDS})
    for note in capped({**project.values, **project.ctg}, given)[1]:
        print(f"miogen: {note}", file=sys.stderr)
    return merge({**project.values, **project.ctg}, given)


def _set(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}
