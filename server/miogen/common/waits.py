"""Deadlines on a test clock: the wall clock less the time the thread waited for a CPU.

A test given one second should get one second of running, however busy the machine is: on a
machine that pauses the worker for a quarter of a second (other processes on every core), a
wall-clock alarm stops tests that a quiet run lets end, and the written tests differ. Linux
gives per thread, in ``/proc/<pid>/task/<tid>/schedstat``, three numbers: the nanoseconds it
ran on a CPU, the nanoseconds it waited on a run queue (runnable, no CPU free) and its time
slices. The *test clock* is the wall clock less that wait: time the test slept (``sleep``, I/O)
counts, time the machine kept it from running does not.

A ``Deadline`` is a timeout on the test clock, with a hard cap on the wall clock
(``CAP_FACTOR`` times the timeout), so that a machine that never lets the test run still ends
it. Where schedstat cannot be read (another system, a masked /proc) the reader answers None and
the deadline is the plain wall-clock one.

Cost: the worker's executor reads the wait once as each test starts and again only when its
alarm fires, from a descriptor opened once per thread (``thread_waits``): one ``pread`` of a
few dozen bytes (about 2 µs, as much as arming the timer; an ``open`` each time costs about
20 µs and passes through the sandbox's audit hook). Nothing in it allocates more than that
read's bytes and a few integers, so the alarm's handler can use it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

CAP_FACTOR = 10.0  # the wall-clock cap: this many times the timeout
THREAD_SELF = "/proc/thread-self/schedstat"

WaitReader = Callable[[], "int | None"]  # nanoseconds waited so far; None: not known


def parse_wait(raw: bytes) -> int | None:
    """The run-queue wait (the second number) of a schedstat line, None when it has none.

    >>> parse_wait(b"162329797 393037781 46\\n")
    393037781
    """
    fields = raw.split()
    if len(fields) < 2 or not fields[1].isdigit():
        return None
    return int(fields[1])


class ThreadWaits:
    """The run-queue wait of the thread that made it (its schedstat, opened once: a descriptor
    of ``/proc/thread-self`` names the thread that opened it, in the process that opened it)."""

    def __init__(self, path: str = THREAD_SELF) -> None:
        self._fd = -1
        try:
            self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except (OSError, AttributeError):
            return
        if self._read() is None:  # not a schedstat file: close the descriptor opened here
            self.close()

    def _read(self) -> int | None:
        try:
            return parse_wait(os.pread(self._fd, 128, 0))
        except OSError:
            return None

    def __call__(self) -> int | None:
        if self._fd < 0:
            return None
        found = self._read()
        if found is None:
            # closed under us (a test closed descriptors) or not a schedstat line (its number
            # reused): the wall clock from now, and the number is not ours to close
            self._fd = -1
        return found

    def close(self) -> None:
        if self._fd >= 0:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = -1


_THREADS: dict[tuple[int, int], ThreadWaits] = {}
_LOCK = threading.Lock()


def thread_waits() -> ThreadWaits:
    """The calling thread's reader, one per process and thread (a forked child opens its own)."""
    key = (os.getpid(), threading.get_ident())
    found = _THREADS.get(key)
    if found is None:
        with _LOCK:
            found = _THREADS.setdefault(key, ThreadWaits())
    return found


def process_waits(pid: int) -> int | None:
    """The run-queue wait of process ``pid``'s main thread (its first: where a worker's tests
    run, as the alarm only reaches that thread), None when it cannot be read. Opens the file:
    for a watcher that asks now and then, not for every test."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as handle:
            return parse_wait(handle.read(128))
    except OSError:
        return None


class Deadline:
    """``seconds`` on the test clock from ``start()``, and never more than ``cap_factor`` times
    that on the wall clock (``clock``). ``waits`` reads the thread's wait so far (ns)."""

    __slots__ = ("seconds", "waits", "clock", "cap_factor", "cap", "started", "waited", "capped")

    def __init__(
        self,
        seconds: float,
        waits: WaitReader,
        clock: Callable[[], float] = time.monotonic,
        cap_factor: float = CAP_FACTOR,
    ) -> None:
        self.seconds, self.waits, self.clock = seconds, waits, clock
        self.cap_factor, self.cap = cap_factor, cap_factor * seconds
        self.started = 0.0
        self.waited: int | None = None  # at the start
        self.capped = False  # the last ``left`` was bounded by the wall-clock cap

    def start(self, seconds: float | None = None) -> None:
        """Start (again: a deadline is reused for each test), for ``seconds`` if given."""
        if seconds is not None:
            self.seconds = seconds
        self.cap = self.cap_factor * self.seconds
        self.waited = self.waits()
        self.started = self.clock()
        self.capped = False

    def waited_since(self) -> float:
        """Seconds the thread waited for a CPU since ``start`` (0 when it cannot be read)."""
        if self.waited is None:
            return 0.0
        now = self.waits()
        return (now - self.waited) / 1e9 if now is not None and now > self.waited else 0.0

    def left(self) -> float:
        """Wall seconds until the deadline as it stands now (0 or less: it has passed): the
        timeout plus the wait since the start, at most the cap."""
        extended = self.seconds + self.waited_since()
        self.capped = extended >= self.cap
        return min(extended, self.cap) - (self.clock() - self.started)


def elapsed_on_test_clock(
    wall_seconds: float, waited_at_start: int | None, waited_now: int | None
) -> float:
    """Seconds on the test clock of a run that took ``wall_seconds`` by the wall clock, from
    the waits at its start and now (either None: the wall clock's)."""
    if waited_at_start is None or waited_now is None or waited_now < waited_at_start:
        return wall_seconds
    return wall_seconds - (waited_now - waited_at_start) / 1e9
