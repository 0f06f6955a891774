"""What the project's own checkers say about a generated file, once written: ruff and mypy.

The file is checked as the project checks its code: ruff with the project's configuration
(when it has one), from the project's environment if ruff is there, else miogen's; mypy only
where the project configures it and mypy is installed (the project's environment first).
Findings are reported, never fixed here (the formatter step applies ruff's safe fixes before
the file is written) and never fail the run. Before the write, the same checkers are a gate on
the tests (``emit.gate``, ``run.gate``: a test they find fault with is left out, or keeps a
deliberate wrong call with a narrow ignore): what is reported here is what the gate could not
attribute to a test (the imports), or a file written without it (the editor's).
"""

from __future__ import annotations

import json
import logging
import subprocess
from pathlib import Path

from miogen.emit.style import Style
from miogen.emit.tools import Tools

logger = logging.getLogger(__name__)

CHECK_TIMEOUT = 300.0  # seconds for one checker's run (mypy's first run builds its cache)
SHOWN = 3  # findings named in a note


def ruff_findings(path: Path, style: Style, tools: Tools) -> list[str]:
    """What ``ruff check`` (no fix, the project's configuration) finds in ``path``, as
    ``"CODE line: message"``; nothing where the project does not configure ruff. ``tools``:
    the project's, looked up by the caller (``emit.tools``)."""
    ruff = tools.ruff if style.lints else None
    if ruff is None:
        return []
    command = [ruff, "check", "--no-fix", "--output-format", "json", "--exit-zero", str(path)]
    output = run_checker(command, style.root)
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


def mypy_errors(path: Path, style: Style, tools: Tools) -> list[str]:
    """The errors mypy (the project's configuration) reports in ``path`` itself; nothing where
    the project does not configure mypy or mypy is not installed. ``tools``: the project's,
    looked up by the caller (``emit.tools``)."""
    mypy = tools.mypy if style.mypy else None
    if mypy is None or style.root is None:
        return []
    command = [mypy, "--no-error-summary", "--no-color-output", "--no-pretty", str(path)]
    output = run_checker(command, style.root)
    target = path.resolve()
    errors = []
    for line in (output or "").splitlines():
        where, _, rest = line.partition(": error: ")
        file = where.split(":")[0]
        if rest and (style.root / file).resolve() == target:
            errors.append(f"line {where.split(':')[1]}: {rest}")
    return errors


def check_notes(path: Path, style: Style, tools: Tools) -> list[str]:
    """The summary's notes on what the project's checkers (``tools``, looked up by the
    caller with the formatter's) still find in ``path``."""
    notes = []
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


def run_checker(
    command: list[str], cwd: Path | None, text: str | None = None, timeout: float = CHECK_TIMEOUT
) -> str | None:
    """The checker's output (None: it did not run, or ran past ``timeout`` seconds and was
    stopped); ``text``: its input (``ruff --stdin-filename``)."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False,
            input=text,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        logger.warning("miogen: %s did not run: %s", command[0], error)
        return None
    return done.stdout
