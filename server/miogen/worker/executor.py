"""Runs one test case against the loaded module, in this (worker) process, and observes it."""

from __future__ import annotations

import ast
import collections
import copy
import dis
import importlib
import os
import signal
import types
from collections.abc import Callable
from dataclasses import dataclass, field

from miogen.common.waits import Deadline, thread_waits
from miogen.instrument import runtime, tally
from miogen.testcase.model import Statement, TestCase
from miogen.worker import entropy, sandbox, special, world
from miogen.worker.tracer import ArcTracer


class TestTimeout(BaseException):
    """Raised inside user code by the per-test alarm (a BaseException so `except Exception` can't eat it)."""

    __test__ = False


@dataclass
class Execution:
    """What one run of a test showed."""

    test: TestCase  # truncated after the statement that raised
    arcs: set[tuple[int, int]]  # only when a tracer runs (units the probes cannot see fully)
    distances: dict[int, list[float]]
    hits: set[tuple[int, bool | None]]  # probe outcomes by line (None: a function entered)
    values: list[object] = field(default_factory=list)
    exception: tuple[int, str, str] | None = None  # (statement index, type name, message)
    exception_module: str = ""
    exception_class: type[BaseException] | None = None  # to name it as a test would import it
    timed_out: bool = False
    # Stopped by the wall-clock cap (common/waits.py) before its time on the test clock was up:
    # the machine did not let it run, and whether it would have timed out is not known.
    capped: bool = False
    refused: str = ""  # what the sandbox refused (or "run longer than 1 s"): never emitted
    # Statement counters of counted modules (instrument/counting.py) and the smallest infection
    # distance per probed mutant (0: weakly killed); the tally's own objects, not copies.
    counts: list[int] = field(default_factory=list)
    infections: dict[int, float] = field(default_factory=dict)
    # The exception passed through the module's own code (not a call with wrong arguments).
    raised_inside: bool = False
    # Statements that drew from an unseeded source (watched runs only: worker/entropy.py).
    drew: frozenset[int] = frozenset()
    # The exception's message is the project's: an explicit ``raise`` in the subject's package
    # made it, not CPython (``'>' not supported ...``, whose words change between versions).
    raised_by_project: bool = False
    # The probes' hits in the order first taken, and how many had been taken when each
    # statement started: which statement took a branch first (``first_hits``).
    hit_order: tuple[tuple[int, bool | None], ...] = ()
    hit_marks: tuple[int, ...] = ()

    def first_hits(self) -> dict[tuple[int, bool | None], int]:
        """The index of the statement during which each hit was first taken: a branch a test
        covers through an earlier call and again in a later one belongs to the earlier."""
        found: dict[tuple[int, bool | None], int] = {}
        marks = self.hit_marks
        for statement in range(len(marks)):
            end = marks[statement + 1] if statement + 1 < len(marks) else len(self.hit_order)
            for hit in self.hit_order[marks[statement] : end]:
                found[hit] = statement
        return found


