"""The worker's sandbox: resource limits, a scratch directory, and an audit hook that refuses harm.

``enter_sandbox`` runs once in the worker process, before any of the user's code is imported. It
points the working directory, HOME and TMPDIR at the job's scratch directory, lowers resource
limits (address space, CPU seconds, file size, core dumps, number of processes) and installs a
``sys.addaudithook`` guard. The guard refuses, by raising ``SandboxRefusal`` inside the code under
test, what could hurt the user's machine:

- writing, truncating, renaming, linking or deleting files outside scratch (reading stays allowed);
- starting processes (subprocess, os.system, os.exec*, os.posix_spawn, os.spawn*, fork, forkpty)
  and signalling processes other than the worker;
- network connections: connect, bind, sendto and sendmsg on any socket, except Unix sockets whose
  path lies inside scratch (a Unix socket can reach local daemons such as Docker's, so the rest
  are refused too);
- raising resource limits again, and sqlite databases outside scratch.

Each refusal is remembered; ``after_test`` hands the first one of a test to the executor (which
records it on the execution, so that the search treats the test as a dead end) and also stops
threads the test left running: they get an exception raised into them and every guarded action
they try afterwards is refused.

This is a guard against accidents in code being written, not a security boundary: code in C
(ctypes, extension modules) never passes through the audit hook. The resource limits and the
supervisor's process-group kill are what bound that.
"""

from __future__ import annotations

import _thread
import math
import os
import resource
import signal
import socket
import sys
import time

FILE_SIZE_LIMIT = 64 * 1024 * 1024  # per file the worker writes (scratch files, output.log)
OUTPUT_LIMIT = 8 * 1024 * 1024  # output.log is emptied after a test that takes it past this
PROCESS_MARGIN = 128  # processes/threads the worker may add to those its user already has
CPU_MARGIN = 10  # CPU seconds beyond the attempt's wall allowance (threads can use several cores)
THREAD_GRACE = 0.02  # seconds a test's threads get to finish after the test before being stopped
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
ALLOWED_OUTSIDE = frozenset({os.devnull})


class SandboxRefusal(PermissionError):
    """Raised inside the code under test when it tries something the worker's sandbox forbids."""


class ThreadStopped(BaseException):
    """Raised into a thread that a test left running (a BaseException: ``except Exception`` can't eat it)."""


def enter_sandbox(spec) -> None:
    """Scratch working directory, HOME/TMPDIR in scratch, resource limits, and the audit guard."""
    os.chdir(spec.scratch)
    for name in ("HOME", "TMPDIR", "TMP", "TEMP"):
        os.environ[name] = spec.scratch
    if "tempfile" in sys.modules:  # forget a temporary directory chosen before the sandbox
        sys.modules["tempfile"].tempdir = None
    sys.dont_write_bytecode = True
    limit_resources(spec)
    install_guard(spec.scratch)


def limit_resources(spec) -> None:
    _limit(resource.RLIMIT_AS, spec.memory_limit_mb * 1024 * 1024)
    _limit(resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT)
    _limit(resource.RLIMIT_CORE, 0)
    cpu = math.ceil(spec.attempt_seconds()) + CPU_MARGIN
    _limit(resource.RLIMIT_CPU, cpu, hard=cpu + 5)  # SIGXCPU at the soft limit, SIGKILL at the hard
    tasks = _user_tasks()
    if tasks is not None:  # not enforced for root, but a bound for everyone else
        _limit(resource.RLIMIT_NPROC, tasks + PROCESS_MARGIN)
    # Past the file size limit a write fails with EFBIG (an OSError in user code) instead of a kill.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _limit(which: int, value: int, hard: int | None = None) -> None:
    current_soft, current_hard = resource.getrlimit(which)
    if current_hard != resource.RLIM_INFINITY:
        value = min(value, current_hard)
        hard = current_hard if hard is None else min(hard, current_hard)
    elif hard is None:
        hard = current_hard
    if current_soft != resource.RLIM_INFINITY:
        value = min(value, current_soft)
    try:
        resource.setrlimit(which, (value, hard))
    except (ValueError, OSError):
        pass


