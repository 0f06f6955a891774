"""Server settings: a typed record with safe defaults, read from three layers that may hold junk.

Layers, weakest first: ``initializationOptions``, then ``workspace/configuration`` (section
``miogen``, or what ``workspace/didChangeConfiguration`` pushes), then ``[tool.miogen]`` in the
file's pyproject.toml. A key that a stronger layer sets wins; a bad value is dropped with a message
and the weaker layers (in the end the default) apply. The project file comes last because editors
send every key with its default filled in, so the team's file would otherwise never count.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from miogen.criteria import parse_criteria
from miogen.records import Algorithm

SEVERITIES = ("error", "warning", "information", "hint")
MAX_BUDGET_SECONDS = 3600.0
MAX_PARALLEL_JOBS = 64


@dataclass(frozen=True)
class Settings:
    on_save: bool = True
    budget_seconds: float = 5.0
    tests_directory: str = "tests"
    test_file_pattern: str = "test_{module}.py"
    diagnostic_severity: str = "information"
    show_covered_branches: bool = True
    max_parallel_jobs: int = 1
    seed: int = 0  # of the search's random choices
    evaluations: int | None = None  # a budget in fitness evaluations instead (reproducible runs)
    algorithm: Algorithm = Algorithm.MIO  # the search (``--algorithm``)
    criteria: str = "smart"  # goals besides branches (``--criteria``)
    # Tests that run on every save should be cheap: covered goals keep the test with the lower
    # performance score (aDynaMOSA's Eq. 1), which never costs coverage.
    performance: bool = True

    def describe(self) -> str:
        """``onSave=True budgetSeconds=5.0 ...`` with the protocol's key names."""
        return " ".join(f"{key}={getattr(self, name)!r}" for key, (name, _) in KEYS.items())


# --- validation: each checker returns the clean value or raises ValueError with the reason ----


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError("expected true or false")


def _budget(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("expected a number of seconds")
    if not (math.isfinite(value) and 0 < value <= MAX_BUDGET_SECONDS):
        raise ValueError(f"expected more than 0 and at most {MAX_BUDGET_SECONDS:g} seconds")
    return float(value)


def _directory(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected a folder name")
    if Path(value).is_absolute():
        raise ValueError("expected a folder relative to the project root")
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


def _severity(value: Any) -> str:
    if isinstance(value, str) and value.strip().lower() in SEVERITIES:
        return value.strip().lower()
    raise ValueError(f"expected one of {', '.join(SEVERITIES)}")


def _algorithm(value: Any) -> Algorithm:
    try:
        return Algorithm(value)
    except ValueError:
        raise ValueError(f"expected one of {', '.join(Algorithm)}") from None


def _criteria(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected smart, all, branch or a comma-separated list of criteria")
    parse_criteria(value)  # its ValueError names the criteria there are
    return value


def _whole(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise ValueError("expected a whole number")
        if not low <= value <= high:
            raise ValueError(f"expected {low} to {high}")
        return int(value)

    return check


KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "onSave": ("on_save", _bool),
    "budgetSeconds": ("budget_seconds", _budget),
    "testsDirectory": ("tests_directory", _directory),
    "testFilePattern": ("test_file_pattern", _pattern),
    "diagnosticSeverity": ("diagnostic_severity", _severity),
    "showCoveredBranches": ("show_covered_branches", _bool),
    "maxParallelJobs": ("max_parallel_jobs", _whole(1, MAX_PARALLEL_JOBS)),
    "seed": ("seed", _whole(0, 2**31 - 1)),
    "evaluations": ("evaluations", _whole(1, 10**8)),
    "algorithm": ("algorithm", _algorithm),
    "criteria": ("criteria", _criteria),
    "performance": ("performance", _bool),
}
_BY_FOLDED_NAME = {key.lower(): key for key in KEYS}  # budgetseconds -> budgetSeconds


def _canonical(key: str) -> str | None:
    """``budgetSeconds``, ``budget_seconds`` and ``budget-seconds`` all name one setting."""
    return _BY_FOLDED_NAME.get(key.replace("_", "").replace("-", "").lower())


def read_layer(raw: Any, origin: str) -> tuple[dict[str, Any], list[str]]:
    """The valid values of one layer (by field name) and one message per bad value.

    Unknown keys are ignored: other tools (the CLI, CTG, the extension) keep theirs in the same
    places.
    """
    raw = plain(raw)
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [f"miogen: settings from {origin} are not an object; using defaults"]
    values, problems = {}, []
    for key, value in raw.items():
        canonical = _canonical(str(key))
        if canonical is None or value is None:
            continue
        name, check = KEYS[canonical]
        try:
            values[name] = check(value)
        except ValueError as error:
            default = getattr(Settings(), name)
            problems.append(
                f"miogen: ignoring {canonical}={value!r} from {origin} ({error}); "
                f"falling back to {default!r} unless another source sets it"
            )
    return values, problems


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
    """``[tool.miogen]`` of each project's pyproject.toml, re-read when the file changes."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[float, dict[str, Any]]] = {}

    def read(self, project_root: Path, log: Callable[[str], None]) -> dict[str, Any]:
        path = project_root / "pyproject.toml"
        try:
            stamp = path.stat().st_mtime
        except OSError:
            return {}
        cached = self._cache.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        values = self._parse(path, log)
        self._cache[path] = (stamp, values)
        return values

    @staticmethod
    def _parse(path: Path, log: Callable[[str], None]) -> dict[str, Any]:
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("miogen")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            log(f"miogen: cannot read {path}: {error}; its settings are ignored")
            return {}
        values, problems = read_layer(table, f"[tool.miogen] in {path}")
        for problem in problems:
            log(problem)
        return values
