"""The save flow: one save, top down, from the editor's notification to its jobs.

``Saves._saved`` is the flow, written as its steps in order, each a call into the part that
does it, with what the steps before found handed down: the file's place and settings
(``Locator.place``: once per save, again only if the settings changed meanwhile), the saved
text (the waiting worker analyses it while the save is debounced), the history (untested
units), the analysis (usually done already: it was the editor's text), the plan
(``documents.plan_save``) and the jobs (``Scheduler.renew``). No step calls back into this
module; what the editor is to see goes out as events (``events``) to the one path that shows
them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from miogen.analysis.source import read_source
from miogen.common.errors import SourceSyntaxError
from miogen.lsp.analyser import TooBig
from miogen.lsp.client import Client
from miogen.lsp.documents import Document, DocumentStore, plan_save
from miogen.lsp.events import AnalysisReady, Event, SaveAnnounced, SaveBroken, SaveDone, SaveParsed
from miogen.lsp.jobs import Job, Scheduler
from miogen.lsp.locator import Locator, Place, history_of
from miogen.lsp.snapshot import Snapshot, UnitShape

SAVE_DEBOUNCE = 0.1  # saves closer together than this start one round of jobs


class Saves:
    """Saves and the jobs they start; the waiting worker gets the text a save will run.

    ``emit`` is the one update-and-publish path (``reporting.Reporter.handle``).
    """

    def __init__(
        self,
        store: DocumentStore,
        locator: Locator,
        client: Client,
        scheduler: Scheduler,
        emit: Callable[[Event], None],
    ) -> None:
        self.store, self.locator, self.client = store, locator, client
        self.scheduler, self.emit = scheduler, emit

    def follow(self, uri: str) -> None:
        """Follow a save of ``uri`` to its jobs; debounced: a save within ``SAVE_DEBOUNCE`` of
        the next one is dropped for it."""
        doc = self.store.documents.get(uri)
        if doc is None:
            return
        if doc.saving is not None:
            doc.saving.cancel()
        save = self._saved(doc)
        doc.saving = self.client.spawn(save)

    async def _saved(self, doc: Document) -> None:
        """The save's steps (the module's docstring); each part is entered once."""
        place = self.locator.place(doc.path)
        settings, why_not = place.settings, place.save_skipped
        try:
            source = await asyncio.to_thread(read_source, doc.path)
        except OSError as error:
            self.emit(SaveDone(doc.uri, f"miogen: cannot read {doc.path}: {error}", warn=True))
            return
        except SourceSyntaxError as error:  # Python could not decode it either
            source, broken = "", error.line
        else:
            broken = 0
        if why_not is None and not broken and doc.uri in self.store.open:
            spares = self.scheduler.spares  # the waiting worker analyses it meanwhile
            spares.prepare(str(place.location.path), place.location.module_name, source)
        await asyncio.sleep(SAVE_DEBOUNCE)  # a newer save of the file cancels this one until here
        doc.saving = None
        recorded: set[str] = set()
        if why_not is None and not broken and settings.save_mode == "untested":
            recorded = await asyncio.to_thread(history_of, place.project_root, doc.path)
        analysis: asyncio.Future[Snapshot] | None = None
        if not broken:
            analysis = self.store.saved_analysis(doc, source)
        if analysis is not None and why_not is None:  # changed units show as queued meanwhile
            announced = await self.store.changed_meanwhile(doc, source, analysis)
            if announced:
                self.emit(SaveAnnounced(doc.uri, announced))
        try:
            snapshot = await analysis if analysis is not None else None
        except SourceSyntaxError as error:
            snapshot, broken = None, error.line
        except TooBig:
            return  # the analyser told the client
        if place.version != self.locator.version:  # the settings changed meanwhile
            place = self.locator.place(doc.path)
            settings, why_not = place.settings, place.save_skipped
        if snapshot is not None:
            self.emit(SaveParsed(doc.uri))
            if why_not is not None:
                self.emit(SaveDone(doc.uri, *why_not))
                return
        jobs, said = [], ""
        if snapshot is not None:
            running = self.scheduler.latest.values()
            busy = {job.unit for job in running if job.active and job.uri == doc.uri}
            limit, mode = settings.max_parallel_jobs, settings.save_mode
            plan = plan_save(snapshot, doc.units, mode, recorded, doc.last_edit, limit, busy)
            jobs = [doc.next_job(s, snapshot, place.location, settings) for s in plan.units]
            said = f"miogen: {doc.path.name} saved; {plan.describe(mode)}"
        else:  # nothing is generated, and its results are hidden until it parses
            self.emit(SaveBroken(doc.uri, broken))
        units = snapshot.units if snapshot is not None else {}  # of a broken text: none
        stale = lambda job: job.uri == doc.uri and job.unit not in units  # noqa: E731
        self.scheduler.renew(jobs, stale, "removed" if snapshot is not None else "broken")
        if said:
            self.emit(SaveDone(doc.uri, said))

    def analysed(self, uri: str) -> None:
        """A newer analysis of the document arrived: it is shown; once typing pauses, the
        waiting worker analyses the text too (a save of it then starts its search sooner)."""
        self.emit(AnalysisReady(uri))
        doc = self.store.documents.get(uri)
        snapshot = doc.snapshot if doc is not None else None
        if doc is not None and snapshot is not None and not self.store.analyser.busy(uri):
            self.prepare(doc, snapshot.source)

    def warm_up(self, doc: Document | None = None) -> None:
        """A worker waiting for the next job of ``doc`` (else of an open document)."""
        if doc is None:
            docs = (self.store.documents.get(uri) for uri in sorted(self.store.open))
            doc = next((found for found in docs if found is not None), None)
        if doc is None or self.client.stopped:
            return
        settings = self.locator.place(doc.path).settings
        if settings.save_mode == "off":  # no save will want a worker soon
            self.scheduler.spares.discard()
        else:
            self.scheduler.warm_up(settings)

    def prepare(self, doc: Document, source: str) -> None:
        """Give ``source`` to the waiting worker if a save of the document would generate."""
        if self.client.stopped or doc.uri not in self.store.open:
            return
        place = self.locator.place(doc.path)
        if place.settings.save_mode == "off" or place.test_file:
            return
        if place.folder is not None:
            self.scheduler.prepare(place.location, source)

    def start_job(self, doc: Document, shape: UnitShape, snapshot: Snapshot, place: Place) -> Job:
        """A newer job for a unit cancels the older one and starts from its tests; ``place`` is
        the file's under the current settings (``Locator.place``)."""
        job = doc.next_job(shape, snapshot, place.location, place.settings)
        return self.scheduler.submit(job)