def _user_tasks() -> int | None:
    """Processes and threads of this user now (RLIMIT_NPROC counts them all), None without /proc."""
    uid = os.getuid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    count = 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            continue  # it ended meanwhile
    return count


class Guard:
    """The audit hook: decides per event; remembers what it refused since the last test ended.

    ``verdict(event, args)`` is pure (no raising, no recording) so that it can be tested without
    installing the hook, which can never be removed from a process.
    """

    def __init__(self, scratch: str) -> None:
        self.scratch = os.path.realpath(scratch)
        self.refused = ""  # the first refusal since ``take_refusal``
        self.stale: set[int] = set()  # threads a finished test left running
        self.main_thread = _thread.get_ident()
        self.checks = {
            "open": self._open,
            "os.remove": self._path_dir_fd,
            "os.rmdir": self._path_dir_fd,
            "os.mkdir": lambda args: self._inside(args[0], "create a directory", args[2]),
            "os.rename": self._rename,
            "os.link": self._rename,
            "os.symlink": lambda args: self._inside(args[1], "create a link", args[2]),
            "os.truncate": lambda args: self._inside(args[0], "truncate"),
            "os.chmod": lambda args: self._inside(args[0], "change the mode of", args[2]),
            "os.chown": lambda args: self._inside(args[0], "change the owner of", args[3]),
            "os.utime": lambda args: self._inside(args[0], "change the times of", args[3]),
            "os.mkfifo": lambda args: self._inside(args[0], "create a fifo", args[2]),
            "os.mknod": lambda args: self._inside(args[0], "create a node", args[3]),
            "os.setxattr": lambda args: self._inside(args[0], "set attributes of"),
            "os.removexattr": lambda args: self._inside(args[0], "remove attributes of"),
            "shutil.rmtree": lambda args: self._inside(args[0], "delete"),
            "shutil.copyfile": lambda args: self._inside(args[1], "copy to"),
            "shutil.copytree": lambda args: self._inside(args[1], "copy to"),
            "sqlite3.connect": self._sqlite,
            "subprocess.Popen": lambda args: f"start a process ({_command(args[1])})",
            "os.system": lambda args: f"start a process ({_command(args[0])})",
            "os.exec": lambda args: f"replace the worker with {_command(args[1])}",
            "os.posix_spawn": lambda args: f"start a process ({_command(args[1])})",
            "os.spawn": lambda args: f"start a process ({_command(args[2])})",
            "os.fork": lambda args: "fork the worker",
            "os.forkpty": lambda args: "fork the worker",
            "os.kill": lambda args: self._signal(args[0], args[1]),
            "os.killpg": lambda args: self._signal(-args[0], args[1]),
            "resource.setrlimit": lambda args: "change resource limits",
            "resource.prlimit": lambda args: "change resource limits",
            "socket.connect": lambda args: self._network(args[0], args[1], "connect to"),
            "socket.bind": lambda args: self._network(args[0], args[1], "bind"),
            "socket.sendto": lambda args: self._network(args[0], args[1], "send to"),
            "socket.sendmsg": lambda args: self._network(args[0], args[1], "send to"),
        }

    def __call__(self, event: str, args: tuple) -> None:
        check = self.checks.get(event)
        if check is None:
            return
        reason = self.verdict(event, args)
        if not reason:
            return
        if _thread.get_ident() not in self.stale and not self.refused:
            self.refused = reason
        raise SandboxRefusal(f"miogen sandbox: refused to {reason}")

    def verdict(self, event: str, args: tuple) -> str:
        """Why ``event`` is refused, or "" when it is allowed."""
        check = self.checks.get(event)
        if check is None:
            return ""
        reason = check(args)
        if not reason and self.stale and _thread.get_ident() in self.stale:
            reason = f"{event} from a thread a finished test left running"
        return reason

    def take_refusal(self) -> str:
        reason, self.refused = self.refused, ""
        return reason

    def _open(self, args: tuple) -> str:
        path, _, flags = args
        if isinstance(path, int) or not flags & WRITE_FLAGS:
            return ""  # an already-open descriptor, or reading
        return self._inside(path, "write")

    def _path_dir_fd(self, args: tuple) -> str:
        return self._inside(args[0], "delete", args[1])

    def _rename(self, args: tuple) -> str:
        return self._inside(args[0], "move", args[2]) or self._inside(args[1], "move to", args[3])

    def _sqlite(self, args: tuple) -> str:
        database = os.fsdecode(args[0]) if not isinstance(args[0], str) else args[0]
        if database == ":memory:" or database == "" or database.startswith("file::memory:"):
            return ""
        if database.startswith("file:"):
            database = database[5:].partition("?")[0]
        return self._inside(database, "open a database")

    def _signal(self, pid: int, signum: int) -> str:
        own = os.getpid()
        if pid in (0, own) or pid == -os.getpgrp() or signum == 0:
            return ""
        return f"send signal {signum} to process {pid}"

    def _network(self, sock, address, action: str) -> str:
        if getattr(sock, "family", None) == socket.AF_UNIX and isinstance(address, (str, bytes)):
            name = os.fsdecode(address)
            if name and not name.startswith("\0") and not self._inside(name, action):
                return ""
        return f"{action} {address!r} (network)"

    def _inside(self, path, action: str, dir_fd: int | None = None) -> str:
        """ "" when ``path`` resolves inside scratch (or to /dev/null), else the refusal reason."""
        if isinstance(path, int):
            return ""  # an already-open descriptor
        try:
            name = os.fsdecode(path)
            if dir_fd is not None and dir_fd >= 0 and not os.path.isabs(name):
                name = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)
            resolved = os.path.realpath(name)
        except (OSError, TypeError, ValueError):
            return f"{action} {path!r} (could not resolve it inside scratch)"
        if resolved in ALLOWED_OUTSIDE:
            return ""
        if resolved == self.scratch or resolved.startswith(self.scratch + os.sep):
            return ""
        return f"{action} {resolved} outside the scratch directory"