class Executor:
    """Executes statements directly (no exec of source): fast, and free of rendering bugs."""

    def __init__(
        self,
        module: types.ModuleType,
        tracer: ArcTracer | None,
        timeout: float = 1.0,
        fresh_containers: bool = False,
    ) -> None:
        self.module = module
        self._root = _project_root(module)
        self.tracer = tracer
        self.timeout = timeout
        # The test clock's deadline, reused for each test: the run-queue wait of this thread
        # (the main one, which the alarm interrupts) does not count (``common.waits``).
        self.deadline = Deadline(timeout, thread_waits())
        self.executions = 0
        # e.g. the heartbeat: note the test (and statement) before user code runs
        self.before_test: Callable[[TestCase], None] | None = None
        self.before_statement: Callable[[int], None] | None = None
        self.after_test: Callable[[], None] | None = None
        self.refused_runs = 0  # executions the sandbox refused something in, or that timed out
        self._globals = dict(module.__dict__)
        sandbox.take_refusal()  # what the module's import was refused is not a test's doing
        # Module-level containers (the kinds analysis counts as module state) are copied back
        # after each test when the module has such state, so that no test sees another's leftovers.
        self._containers = (
            {k: copy.deepcopy(v) for k, v in self._globals.items() if type(v) in STATE_CONTAINERS}
            if fresh_containers
            else {}
        )
        signal.signal(signal.SIGALRM, _raise_timeout)

    def run(self, test: TestCase, trace: bool = True, watch: bool = False) -> Execution:
        """Run ``test``; with ``watch``, note the statements that drew from unseeded sources."""
        self.executions += 1
        runtime.reset()
        tally.reset()
        values: list[object] = []
        exception = None
        exception_module = ""
        exception_class = None
        limited = ""  # the exception is what a sandbox limit caused (sandbox.limit_effect)
        raised_inside = False
        raised_by_project = False
        timed_out = False
        executed = len(test)
        drew: set[int] = set()
        marks: list[int] = []  # hits taken before each statement (``Execution.hit_marks``)
        watcher = entropy.Watch() if watch else None
        if self.before_test is not None:
            self.before_test(test)
        tracer = self.tracer if trace else None
        if tracer is not None:
            tracer.start()
        signal.signal(signal.SIGALRM, _raise_timeout)  # user code may have replaced the handler
        if watcher is not None:
            watcher.__enter__()
        global _ARMED, _DEADLINE
        deadline = _DEADLINE = self.deadline
        try:
            # Armed inside the ``try``: on a busy machine the alarm may go off before the first
            # statement (the worker descheduled once the timer is set), and the test timed out.
            # The timer is the wall clock's; as it fires, the handler extends it by the time the
            # worker waited for a CPU meanwhile (the test clock: ``_raise_timeout``).
            deadline.start(self.timeout)
            _ARMED = True
            signal.setitimer(signal.ITIMER_REAL, self.timeout)
            before_statement = self.before_statement
            taken = runtime.HITS
            for index, statement in enumerate(test):
                marks.append(len(taken))
                if before_statement is not None:
                    before_statement(index)
                if watcher is not None:
                    watcher.take()
                try:
                    values.append(self._execute(statement, values))
                except TestTimeout:
                    timed_out = True
                    exception = (index, "TimeoutError", "the test took too long")
                    executed = index + 1
                    break
                except BaseException as error:  # noqa: BLE001 - SystemExit is a user outcome too
                    exception = (index, type(error).__name__, _message(error))
                    exception_module = type(error).__module__
                    exception_class = type(error)
                    raised_inside = _through(error.__traceback__, self.module.__file__)
                    limited = sandbox.limit_effect(error)
                    raised_by_project = _raised_in(error.__traceback__, self._root)
                    executed = index + 1
                    break
                finally:
                    if watcher is not None and watcher.take():
                        drew.add(index)
        except TestTimeout:  # the alarm went off between statements
            timed_out = True
            exception = (len(values), "TimeoutError", "the test took too long")
            executed = min(len(values) + 1, len(test))
        finally:
            _ARMED = False  # a plain store: no signal is handled before it (no call, no loop)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if watcher is not None:
                watcher.__exit__()
            arcs = tracer.stop() if tracer is not None else set()
            self._restore_globals()
            refused = sandbox.after_test()  # stops threads the test left running, too
            world.settle()
            if self.after_test is not None:
                self.after_test()
        capped = timed_out and deadline.capped
        if timed_out and not refused:
            refused = f"run longer than {self.timeout:g} s"
        elif limited and not refused:
            # Only the worker's limits stopped it (memory, file size, threads): outside, as a
            # test, it would not stop there; neither the test nor its exception is emitted.
            refused = limited
        self.refused_runs += bool(refused)
        distances = {line: list(d) for line, d in runtime.DISTANCES.items()}
        order = tuple(runtime.HITS)
        return Execution(
            test[:executed], arcs, distances, set(order), values, exception, exception_module,
            exception_class, timed_out, capped, refused, tally.COUNTS, tally.INFECTIONS, raised_inside,
            frozenset(drew), raised_by_project, order, tuple(marks),
        )  # fmt: skip

    def _execute(self, statement: Statement, values: list[object]) -> object:
        kind = statement.kind
        if kind == "value":
            if isinstance(statement.value, ast.AST):  # a fresh copy: the code may change it
                return copy.deepcopy(statement.value)
            return statement.value
        if kind in ("list", "tuple", "set"):
            items = [values[i] for _, i in statement.args]
            return {"list": list, "tuple": tuple, "set": set}[kind](items)
        if kind == "dict":
            items = [values[i] for _, i in statement.args]
            return dict(zip(items[::2], items[1::2], strict=False))
        if kind in ("enum", "class"):
            return self.resolve(statement.name)
        if kind == "property":
            return getattr(values[statement.receiver], statement.name)
        if kind in special.KINDS:
            return special.run(statement, values, self.resolve)
        positional, keywords = special.split_arguments(statement, values)
        if kind == "method":
            function = getattr(values[statement.receiver], statement.name)
        else:
            function = self.resolve(statement.name)
        return function(*positional, **keywords)

    def resolve(self, dotted: str) -> object:
        value: object = self.module
        parts = dotted.split(".")
        if len(parts) > 1 and not hasattr(value, parts[0]):
            value, parts = _imported(parts)  # a standard class the module imports by another name
        for part in parts:
            value = getattr(value, part)
        return value

    def _restore_globals(self) -> None:
        """Undo rebinding of module globals, so that tests don't see each other's leftovers."""
        namespace = self.module.__dict__
        saved = self._globals
        if len(namespace) != len(saved) or any(namespace.get(k) is not v for k, v in saved.items()):
            namespace.clear()
            namespace.update(saved)
        for name, snapshot in self._containers.items():
            if namespace[name] != snapshot:
                namespace[name] = saved[name] = copy.deepcopy(snapshot)


