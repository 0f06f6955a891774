"""Every event reaches the one update-and-publish path (issue 25, part 5): each type of
``events.Event`` updates the document's records or tells the editor, through
``Reporter.handle`` alone."""

from __future__ import annotations

import typing
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from lsp_support import SHAPES
from lsprotocol import types
from miogen.lsp import events
from miogen.lsp.documents import Document, DocumentStore
from miogen.lsp.jobs import Job
from miogen.lsp.locator import Locator
from miogen.lsp.protocol import COVERAGE, JOB_STATUS
from miogen.lsp.reporting import Reporter
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import take
from pygls.workspace.position_codec import PositionCodec


class Editor:
    """What the reporter tells the client, in order."""

    def __init__(self) -> None:
        self.told: list[tuple[str, Any]] = []
        self.stopped = False
        self.codec = PositionCodec(types.PositionEncodingKind.Utf16)

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.told.append(("log", message))

    def warn(self, message: str) -> None:
        self.told.append(("warn", message))

    def notify(self, method: str, payload: Any) -> None:
        self.told.append((method, payload))

    def publish_diagnostics(self, uri: str, diagnostics: list, version: int | None = None) -> None:
        self.told.append(("diagnostics", (uri, diagnostics)))

    def refresh_code_lenses(self) -> None:
        self.told.append(("refresh", None))

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        work.close()
        self.told.append(("spawn", None))

    def kinds(self) -> set[str]:
        return {kind for kind, _ in self.told}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Reporter, Editor, Document]:
    path = tmp_path / "shapes.py"
    path.write_text(SHAPES, "utf-8")
    client = Editor()
    locator = Locator(lambda: [tmp_path], client.warn)
    nothing: Any = None  # the reporter asks the store for no analysis
    store = DocumentStore(lambda uri: SHAPES, lambda uri: 1, lambda path: "shapes", print, nothing)
    doc = store.document(path.as_uri())
    store.open.add(doc.uri)
    doc.snapshot = take(SHAPES, str(path), "shapes")
    reporter = Reporter(typing.cast(Any, client), store, locator)
    return reporter, client, doc


def _job(doc: Document, state: str) -> Job:
    assert doc.snapshot is not None
    shape = doc.snapshot.units["sign"]
    nowhere: Any = None
    job = Job(doc.uri, shape, doc.snapshot, nowhere, Settings())
    job.state = state  # type: ignore[assignment]
    doc.record("sign").job = job
    return job


def _shown(client: Editor) -> bool:
    return "diagnostics" in client.kinds() and COVERAGE in client.kinds()


def _status(client: Editor, state: str) -> bool:
    return any(kind == JOB_STATUS and p["state"] == state for kind, p in client.told)


Case = tuple[Callable[[Document], events.Event], Callable[[Editor, Document], bool]]
CASES: dict[type, Case] = {
    events.JobQueued: (
        lambda doc: events.JobQueued(_job(doc, "queued")),
        lambda client, doc: _shown(client) and _status(client, "queued"),
    ),
    events.JobStarted: (
        lambda doc: events.JobStarted(_job(doc, "running")),
        lambda client, doc: (
            _shown(client) and _status(client, "running") and "spawn" in client.kinds()
        ),
    ),
    events.JobProgress: (
        lambda doc: events.JobProgress(_job(doc, "running")),
        lambda client, doc: _shown(client) and doc.record("sign").live is not None,
    ),
    events.JobFinished: (
        lambda doc: events.JobFinished(_job(doc, "cancelled")),
        lambda client, doc: _shown(client) and _status(client, "cancelled"),
    ),
    events.AnalysisReady: (lambda doc: events.AnalysisReady(doc.uri), lambda c, d: _shown(c)),
    events.SettingsChanged: (lambda doc: events.SettingsChanged(), lambda c, d: _shown(c)),
    events.Outdated: (
        lambda doc: events.Outdated(frozenset({doc.uri})),
        lambda client, doc: _shown(client) and "refresh" in client.kinds(),
    ),
    events.SaveAnnounced: (
        lambda doc: events.SaveAnnounced(doc.uri, (("sign", 4),)),
        lambda client, doc: _shown(client) and doc.record("sign").announced,
    ),
    events.SaveParsed: (lambda doc: events.SaveParsed(doc.uri), lambda c, doc: not doc.broken),
    events.SaveBroken: (
        lambda doc: events.SaveBroken(doc.uri, 3),
        lambda client, doc: _shown(client) and doc.broken,
    ),
    events.SaveDone: (lambda doc: events.SaveDone(doc.uri), lambda c, d: _shown(c)),
    events.Closed: (
        lambda doc: events.Closed(doc.uri),
        lambda client, doc: ("diagnostics", (doc.uri, [])) in client.told,
    ),
}


def test_every_event_type_has_a_case_here():
    assert set(typing.get_args(events.Event)) == set(CASES)


@pytest.mark.parametrize("kind", list(CASES), ids=lambda kind: kind.__name__)
def test_the_event_reaches_the_path(setup, kind):
    reporter, client, doc = setup
    make, expected = CASES[kind]
    doc.broken = kind is events.SaveParsed  # what a SaveParsed undoes
    reporter.handle(make(doc))
    assert expected(client, doc), client.told


def test_nothing_is_told_after_shutdown(setup):
    reporter, client, doc = setup
    client.stopped = True
    for make, _ in CASES.values():
        reporter.handle(make(doc))
    assert client.told == []