def _command(argv) -> str:
    if isinstance(argv, (str, bytes)):
        text = os.fsdecode(argv)
    else:
        try:
            text = " ".join(os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in argv)
        except TypeError:
            text = repr(argv)
    return text if len(text) <= 80 else text[:77] + "..."


_guard: Guard | None = None


def install_guard(scratch: str) -> Guard:
    """Install the audit hook (once per process: it can never be removed)."""
    global _guard
    if _guard is None:
        _guard = Guard(scratch)
        sys.addaudithook(_guard)
    return _guard


def take_refusal() -> str:
    """What the sandbox refused since the last call ("" if nothing, or no sandbox here)."""
    return _guard.take_refusal() if _guard is not None else ""


def after_test() -> str:
    """Settle what a test left behind; return what was refused during it ("" if nothing).

    Cheap when the test left nothing: called after each of thousands of executions a second.
    """
    if _guard is None:
        return ""
    leftover = _stop_leftover_threads(_guard)
    _cap_output()
    refused = _guard.take_refusal()
    return refused or (f"leave {leftover} thread(s) running" if leftover else "")


def _stop_leftover_threads(guard: Guard) -> int:
    """Threads started during the test and still alive get ThreadStopped and become stale."""
    if _thread._count() <= len(guard.stale):
        return 0
    deadline = time.monotonic() + THREAD_GRACE
    while True:
        alive = set(sys._current_frames()) - guard.stale - {guard.main_thread}
        if not alive or time.monotonic() >= deadline:
            break
        time.sleep(0.001)
    guard.stale &= set(sys._current_frames())  # forget stale threads that have ended
    for ident in alive:
        _raise_in_thread(ident, ThreadStopped)
        guard.stale.add(ident)
    return len(alive)


def _raise_in_thread(ident: int, exception: type[BaseException]) -> None:
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(exception))


def _cap_output() -> None:
    """Empty output.log (fds 1 and 2) when a test took it past OUTPUT_LIMIT: flooding costs nothing."""
    try:
        if os.lseek(1, 0, os.SEEK_CUR) > OUTPUT_LIMIT:
            os.ftruncate(1, 0)
            os.lseek(1, 0, os.SEEK_SET)
    except OSError:
        pass  # fd 1 closed or replaced by the test: nothing of ours depends on it
