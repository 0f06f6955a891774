"""Static analyses of the documents' texts, in a process of their own: once per text, newest first.

Analysing a long module costs a good part of a second of CPU (seconds before linear analysis);
in a thread it would hold the GIL while requests wait, so it runs in a separate process and only
the picklable ``Snapshot`` comes back (unpickled in the executor's thread, not on the event
loop). Invariant 1 holds: the analysis is static, nothing of the user's code runs anywhere.

Per document a text is analysed once (results are kept per text, so the saved text reuses the
editor's), at most one analysis runs at a time, and of the texts waiting behind it only the newest
is analysed: typing faster than the analysis skips the versions in between. A text that someone
must have (the saved file) is never skipped.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from miogen.errors import SourceSyntaxError
from miogen.lsp.snapshot import Snapshot, take

logger = logging.getLogger(__name__)

KEPT_PER_DOCUMENT = 4  # finished analyses kept per document (editor text, saved text, undo)


class Superseded(Exception):
    """A newer text of the document was analysed instead of this one."""


@dataclass(frozen=True)
class _NoParse:
    """A SourceSyntaxError as it crosses the process boundary (the exception does not pickle)."""

    path: str
    line: int
    message: str


def analyse_text(source: str, path: str, module: str) -> Snapshot | _NoParse:
    """``take`` for the analysis process: a syntax error comes back as a value."""
    try:
        return take(source, path, module)
    except SourceSyntaxError as error:
        return _NoParse(error.path, error.line, str(error))


Analysis = Callable[[str, str, str], "Snapshot | _NoParse"]


@dataclass(eq=False)
class _Request:
    source: str
    path: str
    module: str
    future: asyncio.Future[Snapshot]
    keep: bool  # someone needs this very text: never skipped


@dataclass(eq=False)
class _Queue:
    """One document's analyses: finished (by text), running, and waiting."""

    finished: OrderedDict[str, Snapshot | SourceSyntaxError] = field(default_factory=OrderedDict)
    running: _Request | None = None
    waiting: list[_Request] = field(default_factory=list)
    started: float = 0.0  # when the running analysis started (loop time)
    duration: float | None = None  # how long the last analysis of the document took


