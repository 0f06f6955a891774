"""What the project's own checkers say about a generated file, once written: ruff and mypy.

The file is checked as the project checks its code: ruff with the project's configuration
(when it has one), from the project's environment if ruff is there, else miogen's; mypy only
where the project configures it and mypy is installed (the project's environment first).
Findings are reported, never fixed here (the formatter step applies ruff's safe fixes before
the file is written) and never fail the run.
"""

from __future__ import annotations

import json
import logging
import subprocess
from dataclasses import dataclass
from pathlib import Path

from miogen.emit.formatting import mypy_executable, ruff_executable
from miogen.emit.style import Style

logger = logging.getLogger(__name__)

CHECK_TIMEOUT = 300.0  # seconds for one checker's run (mypy's first run builds its cache)
SHOWN = 3  # findings named in a note


@dataclass(frozen=True)
class Checkers:
    """The project's checkers that apply, looked up once (``checkers``): None where one does
    not (the project does not configure it, or it is not installed)."""

    ruff: str | None
    mypy: str | None


def checkers(style: Style) -> Checkers:
    """ruff where the project configures it; mypy where it configures mypy and has it."""
    return Checkers(
        ruff_executable(style.root) if style.lints else None,
        mypy_executable(style.root) if style.mypy else None,
    )


def ruff_findings(path: Path, style: Style, tools: Checkers | None = None) -> list[str]:
    """What ``ruff check`` (no fix, the project's configuration) finds in ``path``, as
    ``"CODE line: message"``; nothing where the project does not configure ruff. ``tools``:
    the checkers looked up already (``checkers``)."""
    ruff = (tools or checkers(style)).ruff
    if ruff is None:
        return []
    command = [ruff, "check", "--no-fix", "--output-format", "json", "--exit-zero", str(path)]
    output = _run(command, style.root)
    try:
        found = json.loads(output) if output else []
    except json.JSONDecodeError:
        return []
    return [
        f"{item.get('code') or 'error'} line {item.get('location', {}).get('row', '?')}: "
        f"{item.get('message', '')}"
        for item in found
        if isinstance(item, dict)
    ]


def mypy_errors(path: Path, style: Style, tools: Checkers | None = None) -> list[str]:
    """The errors mypy (the project's configuration) reports in ``path`` itself; nothing where
    the project does not configure mypy or mypy is not installed. ``tools``: the checkers
    looked up already (``checkers``)."""
    mypy = (tools or checkers(style)).mypy
    if mypy is None or style.root is None:
        return []
    command = [mypy, "--no-error-summary", "--no-color-output", "--no-pretty", str(path)]
    output = _run(command, style.root)
    target = path.resolve()
    errors = []
    for line in (output or "").splitlines():
        where, _, rest = line.partition(": error: ")
        file = where.split(":")[0]
        if rest and (style.root / file).resolve() == target:
            errors.append(f"line {where.split(':')[1]}: {rest}")
    return errors


def check_notes(path: Path, style: Style) -> list[str]:
    """The summary's notes on what the project's checkers still find in ``path`` (each
    looked up once, then run)."""
    notes = []
    tools = checkers(style)
    for checker, found in (
        ("ruff", ruff_findings(path, style, tools)),
        ("mypy", mypy_errors(path, style, tools)),
    ):
        if found:
            shown = "; ".join(found[:SHOWN]) + ("; ..." if len(found) > SHOWN else "")
            notes.append(
                f"{checker} (your configuration) still finds {len(found)} issue"
                f"{'s' if len(found) != 1 else ''} in {path.name}: {shown}"
            )
    return notes


def _run(command: list[str], cwd: Path | None) -> str | None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, cwd=cwd, timeout=CHECK_TIMEOUT, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        logger.warning("miogen: %s did not run: %s", command[0], error)
        return None
    return done.stdout
