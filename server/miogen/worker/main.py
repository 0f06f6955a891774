"""The worker process: reads a JobSpec on stdin, runs the engine, answers JSON lines on its stdout.

``python -m miogen.worker.main`` is an entry point like ``cli.py``: user code runs only here. Before
any of it runs, the worker keeps a private copy of its stdout for the protocol and points file
descriptors 0, 1 and 2 elsewhere, so that user prints (even ``os.write(1, ...)``) can never
reach the protocol stream.

``python -m miogen.worker.main --spare`` is a worker started ahead of its job (``host.spare``):
it imports miogen's engine, then waits for the spec. Nothing of the user's is imported or run
before the spec arrives; the sandbox, the limits and the pytest world are entered after it, as
in a worker started for the job. While it waits it analyses the texts it is given
(``Preparation`` lines before the spec): static work, whose results the job finds in the
analysis' caches when it is for the same text. A spare whose parent goes away reads the end of
its stdin and exits.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import json
import os
import select
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from miogen.analysis.model import ModuleModel
from miogen.analysis.source import read_source
from miogen.common.errors import MiogenError, ModuleImportError, SourceSyntaxError, UnknownUnitError
from miogen.common.heartbeat import Heartbeat
from miogen.common.preparation import PREPARE, Preparation
from miogen.common.records import ErrorKind, JobSpec, Loaded, WorkerError, to_json
from miogen.worker.sandbox import enter_sandbox
from miogen.worker.world import enter_pytest_world


class Channel:
    """JSON lines on a private file descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, record: object) -> None:
        data = (json.dumps(to_json(record), default=repr) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]


