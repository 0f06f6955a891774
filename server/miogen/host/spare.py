"""Worker processes started ahead of their job, so that a save does not wait for Python to start.

A spare is ``python -m miogen.worker.main --spare``: past the interpreter's start and miogen's engine
imports, blocked on its stdin until the supervisor writes a job spec there. Nothing of the user's
runs before the spec arrives (the worker imports the module, enters the sandbox and its limits
after it, as a worker started for the job does), so a spare never holds stale user code.

A spare is used once. It is discarded (killed) when it no longer matches what a worker started
now would be: another key (the language server's settings), another interpreter, or a change in
the interpreter's site folders since its launch (a package installed or removed: its ``.pth`` files
were read at the launch). A spare that died is replaced, never waited on. It dies with its
parent: when the parent exits or is killed, the spare reads the end of its stdin and exits.

A spare can also be given a module's text ahead of its job (``Spares.prepare``: the text the
language server has just analysed, or a file just saved): it analyses it while it waits (the
analysis is static: nothing of the user's runs), so that a job for that text finds its analysis
done. The text goes through a file (a line on stdin names it), so that the parent never blocks on
a full pipe; a spare that is busy gets only the newest text, and a job spec ends a preparation.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import site
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from miogen.common.platform_support import kill_process_group
from miogen.common.preparation import Preparation
from miogen.host.interpreter import OWN, Interpreter

WORKER = "miogen.worker.main"
# The spare's launch folder becomes its sys.path[0] until the job's scratch folder replaces it:
# the folder that holds miogen itself adds nothing that could shadow a module.
LAUNCH_FOLDER = str(Path(__file__).resolve().parents[2])
TEXTS_KEPT = 2  # text files kept for spares: the newest, and one a spare may still be reading


def worker_environment() -> dict[str, str]:
    return dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")


def launch_worker(
    cwd: str, spare: bool = False, interpreter: Interpreter = OWN
) -> subprocess.Popen[bytes]:
    """A worker process reading its job spec on stdin and answering on stdout, in
    ``interpreter`` (the project's, ``host.interpreter``; spares run in miogen's own).

    Its own session: a kill of the process group takes the user's child processes along.
    """
    return subprocess.Popen(
        interpreter.command(WORKER, *(["--spare"] if spare else [])),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=interpreter.environment(worker_environment()),
        start_new_session=True,
    )


def kill_worker(process: subprocess.Popen[bytes]) -> None:
    """Kill the worker's process group and reap it."""
    kill_process_group(process.pid)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def _environment_stamp() -> tuple[tuple[str, float], ...]:
    """The interpreter and its site folders (where ``.pth`` files live) with their modification
    times: installing or removing a package changes its site folder's."""
    stamp = []
    for path in (sys.executable, *site.getsitepackages(), site.getusersitepackages()):
        try:
            stamp.append((path, os.stat(path).st_mtime))
        except OSError:
            stamp.append((path, -1.0))
    return tuple(stamp)


@dataclass(eq=False)
class Spare:
    """One worker process waiting for its job spec."""

    process: subprocess.Popen[bytes]
    key: object
    stamp: tuple[tuple[str, float], ...]
    launched: float = field(default_factory=time.monotonic)
    prepared: str = ""  # the text file of the last preparation sent to it

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        kill_worker(self.process)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    @property
    def stdin(self) -> IO[bytes]:
        return self.process.stdin  # type: ignore[return-value]


class SpareSource(Protocol):
    """What the supervisor needs: a spare for its job, and a new one once it took it."""

    def take(self) -> Spare | None: ...

    def refill(self) -> None: ...


class Spares:
    """At most one spare worker, for the key of the last ``refill`` (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: Spare | None = None
        self._closed = False
        self._texts: list[str] = []  # text files written for preparations, oldest first
        self._folder: str | None = None  # where they are written (made at the first)
        self._pending: Preparation | None = None  # not yet sent to any spare
        self.launched = 0  # spares launched so far
        self.discarded = 0  # spares killed unused (stale, dead or at close)

    @property
    def current(self) -> Spare | None:
        """The spare waiting now (alive or not)."""
        return self._spare

    def take(self, key: object) -> Spare | None:
        """The waiting spare if it fits ``key`` and the environment of now; else None (a spare
        that does not fit is killed)."""
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is None:
            return None
        if spare.alive() and spare.key == key and spare.stamp == _environment_stamp():
            return spare
        self._drop(spare)
        return None

    def refill(self, key: object) -> None:
        """Launch a spare for ``key`` unless a live one for it waits already (one for another
        key, or a dead one, is replaced)."""
        with self._lock:
            spare = self._spare
            if self._closed or (spare is not None and spare.alive() and spare.key == key):
                return
            self._spare = None
            if spare is not None:
                self._drop(spare)
            try:
                process = launch_worker(LAUNCH_FOLDER, spare=True)
            except OSError:
                return  # no process left for a spare: jobs start their own worker
            self._spare = Spare(process, key, _environment_stamp())
            self.launched += 1
            if self._pending is not None:
                self._send(self._spare, self._pending)

    def prepare(self, path: str, module_name: str, source: str) -> None:
        """Have the waiting spare (or, if none waits, the next one) analyse ``source``, the text
        of the module at ``path``, ahead of its job. Never blocks on the spare."""
        with self._lock:
            if self._closed:
                return
            preparation = Preparation(path, module_name, self._text_file(source))
            spare = self._spare
            if spare is not None and spare.alive():
                self._send(spare, preparation)
            else:
                self._pending = preparation

    def _text_file(self, source: str) -> str:
        """A file holding ``source`` (the same file for the same text)."""
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix="miogen-ahead-")
        digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        path = os.path.join(self._folder, f"{digest}.txt")
        if path in self._texts:
            self._texts.remove(path)
        else:
            with open(path, "w", encoding="utf-8", errors="surrogatepass") as text:
                text.write(source)
        self._texts.append(path)
        for old in self._texts[:-TEXTS_KEPT]:
            self._texts.remove(old)
            try:
                os.unlink(old)
            except OSError:
                pass
        return path

    def _send(self, spare: Spare, preparation: Preparation) -> None:
        """Write the preparation's line to the spare unless it has it already; a full pipe (a
        spare still busy with older texts) skips it rather than wait."""
        self._pending = None
        if spare.prepared == preparation.text_file:
            return
        fd = spare.stdin.fileno()
        os.set_blocking(fd, False)
        try:
            os.write(fd, preparation.line())  # shorter than PIPE_BUF: all or nothing
            spare.prepared = preparation.text_file
        except OSError:  # full (BlockingIOError) or closed: the job analyses it itself
            pass
        finally:
            os.set_blocking(fd, True)

    def discard(self) -> None:
        """Kill the waiting spare (the settings changed: the next refill starts another)."""
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            self._drop(spare)

    def close(self) -> None:
        """Kill the waiting spare and launch no more."""
        with self._lock:
            self._closed = True
            folder, self._folder = self._folder, None
        self.discard()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def keyed(self, key: object) -> SpareSource:
        """This pool as the supervisor of a job with ``key`` sees it."""
        return _Keyed(self, key)

    def _drop(self, spare: Spare) -> None:
        spare.kill()
        self.discarded += 1


@dataclass(frozen=True)
class _Keyed:
    spares: Spares
    key: object

    def take(self) -> Spare | None:
        return self.spares.take(self.key)

    def refill(self) -> None:
        self.spares.refill(self.key)
