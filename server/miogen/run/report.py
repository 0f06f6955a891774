"""The ``--json`` report, typed and versioned: one shape for ``miogen generate`` and ``ctg``.

Both commands print a ``Report``: its ``schema`` number, the command, the project root,
coverage.py's figure for every unit together, one entry per unit with the same fields in both
(``UnitEntry``), the warnings and the exit status; after those, each command adds fields of its
own (docs/json.md lists them). ``SCHEMA`` goes up when a field is renamed, removed or changes
meaning; new fields do not change it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from miogen.common.records import to_json
from miogen.run.result import Numbers

SCHEMA = 1
Command = Literal["generate", "ctg"]


@dataclass(frozen=True)
class Coverage:
    """coverage.py's figure (branch=True): branches covered out of the total, in percent (None:
    nothing to cover)."""

    covered: int
    total: int
    percent: float | None

    @classmethod
    def of(cls, numbers: Numbers) -> Coverage:
        percent = round(numbers.percent, 2) if numbers.total else None
        return cls(numbers.covered, numbers.total, percent)


@dataclass(frozen=True)
class UnitEntry:
    """A unit of the report, as both commands give it."""

    module: str  # the module's dotted name
    name: str  # the class or function
    kind: str  # class | function
    # generate: ok | failed | cancelled; ctg: ran | failed | waits | skipped
    status: str
    coverage: Coverage  # coverage.py's, of the unit's branches, after the run
    tests: int  # generated tests kept (passed the verification, add to the suite)
    message: str = ""  # why it failed


@dataclass(frozen=True)
class Report:
    """The fields every ``--json`` report starts with."""

    command: Command
    root: str  # the project's root
    coverage: Coverage  # every unit of the report together
    units: Sequence[UnitEntry]
    warnings: Sequence[str]  # what the user should know (each also printed)
    exit_code: int
    schema: int = SCHEMA


def report_json(
    report: Report, own: Mapping[str, Any], units: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """The report as JSON: its own fields first, then the command's (``own``), each unit's
    fields followed by the command's fields for it (``units``, in the same order)."""
    data: dict[str, Any] = {"schema": report.schema, **to_json(report)}
    extra = list(units) or [{}] * len(report.units)
    data["units"] = [{**entry, **more} for entry, more in zip(data["units"], extra, strict=True)]
    return {**data, **own}