STATE_CONTAINERS = (
    list,
    dict,
    set,
    collections.defaultdict,
    collections.deque,
    collections.Counter,
    collections.OrderedDict,
)  # fmt: skip - analysis.module's _CONTAINER_CALLS, as types


def _imported(parts: list[str]) -> tuple[object, list[str]]:
    """The longest module a dotted name starts with, and the names left to look up in it
    (``collections.OrderedDict``: the module ``collections`` and ``["OrderedDict"]``)."""
    for end in range(len(parts) - 1, 0, -1):
        try:
            return importlib.import_module(".".join(parts[:end])), parts[end:]
        except ImportError:
            continue
    raise AttributeError(f"no module to import for {'.'.join(parts)!r}")


def _through(traceback: types.TracebackType | None, filename: str | None) -> bool:
    """Whether a traceback has a frame in ``filename`` (the code under test ran and raised)."""
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == filename:
            return True
        traceback = traceback.tb_next
    return False


_RAISE = dis.opmap["RAISE_VARARGS"]


def _project_root(module: types.ModuleType) -> str:
    """The folder of the subject's top package (of the module itself when it has none)."""
    filename: str | None = getattr(module, "__file__", None)
    if not filename:
        return ""
    parts = module.__name__.split(".")
    folder = os.path.dirname(os.path.abspath(filename))
    above = len(parts) - 1 if os.path.basename(filename) == "__init__.py" else len(parts) - 2
    for _ in range(max(above, 0)):
        folder = os.path.dirname(folder)
    return folder + os.sep


def _raised_in(traceback: types.TracebackType | None, root: str) -> bool:
    """Whether the exception was raised by a ``raise X(...)`` of a file under ``root``: the
    innermost frame is there and stopped at the raise (not at a call or an operator CPython
    raised in, nor at a bare ``raise`` passing one on)."""
    if traceback is None or not root:
        return False
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    code = traceback.tb_frame.f_code
    if not os.path.abspath(code.co_filename).startswith(root):
        return False
    instructions = code.co_code
    at = traceback.tb_lasti
    return (
        0 <= at < len(instructions) - 1 and instructions[at] == _RAISE and instructions[at + 1] > 0
    )


_ARMED = False  # whether the alarm may still stop the running test
_DEADLINE: Deadline | None = None  # the running test's, on the test clock


def _raise_timeout(signum: int, frame: object) -> None:
    """The test's time is up, unless it has just ended (an alarm that fires while the timer is
    being disarmed, after the test, would otherwise escape ``run`` and end the worker), or the
    worker waited for a CPU meanwhile: then the timer is set again for the time left on the
    test clock (up to its wall-clock cap), so that a busy machine stops the same tests a quiet
    one does. One ``pread`` and a few sums (``common.waits``): nothing slow for a handler."""
    if not _ARMED:
        return
    deadline = _DEADLINE
    if deadline is not None:
        left = deadline.left()
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6))
            return
    raise TestTimeout()


def _message(error: BaseException) -> str:
    try:
        text = str(error)
    except Exception:  # noqa: BLE001
        return ""
    return text if len(text) <= 200 else text[:200] + "..."
