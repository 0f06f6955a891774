"""The worker process: reads a JobSpec on stdin, runs the engine, answers JSON lines on its stdout.

``python -m miogen.worker`` is an entry point like ``cli.py``: user code runs only here. Before
any of it runs, the worker keeps a private copy of its stdout for the protocol and points file
descriptors 0, 1 and 2 elsewhere, so that user prints (even ``os.write(1, ...)``) can never
reach the protocol stream.

``python -m miogen.worker --spare`` is a worker started ahead of its job (``execution.spare``):
it imports miogen's engine, then waits for the spec. Nothing of the user's is read or imported
before the spec arrives; the sandbox, the limits and the pytest world are entered after it, as
in a worker started for the job. A spare whose parent goes away reads the end of its stdin and
exits.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback

from miogen.errors import MiogenError, ModuleImportError, SourceSyntaxError, UnknownUnitError
from miogen.execution.heartbeat import Heartbeat
from miogen.execution.sandbox import enter_sandbox
from miogen.execution.world import enter_pytest_world
from miogen.records import ErrorKind, JobSpec, WorkerError, to_json


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
    if "--spare" in argv:
        from miogen import engine  # noqa: F401 - imported ahead: the job then finds it loaded
    text = sys.stdin.read()
    if not text:
        os._exit(0)  # the parent went away (or discarded this spare) before giving it a job
    spec = JobSpec.loads(text)
    if "--spare" in argv:
        _as_started_for(spec)
    channel = isolate_stdio(spec.scratch)
    heartbeat = Heartbeat(os.path.join(spec.scratch, "heartbeat"))
    try:
        enter_sandbox(spec)
        enter_pytest_world(spec.warning_filters)
        from miogen import engine  # after the sandbox: nothing of the user's has run yet

        engine.generate(spec, channel.send, heartbeat)
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


if __name__ == "__main__":
    main(sys.argv[1:])