def isolate_stdio(scratch: str) -> Channel:
    protocol = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    output = os.open(
        os.path.join(scratch, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600
    )
    os.dup2(output, 1)
    os.dup2(output, 2)
    for fd in (null, output):
        os.close(fd)
    return Channel(protocol)


def error_kind(error: MiogenError) -> ErrorKind:
    if isinstance(error, SourceSyntaxError):
        return ErrorKind.SYNTAX
    if isinstance(error, ModuleImportError):
        return ErrorKind.IMPORT
    if isinstance(error, UnknownUnitError):
        return ErrorKind.UNKNOWN_UNIT
    return ErrorKind.INTERNAL


def main(argv: list[str]) -> None:
    spare = "--spare" in argv
    if spare:
        from miogen.worker import engine  # noqa: F401 - imported ahead: the job then finds it loaded

        gc.freeze()  # see Ahead.prepare
    ahead = Ahead()
    text = ahead.wait_for_spec(_StdinLines(sys.stdin.fileno())) if spare else sys.stdin.read()
    if not text:
        os._exit(0)  # the parent went away (or discarded this spare) before giving it a job
    spec = JobSpec.loads(text)
    if spare:
        _as_started_for(spec)
        ahead.keep_if_current()
    channel = isolate_stdio(spec.scratch)
    send = _marking_loaded(channel.send) if ahead.done_for(spec) else channel.send
    heartbeat = Heartbeat(os.path.join(spec.scratch, "heartbeat"))
    try:
        enter_sandbox(spec)
        enter_pytest_world(spec.warning_filters)
        from miogen.worker import engine  # after the sandbox: nothing of the user's has run yet

        engine.generate(spec, send, heartbeat)
    except MiogenError as error:
        line = getattr(error, "line", None)
        channel.send(WorkerError(error_kind(error), str(error), line))
    except BaseException:  # noqa: BLE001 - report anything, then leave
        channel.send(WorkerError(ErrorKind.INTERNAL, traceback.format_exc()))
    finally:
        # os._exit: skip user atexit handlers and non-daemon threads that could hang the exit.
        os._exit(0)


def _as_started_for(spec: JobSpec) -> None:
    """What a worker started for ``spec`` has: its scratch folder as working directory and as
    ``sys.path[0]`` (``-m`` put the launch folder there), and import caches that see files
    written since the launch."""
    launched = os.getcwd()
    os.chdir(spec.scratch)
    if sys.path and sys.path[0] == launched:
        sys.path[0] = spec.scratch
    importlib.invalidate_caches()


class _StdinLines:
    """Lines of a file descriptor, read as they come, with a look for more without waiting."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer = fd, b""

    def line(self) -> bytes:
        """The next line (with its newline; without one at the end of input; b"" after it)."""
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                line, self.buffer = self.buffer, b""
                return line
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line + b"\n"

    def rest(self) -> bytes:
        """Everything up to the end of input."""
        chunks = [self.buffer]
        while chunk := os.read(self.fd, 1 << 16):
            chunks.append(chunk)
        self.buffer = b""
        return b"".join(chunks)

    def more(self) -> bool:
        """Whether more input is there (or its end): a read would not wait."""
        return bool(self.buffer) or bool(select.select([self.fd], [], [], 0)[0])

    def next_starts(self, prefix: bytes) -> bool:
        """Whether input is there and starts with ``prefix`` (reads what is there, no more)."""
        if len(self.buffer) < len(prefix) and select.select([self.fd], [], [], 0)[0]:
            self.buffer += os.read(self.fd, 1 << 16)
        return self.buffer.startswith(prefix)


class Ahead:
    """A spare's analyses of the texts it is given before its job (see the module docstring).

    Each step fills a cache keyed by the text (the analysis, the completed signatures, the
    parses the job's phases share). A newer text waiting skips the older; the analysis itself
    runs also when the spec is waiting (the job would run it next), and the spec or a newer
    text ends the steps after it. Package modules whose classes the completed signatures read
    are checked again when the spec arrives: if one changed since, the analyses are forgotten.
    """

    def __init__(self) -> None:
        self.stamps: dict[str, float] = {}  # package files read (path -> mtime), of the last text
        self.prepared: tuple[str, str, str] | None = None  # (source, path, module) analysed

    def wait_for_spec(self, lines: _StdinLines) -> str:
        """The job spec's text, after the preparations that come before it ("" at the end)."""
        while True:
            line = lines.line()
            preparation = Preparation.parse(line)
            if preparation is None:
                return (line + lines.rest()).decode() if line else ""
            if not lines.next_starts(PREPARE):  # else a newer text is waiting: skip this one
                self.prepare(preparation, lines.more)

    def prepare(self, preparation: Preparation, interrupted: Callable[[], bool]) -> None:
        from miogen.analysis.module import analyze_source

        try:
            source = Path(preparation.text_file).read_text(encoding="utf-8")
        except (OSError, UnicodeError):
            return
        path, module = str(Path(preparation.path)), preparation.module_name
        try:
            model = analyze_source(source, path, module)
        except MiogenError:
            return  # a text that does not parse: the job reports it
        self.prepared, self.stamps = (source, path, module), _package_stamps(path, module)
        try:
            for step in _steps(model):
                if interrupted():
                    return
                try:
                    step()
                except Exception:  # noqa: BLE001 - the job runs the step again and reports
                    return
        finally:
            # What stays from here on is kept for the job: out of the collector's sight, the
            # job's own allocations (the instrumented import most) no longer make it walk the
            # analyses' many objects again and again (a third of argparse's import).
            gc.freeze()

    def keep_if_current(self) -> None:
        """Forget the analyses if a module of the package changed since they were made."""
        if self.prepared is not None and _package_stamps(*self.prepared[1:]) != self.stamps:
            from miogen.analysis.module import forget_analyses

            forget_analyses()
            self.prepared = None

    def done_for(self, spec: JobSpec) -> bool:
        """Whether the job's module, as it is on disk now, is the text analysed ahead."""
        if self.prepared is None:
            return False
        source, path, module = self.prepared
        if (str(Path(spec.path)), spec.module_name) != (path, module):
            return False
        try:
            return read_source(path) == source
        except (OSError, MiogenError):
            return False


def _marking_loaded(send: Callable[[object], None]) -> Callable[[object], None]:
    """``send``, with the ``Loaded`` event saying that the module was analysed ahead."""

    def marked(record: object) -> None:
        if isinstance(record, Loaded):
            record = dataclasses.replace(record, analysed_ahead=True)
        send(record)

    return marked


def _steps(model: ModuleModel) -> list[Callable[[], object]]:
    """What a job computes from the text before its first unit's search, in order (the
    completed signatures most of all)."""
    from miogen.assertions.mutants import parsed
    from miogen.worker.phases import probed_lines_of

    source = model.source
    return [model.completion, lambda: parsed(source), lambda: probed_lines_of(source)]


def _package_stamps(path: str, module: str) -> dict[str, float]:
    """Modification times of the Python files of the module's top-level package (the only
    modules whose classes its analysis reads); nothing for a module outside a package."""
    depth, file = module.count("."), Path(path)
    if file.name == "__init__.py":
        top = file.parents[depth]
    elif depth:
        top = file.parents[depth - 1]
    else:
        return {}
    stamps: dict[str, float] = {}
    for found in sorted(top.rglob("*.py"))[:PACKAGE_FILES]:
        try:
            stamps[str(found)] = found.stat().st_mtime
        except OSError:
            continue
    return stamps


PACKAGE_FILES = 2000  # files of a package checked for changes (more: the first, by name)


if __name__ == "__main__":
    main(sys.argv[1:])
