"""What happens to a document or a job, as typed events for the one path that shows it.

Each part tells what happened with one of these (the scheduler its jobs' changes, the save flow
what a save found, the watcher what a change on disk made stale) and ``reporting.Reporter.handle``,
the one update-and-publish path, turns it into the documents' records and what the editor is
sent: diagnostics, ``miogen/coverage``, job status, work-done progress, a lens refresh.
"""

from __future__ import annotations

from dataclasses import dataclass

from miogen.lsp.jobs import JobEvent, JobFinished, JobProgress, JobQueued, JobStarted

__all__ = [
    "AnalysisReady",
    "Closed",
    "Event",
    "JobEvent",
    "JobFinished",
    "JobProgress",
    "JobQueued",
    "JobStarted",
    "Outdated",
    "SaveAnnounced",
    "SaveBroken",
    "SaveDone",
    "SaveParsed",
    "SettingsChanged",
]


@dataclass(frozen=True)
class AnalysisReady:
    """A newer analysis of the document arrived (typed, opened or saved text)."""

    uri: str


@dataclass(frozen=True)
class SettingsChanged:
    """The editor's settings changed: every open document is shown under them."""


@dataclass(frozen=True)
class Outdated:
    """Files changed on disk made results of these documents stale."""

    uris: frozenset[str]


@dataclass(frozen=True)
class SaveAnnounced:
    """A save changed these units: they show as queued while the saved text is analysed."""

    uri: str
    units: tuple[tuple[str, int], ...]  # (unit, its branch targets)


@dataclass(frozen=True)
class SaveParsed:
    """The saved text parses: its results show again."""

    uri: str


@dataclass(frozen=True)
class SaveBroken:
    """The saved text does not parse (at ``line``): its results are hidden until it does."""

    uri: str
    line: int


@dataclass(frozen=True)
class SaveDone:
    """The save's jobs are started (or none is): announced units that got none are told so,
    and the log says what the save generates or why it does not (``warn``: as a warning)."""

    uri: str
    said: str = ""
    warn: bool = False


@dataclass(frozen=True)
class Closed:
    """The editor closed the document."""

    uri: str


Event = (
    JobEvent
    | AnalysisReady
    | SettingsChanged
    | Outdated
    | SaveAnnounced
    | SaveParsed
    | SaveBroken
    | SaveDone
    | Closed
)
