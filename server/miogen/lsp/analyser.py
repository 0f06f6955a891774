"""Static analyses of the documents' texts, in a process of their own: once per text, newest first.

Analysing a long module costs seconds of CPU (about half a millisecond per function, linear in
the module's size: bench/big_file.py); in a thread it would hold the GIL while requests wait, so it runs in
separate processes and only the picklable ``Snapshot`` comes back (unpickled in the executor's
thread, not on the event loop). Invariant 1 holds: the analysis is static, nothing of the user's
code runs anywhere.

Per document a text is analysed once (results are kept per text, so the saved text reuses the
editor's), at most one analysis runs at a time, and of the texts waiting behind it only the newest
is analysed: typing faster than the analysis skips the versions in between. A text that someone
must have (the saved file) is never skipped. Two processes serve all documents: one long analysis
leaves the other free for the next file. A text longer than ``MAX_CHARACTERS`` is not analysed
(``TooBig``; the client is told once per document). ``close`` kills the processes: a running
analysis never holds up the server's exit.

A text longer than ``DETAIL_CHARACTERS`` is outlined (``take(outline=True)``: every unit's
name, lines and fingerprint, a third of the whole analysis of a long module); ``details`` finds
some of its units' targets and lines in the same processes when the server needs them (a job
for the unit, a result to show on the text), and adds them to the snapshot.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from miogen.common.errors import SourceSyntaxError
from miogen.lsp.protocol import CommandError
from miogen.lsp.snapshot import Details, Snapshot, UnitShape, details, take

logger = logging.getLogger(__name__)

KEPT_PER_DOCUMENT = 4  # finished analyses kept per document (editor text, saved text, undo)
PROCESSES = 2  # analysis processes: a long analysis of one file leaves one for the others
# The longest text analysed (characters): about 50,000 lines; its analysis takes seconds.
MAX_CHARACTERS = 2_000_000
# A longer text is outlined: its units' targets are found when asked for (a job, a result to
# show), a fraction of the whole analysis of a long module; a shorter one is analysed whole.
DETAIL_CHARACTERS = 200_000
# Tests only: while this variable names a file that does not exist, analyses wait (up to
# GATE_SECONDS), so that a test sees what the server answers before an analysis finishes.
GATE_VARIABLE = "MIOGEN_TEST_ANALYSIS_GATE"
GATE_SECONDS = 300.0


class Superseded(Exception):
    """A newer text of the document was analysed instead of this one."""


class TooBig(CommandError):
    """The text is longer than the analyser takes; a command on it fails with this message."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(
            f"miogen: {os.path.basename(path)} is too big to analyse ({size:,} characters, "
            f"more than {limit:,}): no lenses, coverage or tests for it"
        )


class Closed(Exception):
    """The analyser was closed while the analysis ran."""


@dataclass(frozen=True)
class _NoParse:
    """A SourceSyntaxError as it crosses the process boundary (the exception does not pickle)."""

    path: str
    line: int
    message: str


def analyse_text(source: str, path: str, module: str) -> Snapshot | _NoParse:
    """``take`` for the analysis process: a syntax error comes back as a value. A text longer
    than ``DETAIL_CHARACTERS`` is outlined (``take(outline=True)``): its units get their targets
    when the server asks for them (``detail_text``).

    The cyclic garbage collector is off meanwhile: the analysis makes millions of objects and
    few cycles, and its collections took a sixth to a third of a big module's analysis.
    """
    _wait_for_gate()
    gc.disable()
    try:
        return take(source, path, module, outline=len(source) > DETAIL_CHARACTERS)
    except SourceSyntaxError as error:
        return _NoParse(error.path, error.line, str(error))
    finally:
        gc.enable()


def detail_text(source: str, path: str, module: str, names: tuple[str, ...]) -> Details:
    """``details`` for the analysis process (the text was analysed: it parses)."""
    gc.disable()
    try:
        return details(source, path, module, names)
    finally:
        gc.enable()


def _wait_for_gate() -> None:
    gate = os.environ.get(GATE_VARIABLE)
    deadline = time.monotonic() + GATE_SECONDS
    while gate and not os.path.exists(gate) and time.monotonic() < deadline:
        time.sleep(0.05)