class Analyser:
    """Analyses texts off the event loop; ``analysis(...)`` gives a future of the ``Snapshot``.

    The future raises ``SourceSyntaxError`` when the text does not parse, ``Superseded`` when a
    newer text was analysed instead. ``function`` and ``processes`` are for tests (a slow or
    failing analysis, run in a thread).
    """

    def __init__(self, function: Analysis = analyse_text, processes: bool = True) -> None:
        self.function = function
        self.processes = processes
        self.runs = 0  # analyses started (for tests and the log)
        self._queues: dict[str, _Queue] = {}
        self._executor: Executor | None = None

    # --- asking -----------------------------------------------------------------------------

    def analysis(
        self, key: str, source: str, path: str, module: str, *, keep: bool = False
    ) -> asyncio.Future[Snapshot]:
        """The analysis of ``source`` for document ``key``: finished, running, or queued."""
        loop = asyncio.get_running_loop()
        queue = self._queues.setdefault(key, _Queue())
        done = queue.finished.get(source)
        if done is not None:
            queue.finished.move_to_end(source)
            return _resolved(loop, done)
        for request in ([queue.running] if queue.running else []) + queue.waiting:
            if request.source == source:
                request.keep = request.keep or keep
                return request.future
        request = _Request(source, path, module, loop.create_future(), keep)
        queue.waiting.append(request)
        self._next(key, queue)
        return request.future

    def finished(self, key: str, source: str) -> Snapshot | SourceSyntaxError | None:
        """The result for ``source`` if it was analysed already (no waiting)."""
        queue = self._queues.get(key)
        return queue.finished.get(source) if queue is not None else None

    def expected_in(self, key: str, source: str) -> float | None:
        """Seconds until the analysis of ``source`` should be done, from how long the document's
        last one took; 0 when it is done, None when nothing is known yet."""
        queue = self._queues.get(key)
        if queue is None or source in queue.finished:
            return 0.0
        if queue.duration is None:
            return None
        now = asyncio.get_running_loop().time()
        left = max(0.0, queue.started + queue.duration - now) if queue.running else 0.0
        if queue.running is not None and queue.running.source == source:
            return left
        return left + queue.duration

    def busy(self, key: str) -> bool:
        queue = self._queues.get(key)
        return queue is not None and (queue.running is not None or bool(queue.waiting))

    def forget(self, key: str) -> None:
        """Drop a closed document's results (a running analysis finishes unseen)."""
        queue = self._queues.pop(key, None)
        for request in queue.waiting if queue else []:
            _fail(request, Superseded())

    # --- running ----------------------------------------------------------------------------

    def _next(self, key: str, queue: _Queue) -> None:
        """Start the next analysis unless one runs: the oldest kept text, else the newest."""
        if queue.running is not None or not queue.waiting:
            return
        kept = [r for r in queue.waiting[:-1] if r.keep]
        chosen = kept[0] if kept else queue.waiting[-1]
        for request in queue.waiting[: queue.waiting.index(chosen)]:
            if not request.keep:
                _fail(request, Superseded())
        queue.waiting = [r for r in queue.waiting if r is not chosen and not r.future.done()]
        queue.running = chosen
        queue.started = asyncio.get_running_loop().time()
        self.runs += 1
        asyncio.get_running_loop().create_task(self._run(key, queue, chosen))

    async def _run(self, key: str, queue: _Queue, request: _Request) -> None:
        try:
            result = await self._execute(request)
        except Exception as error:  # noqa: BLE001 - a bug in the analysis must not end the session
            logger.exception("analysis of %s failed", request.path)
            _fail(request, error)
        else:
            outcome: Snapshot | SourceSyntaxError = (
                SourceSyntaxError(result.path, result.line, result.message)
                if isinstance(result, _NoParse)
                else result
            )
            queue.finished[request.source] = outcome
            while len(queue.finished) > KEPT_PER_DOCUMENT:
                queue.finished.popitem(last=False)
            if isinstance(outcome, SourceSyntaxError):
                _fail(request, outcome)
            elif not request.future.done():
                request.future.set_result(outcome)
        finally:
            queue.running = None
            queue.duration = asyncio.get_running_loop().time() - queue.started
            if self._queues.get(key) is queue:
                self._next(key, queue)

    async def _execute(self, request: _Request) -> Snapshot | _NoParse:
        """In the analysis process; a process that died is replaced once, then a thread serves."""
        loop = asyncio.get_running_loop()
        arguments = (request.source, request.path, request.module)
        for _ in range(2):
            try:
                return await loop.run_in_executor(self._pool(), self.function, *arguments)
            except BrokenProcessPool:
                logger.warning("the analysis process died; starting another")
                self._shutdown()
        self.processes = False
        return await loop.run_in_executor(self._pool(), self.function, *arguments)

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.processes:
                context = multiprocessing.get_context("spawn")  # the server has threads: no fork
                self._executor = ProcessPoolExecutor(
                    max_workers=1, mp_context=context,
                    initializer=_end_with_parent, initargs=(os.getpid(),),
                )  # fmt: skip
            else:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="miogen-analysis")
        return self._executor

    def warm_up(self) -> None:
        """Start the analysis process now (it imports the analysis), not at the first request."""
        self._pool().submit(_warm)

    def _shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def close(self) -> None:
        self._shutdown()


def _warm() -> None:
    """Runs in the analysis process: its imports are done by then."""


PARENT_CHECK_SECONDS = 0.5


def _end_with_parent(parent: int) -> None:
    """Runs in the analysis process at its start: it exits once the server is gone (killed: its
    task queue's pipe stays open in this process too, so a read would never end)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="miogen-parent-watch", daemon=True).start()


def _resolved(
    loop: asyncio.AbstractEventLoop, outcome: Snapshot | SourceSyntaxError
) -> asyncio.Future[Snapshot]:
    future: asyncio.Future[Snapshot] = loop.create_future()
    if isinstance(outcome, SourceSyntaxError):
        future.set_exception(outcome)
        future.add_done_callback(lambda f: f.exception())  # nobody may be waiting
    else:
        future.set_result(outcome)
    return future


def _fail(request: _Request, error: BaseException) -> None:
    if not request.future.done():
        request.future.set_exception(error)
        request.future.add_done_callback(lambda f: f.exception())  # nobody may be waiting
