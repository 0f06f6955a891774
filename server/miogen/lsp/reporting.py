"""The one update-and-publish path: every event (``events.Event``) updates the documents'
records and tells the editor what changed.

The scheduler's job events, the save flow's, the watcher's and the documents' analyses all come
to ``Reporter.handle``; it writes into the document store and sends diagnostics and
``miogen/coverage`` (re-rendered on the document's latest analysis, only when they changed), job
status, work-done progress, logs and lens refreshes. Nothing else publishes.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from miogen.common.records import ErrorKind, UnitResult
from miogen.lsp import convert
from miogen.lsp.client import Client
from miogen.lsp.documents import Document, DocumentStore
from miogen.lsp.events import (
    AnalysisReady,
    Closed,
    Event,
    JobFinished,
    JobProgress,
    JobQueued,
    JobStarted,
    Outdated,
    SaveAnnounced,
    SaveBroken,
    SaveDone,
    SaveParsed,
    SettingsChanged,
)
from miogen.lsp.jobs import Job
from miogen.lsp.locator import Locator
from miogen.lsp.present import present
from miogen.lsp.protocol import COVERAGE, JOB_STATUS
from miogen.lsp.snapshot import Snapshot
from miogen.lsp.views import final_view, streamed_view


class Reporter:
    """Events into records and messages; all calls happen on the event loop."""

    def __init__(self, client: Client, store: DocumentStore, locator: Locator) -> None:
        self.client, self.store, self.locator = client, store, locator

    def handle(self, event: Event) -> None:
        if self.client.stopped:
            return
        match event:
            case JobQueued(job) | JobStarted(job):
                self._job_changed(job)
            case JobProgress(job):
                self._job_progress(job)
            case JobFinished(job):
                self._job_finished(job)
            case AnalysisReady(uri):
                self._analysed(uri)
            case SettingsChanged():
                for uri in sorted(self.store.open):
                    self._publish(uri)
            case Outdated(uris):
                for uri in sorted(uris):
                    self._publish(uri)
                if uris:
                    self.client.refresh_code_lenses()
            case SaveAnnounced(uri, units):
                self._announced(uri, units)
            case SaveParsed(uri):
                self.store.document(uri).broken = False
            case SaveBroken(uri, line):
                self._broken(uri, line)
            case SaveDone(uri, said, warn):
                if said:
                    self._said(said, warn)
                self._retract(self.store.document(uri))
                self._publish(uri)
            case Closed(uri):
                self.store.document(uri).published = None
                self.client.publish_diagnostics(uri, [])

    def _publish(self, uri: str) -> None:
        """Send diagnostics and the coverage notification when what they show has changed.

        Both are of the latest analysed text and carry its version (not the editor's newest).
        """
        doc = self.store.documents.get(uri)
        if doc is None or uri not in self.store.open:
            return
        shown = [name for name, record in doc.units.items() if record.view is not None]
        if doc.snapshot is not None and doc.snapshot.undetailed(shown):  # a long text's outline:
            details = self.store.analyser.details(doc.snapshot, shown)  # shown once found
            details.add_done_callback(lambda done: self._publish(uri) if _found(done) else None)
            return
        settings = self.locator.place(doc.path).settings
        diagnostics, coverage = present(doc, settings, self.client.codec, doc.version)
        key = (diagnostics, {**coverage, "version": None})
        if key == doc.published:
            return
        doc.published = key
        self.client.publish_diagnostics(uri, diagnostics, doc.version)
        self.client.notify(COVERAGE, coverage)

    # --- documents --------------------------------------------------------------------------

    def _analysed(self, uri: str) -> None:
        """Show the newer analysis, and have lenses that were answered from an older one asked
        for again."""
        self._publish(uri)
        doc = self.store.documents.get(uri)
        if doc is not None and doc.served_stale:
            doc.served_stale = False
            self.client.refresh_code_lenses()

    def _announced(self, uri: str, units: tuple[tuple[str, int], ...]) -> None:
        doc = self.store.document(uri)
        for name, total in units:
            doc.record(name).announced = True
            status = convert.job_status(uri, name, "queued", 0.0, 0, total, "queued")
            self.client.notify(JOB_STATUS, status)
        self._publish(uri)

    def _retract(self, doc: Document) -> None:
        """Announced units that got no job after all (a save that schedules nothing for them)."""
        for name, record in doc.units.items():
            if record.announced:
                record.announced = False
                if record.job is None or not record.job.active:
                    status = convert.job_status(
                        doc.uri, name, "cancelled", 0.0, 0, 0, "not generated"
                    )
                    self.client.notify(JOB_STATUS, status)

    def _said(self, said: str, warn: bool) -> None:
        if warn:
            self.client.warn(said)
        else:
            self.client.log(said, types.MessageType.Log)

    def _broken(self, uri: str, line: int) -> None:
        doc = self.store.document(uri)
        self._retract(doc)
        doc.broken = True
        self.client.log(
            f"miogen: {doc.path.name} saved; it does not parse at line {line}: nothing is "
            "generated, and its results are hidden until it parses"
        )
        self._publish(uri)

    # --- jobs -------------------------------------------------------------------------------

    def _job_changed(self, job: Job) -> None:
        if job.state == "running":
            if job.seeds:
                self.client.log(
                    f"miogen: {job.unit}: the search starts from {len(job.seeds)} earlier tests"
                )
            self.client.spawn(self._begin_progress(job))
        self._publish(job.uri)
        started = f"started from {len(job.seeds)} earlier tests" if job.seeds else "searching"
        self._status(job, started if job.state == "running" else "queued")

    def _job_progress(self, job: Job) -> None:
        record = self.store.document(job.uri).record(job.unit)
        if record.job is job:
            record.live = streamed_view(job.shape, job.snapshot, job.covered_ids)
        self._publish(job.uri)
        label = convert.counts_label(len(job.covered_ids), len(job.shape.targets))
        if job.token is not None:
            self.client.report_progress(job.token, percent(job), label)
        self._status(job, label)

    def _job_finished(self, job: Job) -> None:
        doc = self.store.document(job.uri)
        record = doc.record(job.unit)
        record.add_seeds(job.streamed)
        if record.job is job:
            record.live = None
            if job.state == "done":
                self._succeeded(doc, job)
            elif job.state == "failed":
                self._failed(doc, job)
            else:
                self._cancelled(doc, job)
        self._publish(job.uri)  # the results first: "done" means they are there
        if job.state != "cancelled":
            self.client.refresh_code_lenses()  # their titles count the new result
        message = self.summary(job)
        if job.token is not None:
            self.client.end_progress(job.token, message)
            job.token = None
        self._status(job, message)

    def _succeeded(self, doc: Document, job: Job) -> None:
        record = doc.record(job.unit)
        measurement = job.measurement
        covered = measurement.covered.get(job.unit, []) if measurement else []
        executed = measurement.executed_lines if measurement else []
        unit = job.unit_outcome
        result = unit.result if unit is not None else None
        uncovered = result.uncovered if result is not None else ()
        state = job.snapshot.model.has_module_state
        criteria = result.criteria if result is not None else {}
        gated = job.result.gated if job.result is not None else None
        record.final = final_view(
            job.shape, covered, executed, job.tests, uncovered, state, criteria, gated
        )
        record.reference, record.failure = job.shape.fingerprint, None
        record.outdated, record.inserted = None, False
        crashes = tuple(job.crashes)
        if measurement is not None and not measurement.ok and not job.tests:
            crashes += ("the generated tests did not run under pytest",)
        record.warnings = (job.shape.fingerprint, crashes) if crashes else None
        record.seeds = []
        record.add_seeds([test.test for test in job.tests] + job.streamed)
        doc.import_error = None
        timing = _timing(job, result)
        # The search claims what it covered; what the project's suite covers it was not after.
        claimed = len(set(result.covered) | set(job.suite_covered)) if result is not None else 0
        if claimed != len(record.final.covered):
            timing += (
                f"; the search claimed {claimed}, coverage.py measured {len(record.final.covered)}"
            )
        self.client.log(f"miogen: {job.unit}: {self.summary(job)}; {timing}")
        if job.gain is not None:
            self.client.log(f"miogen: {job.gain.describe()}")
        for note in gated.notes() if gated is not None else []:
            self.client.log(f"miogen: {job.unit}: {note}")  # the project's checkers' gate
        dropped = job.dropped.counts() if job.dropped is not None else {}
        if any(dropped.values()):
            causes = ", ".join(
                f"{count} {cause.replace('_', ' ')}" for cause, count in dropped.items() if count
            )
            self.client.log(f"miogen: {job.unit}: left out tests: {causes}")

    def _failed(self, doc: Document, job: Job) -> None:
        error = job.outcome.error if job.outcome else None
        kind = error.kind if error is not None else None
        if kind in (ErrorKind.SYNTAX, ErrorKind.UNKNOWN_UNIT):  # the file changed: a save follows
            self.client.log(
                f"miogen: {job.unit}: the file changed while the job started ({job.message})"
            )
            return
        record = doc.record(job.unit)
        if kind == ErrorKind.IMPORT:
            doc.import_error = job.message
            message = f"miogen cannot import the module: {job.message}"
        else:
            reasons = "; ".join(dict.fromkeys(job.crashes)) or job.message
            message = f"miogen: the worker failed for {job.unit}: {reasons}"
        record.failure = (job.shape.fingerprint, message)
        self.client.warn(f"miogen: {job.unit}: {job.message}")

    def _cancelled(self, doc: Document, job: Job) -> None:
        if job.cancel_reason == "user":
            doc.record(job.unit).reference = job.shape.fingerprint
        self.client.log(f"miogen: {job.unit}: cancelled ({job.cancel_reason or 'stopped'})")

    def summary(self, job: Job) -> str:
        if job.state == "done":
            record = self.store.document(job.uri).record(job.unit)
            view = record.final if record.job is job else None
            covered = len(view.covered) if view else len(job.covered_ids)
            label = convert.counts_label(covered, len(job.shape.targets))
            return f"{label} covered by {len(job.tests)} tests (coverage.py)"
        if job.state == "failed":
            return f"failed: {job.message}"
        return f"cancelled ({job.cancel_reason})" if job.cancel_reason else "cancelled"

    def _status(self, job: Job, message: str) -> None:
        covered = len(job.covered_ids)
        if job.state == "done":
            covered = len(job.measurement.covered.get(job.unit, [])) if job.measurement else 0
        done = 100.0 if job.state == "done" else percent(job)
        payload = convert.job_status(
            job.uri, job.unit, job.state, done, covered, len(job.shape.targets), message
        )
        self.client.notify(JOB_STATUS, payload)

    async def _begin_progress(self, job: Job) -> None:
        def show() -> tuple[int, str] | None:
            if not job.active or job.state != "running":
                return None
            return percent(job), convert.counts_label(len(job.covered_ids), len(job.shape.targets))

        def cancelled() -> None:  # the user cancelled the progress: the job stops
            job.stop("user")

        job.token = await self.client.begin_progress(f"miogen: {job.unit}", show, cancelled)


def _found(done: asyncio.Future[Snapshot]) -> bool:
    return not done.cancelled() and done.exception() is None


def percent(job: Job) -> int:
    return max(0, min(100, int(job.fraction * 100)))


def _timing(job: Job, result: UnitResult | None) -> str:
    """Where the job's time went: the worker's start (launch to module loaded; whether a spare
    had analysed the saved text while it waited) and the unit's phases (search, mutants,
    reduce, ...), then coverage.py's verification."""
    outcome = job.outcome
    wall = outcome.wall_seconds if outcome is not None else 0.0
    start = outcome.phases.get("start", 0.0) if outcome is not None else 0.0
    phases = [f"start {start:.1f} s"]
    if outcome is not None and outcome.workers:
        worker = outcome.workers[0]  # the process the save's job went to first
        phases.append(f"pid {worker.pid}{' started ahead' if worker.spare else ''}")
        if worker.analysed_ahead:
            phases.append("the saved text analysed ahead")
    if result is not None:
        phases += [f"{name} {seconds:.1f} s" for name, seconds in result.phases.items()]
        phases.append(f"{result.executions} executions")
    return f"worker {wall:.1f} s ({', '.join(phases)}), verification {job.verify_seconds:.1f} s"