Analysis = Callable[[str, str, str], "Snapshot | _NoParse"]
Result = TypeVar("Result")


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
    newer text was analysed instead, ``TooBig`` when the text is longer than ``limit``
    characters (``warn`` is then called with the message, once per document). ``function``
    and ``processes`` are for tests (a slow or failing analysis, run in threads).
    """

    def __init__(
        self,
        function: Analysis = analyse_text,
        processes: bool = True,
        warn: Callable[[str], None] = logger.warning,
        limit: int = MAX_CHARACTERS,
    ) -> None:
        self.function = function
        self.processes = processes
        self.warn = warn
        self.limit = limit
        self.runs = 0  # analyses started (for tests and the log)
        self.closed = False
        self._queues: dict[str, _Queue] = {}
        self._too_big: set[str] = set()  # documents told they are too big
        self._executor: Executor | None = None
        # Targets being found: (id of the snapshot, units) -> (the snapshot, its future).
        self._details: dict[tuple[int, tuple[str, ...]], tuple[Snapshot, asyncio.Future[Snapshot]]]
        self._details = {}

    # --- asking -----------------------------------------------------------------------------

    def analysis(
        self, key: str, source: str, path: str, module: str, *, keep: bool = False
    ) -> asyncio.Future[Snapshot]:
        """The analysis of ``source`` for document ``key``: finished, running, or queued."""
        loop = asyncio.get_running_loop()
        if len(source) > self.limit:
            return self._refused(loop, key, TooBig(path, len(source), self.limit))
        self._too_big.discard(key)
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

    def _refused(
        self, loop: asyncio.AbstractEventLoop, key: str, error: TooBig
    ) -> asyncio.Future[Snapshot]:
        if key not in self._too_big:
            self._too_big.add(key)
            self.warn(str(error))
        future: asyncio.Future[Snapshot] = loop.create_future()
        future.set_exception(error)
        future.add_done_callback(lambda f: f.exception())  # nobody may be waiting
        return future

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

    def details(self, snapshot: Snapshot, names: Iterable[str]) -> asyncio.Future[Snapshot]:
        """``snapshot`` once its units ``names`` have their targets and lines (``Snapshot.add``;
        at once when they have). Asked again for the same units while they are found, the same
        future; fails with ``Closed`` when the analyser is closed meanwhile."""
        loop = asyncio.get_running_loop()
        missing = tuple(snapshot.undetailed(names))
        if not missing:
            return _resolved(loop, snapshot)
        key = (id(snapshot), missing)
        running = self._details.get(key)
        if running is not None and running[0] is snapshot:
            return running[1]
        future: asyncio.Future[Snapshot] = loop.create_future()
        self._details[key] = (snapshot, future)
        loop.create_task(self._detail(key, snapshot, missing, future))
        return future

    async def shape(self, snapshot: Snapshot, name: str) -> UnitShape:
        """The unit ``name`` of ``snapshot`` with its targets and lines (``details``)."""
        return (await self.details(snapshot, [name])).units[name]

    async def _detail(
        self,
        key: tuple[int, tuple[str, ...]],
        snapshot: Snapshot,
        names: tuple[str, ...],
        future: asyncio.Future[Snapshot],
    ) -> None:
        model = snapshot.model
        arguments = (snapshot.source, model.path, model.module_name, names)
        try:
            found = await self._in_pool(detail_text, arguments)
        except Exception as error:  # noqa: BLE001 - Closed, or a bug: the asker is told
            if not isinstance(error, Closed):
                logger.exception("the targets of %s in %s", ", ".join(names), model.path)
            _fail_future(future, error)
        else:
            snapshot.add(found)
            if not future.done():
                future.set_result(snapshot)
        finally:
            self._details.pop(key, None)

    def forget(self, key: str) -> None:
        """Drop a closed document's results (a running analysis finishes unseen)."""
        queue = self._queues.pop(key, None)
        self._too_big.discard(key)
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
        except Closed as error:
            _fail(request, error)
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
        return await self._in_pool(self.function, (request.source, request.path, request.module))

    async def _in_pool(self, function: Callable[..., Result], arguments: tuple[Any, ...]) -> Result:
        """In an analysis process; a process that died is replaced once, then a thread serves."""
        loop = asyncio.get_running_loop()
        for _ in range(2):
            try:
                return await loop.run_in_executor(self._pool(), function, *arguments)
            except BrokenProcessPool:
                if self.closed:
                    raise Closed() from None
                logger.warning("an analysis process died; starting others")
                self._shutdown()
        self.processes = False
        return await loop.run_in_executor(self._pool(), function, *arguments)

    def _pool(self) -> Executor:
        if self.closed:
            raise Closed()
        if self._executor is None:
            if self.processes:
                context = multiprocessing.get_context("spawn")  # the server has threads: no fork
                self._executor = ProcessPoolExecutor(
                    max_workers=PROCESSES, mp_context=context,
                    initializer=_end_with_parent, initargs=(os.getpid(),),
                )  # fmt: skip
            else:
                self._executor = ThreadPoolExecutor(PROCESSES, thread_name_prefix="miogen-analysis")
        return self._executor

    def warm_up(self) -> None:
        """Start the analysis processes now (they import the analysis), not at the first
        requests (the pool starts a process for a task when none is idle)."""
        pool = self._pool()
        for _ in range(PROCESSES):
            pool.submit(_warm)

    def _shutdown(self, kill: bool = False) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # A process still analysing would hold the interpreter's exit (it joins the pool).
        processes = list(getattr(executor, "_processes", None) or {}) if kill else []
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            try:
                os.kill(process, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def close(self) -> None:
        """Abandon every analysis (their futures fail with ``Closed``) and end the processes."""
        self.closed = True
        self._shutdown(kill=True)


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
    _fail_future(request.future, error)


def _fail_future(future: asyncio.Future[Snapshot], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
        future.add_done_callback(lambda f: f.exception())  # nobody may be waiting
