"""miogen's own LSP names and payloads, as the extension declares them (docs/lsp-protocol.md).

This module mirrors ``vscode-extension/src/common/constants.ts`` (method and command names) and
``vscode-extension/src/common/protocol.ts`` (payload shapes): a name changed on one side must
change on the other (tests/lsp/test_lsp_protocol.py compares them). Positions are 0-based, keys
camelCase, as on the wire.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pygls.exceptions import JsonRpcException

CONFIG_SECTION = "miogen"  # workspace/configuration section, initializationOptions key
SOURCE = "miogen"  # diagnostics' source

# Server commands (workspace/executeCommand), constants.ts ``ServerCommands``.
GENERATE = "miogen.generateTests"
INSERT = "miogen.insertTests"
CANCEL = "miogen.cancel"
GENERATE_PATHS = "miogen.generateTestsForPaths"  # `miogen ctg` over files and folders

# The Insert action's kind: a sub-kind of "source" that clients can bind to a key.
INSERT_KIND = "source.miogen.insertTests"

# Custom methods, constants.ts ``Methods``.
UNITS = "miogen/units"  # request: the units of a file
COVERAGE = "miogen/coverage"  # notification: gutter data of a file
JOB_STATUS = "miogen/jobStatus"  # notification: a job's state

# Diagnostic codes.
UNCOVERED_BRANCH = "uncovered-branch"
COVERED_BRANCH = "covered-branch"
IMPORT_ERROR = "import-error"
WORKER_FAILED = "worker-failed"


class CommandError(JsonRpcException):
    """A command that cannot run; the message goes back to the editor as the request's error."""

    CODE = -32803  # LSP RequestFailed


UnitKind = Literal["class", "function"]
UnitState = Literal["none", "queued", "running", "done", "stale", "failed"]
JobState = Literal["queued", "running", "done", "cancelled", "failed"]


class Position(TypedDict):
    line: int
    character: int


class Range(TypedDict):
    start: Position
    end: Position


class UnitInfo(TypedDict):
    """One item of the ``miogen/units`` answer."""

    name: str
    kind: UnitKind
    range: Range


class CoverageUnit(UnitInfo):
    covered: int
    total: int
    state: UnitState


class MissingBranch(TypedDict):
    line: int
    description: str
    closestMiss: NotRequired[str | None]


class CoverageLines(TypedDict):
    covered: list[int]
    partial: list[int]
    uncovered: list[int]


class CoverageParams(TypedDict):
    """``miogen/coverage``. Lines of ``stale`` units are left out of ``lines``."""

    uri: str
    version: NotRequired[int | None]
    lines: CoverageLines
    missing: list[MissingBranch]
    units: list[CoverageUnit]


class JobStatusParams(TypedDict):
    """``miogen/jobStatus``."""

    uri: str
    unit: str
    state: JobState
    percent: NotRequired[float]
    covered: NotRequired[int]
    total: NotRequired[int]
    message: NotRequired[str]


class UnitRef(TypedDict):
    """The single argument of the server commands."""

    uri: str
    unit: str


class GenerateResult(TypedDict):
    """Result of ``miogen.generateTests`` and ``miogen.insertTests``."""

    uri: str
    unit: str
    tests: int
    covered: int
    total: int
    testFile: str
    testUri: str
    applied: bool
    message: NotRequired[str]


class CancelResult(TypedDict):
    cancelled: bool


class PathsRef(TypedDict):
    """The single argument of ``miogen.generateTestsForPaths``: files and folders."""

    uris: list[str]


class PathsResult(TypedDict):
    """Result of ``miogen.generateTestsForPaths`` (the ``miogen ctg`` run's report, in short)."""

    uris: list[str]
    written: list[str]  # URIs of the test files written
    units: int  # classes and functions found
    ran: int  # ... that got a search
    tests: int  # tests added to the files
    covered: int  # branches covered (coverage.py), over those of the units
    total: int
    warnings: list[str]
    exitCode: int  # the run's (miogen ctg's exit status)
    cancelled: bool
    message: str
