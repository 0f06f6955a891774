"""Strong mutation: which mutants of the unit a test tells apart from the original (EvoSuite's SM).

A test *kills* a mutant when running it against the mutated module shows something an assertion
on the original run would catch: a different return value, exception or public state (floats
within ``pytest.approx``'s tolerance count as equal). The mutants are loaded once; a test runs
against a mutant only when it reaches the mutant's function, the cheap stand-in for EvoSuite's
"the mutated line is reached" (weak mutation's first condition).
"""

from __future__ import annotations

import ast
import bisect
import cmath
import functools
import math
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field

from miogen.analysis.model import Unit
from miogen.assertions.mutants import Mutant, MutantFactory, sample_mutants, spread_order
from miogen.assertions.observation import Observation
from miogen.assertions.observe import observations_of
from miogen.testcase.model import TestCase
from miogen.worker.executor import Execution, Executor

MAX_MUTANTS = 120
Hook = Callable[..., None]
APPROX_RELATIVE = 1e-6  # pytest.approx's default tolerance


@dataclass(frozen=True, slots=True)
class MutantTarget:
    """A search target: kill mutant ``index`` (kept apart from the branch targets' int ids)."""

    index: int


@dataclass
class LoadCost:
    """Seconds per line compiled and run by mutant loads in this process: the guess for a set
    that has loaded none yet (a worker's units come from one module, so their code is alike)."""

    seconds: float = 0.0
    lines: int = 0

    def add(self, seconds: float, lines: int) -> None:
        self.seconds += seconds
        self.lines += lines

    def per_line(self) -> float:
        return self.seconds / self.lines if self.lines else 0.0


LOAD_COST = LoadCost()


@dataclass
class LoadedMutant:
    mutant: Mutant
    executor: Executor
    scope: tuple[int, int]  # lines of the innermost function holding the mutant
    target: MutantTarget = field(init=False)

    def __post_init__(self) -> None:
        self.target = MutantTarget(self.mutant.index)


class MutantSet:
    """The unit's mutants, each loaded once as a fresh module with its own executor.

    Loading compiles and runs the unit's code once per mutant (the whole module where it keeps
    state), so it is done on demand and may be bounded: ``load(deadline)`` loads mutants, spread
    over the unit, until the next one is expected to end past the deadline, and a later call
    goes on. The first use of ``loaded`` loads them all unless ``load`` was called before: a
    search that never reaches its mutation phase does not wait for them.
    """

    def __init__(
        self,
        source: str,
        path: str,
        unit: Unit,
        module_name: str,
        timeout: float,
        enabled: bool = True,
        limit: int = MAX_MUTANTS,
        fresh_containers: bool = False,
        base: types.ModuleType | None = None,
    ) -> None:
        """``base``: the loaded original, whose namespace mutants copy (see MutantFactory)."""
        self.module_name = module_name
        self.failed_to_load = 0
        self.executions = 0
        self.timeout, self.fresh_containers = timeout, fresh_containers
        self._loaded: list[LoadedMutant] = []
        self._attempted = False
        self._hooks: tuple[Hook | None, ...] = (None, None, None)
        self.factory = MutantFactory(source, path, unit, module_name, base) if enabled else None
        chosen = sample_mutants(self.factory.mutants, limit) if self.factory else iter(())
        self.chosen = list(chosen)
        self._pending = [self.chosen[i] for i in spread_order(len(self.chosen))]
        self.load_seconds = 0.0  # spent loading, failed loads included
        self._loads = 0

    @property
    def loaded(self) -> list[LoadedMutant]:
        """The mutants loaded so far, in source order (all of them at the first use, unless
        ``load`` was called)."""
        if not self._attempted:
            self.load()
        return self._loaded

    @property
    def available(self) -> list[LoadedMutant]:
        """The mutants loaded so far (loads nothing)."""
        return self._loaded

    def load(
        self, deadline: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> int:
        """Load more mutants until none is left or the next would be expected to end after
        ``deadline`` (by ``clock``); returns how many are loaded.

        The expected cost of one load is the mean of this set's loads, or before the first, this
        process's cost per line compiled (``LOAD_COST``); with neither, one load is tried: it is
        the measurement.
        """
        self._attempted = True
        factory = self.factory
        if factory is None or not self._pending:
            return len(self._loaded)
        scopes = _function_scopes(factory.tree)  # the tree is shared: so are its scopes
        while self._pending:
            if deadline is not None and clock() + self.expected_load_seconds() > deadline:
                break
            mutant = self._pending.pop(0)
            started = clock()
            try:
                module = factory.load(mutant.index)
            except BaseException:  # noqa: BLE001 - a mutant that breaks the import is not useful
                self.failed_to_load += 1
                continue
            finally:
                self._count_load(clock() - started, factory.lines)
            executor = Executor(module, None, self.timeout, self.fresh_containers)
            executor.before_test, executor.before_statement, executor.after_test = self._hooks
            loaded = LoadedMutant(mutant, executor, _scope(scopes, mutant.line))
            bisect.insort(self._loaded, loaded, key=lambda each: each.mutant.index)
        return len(self._loaded)

    def expected_load_seconds(self) -> float:
        """What loading one more mutant is expected to take (0 when nothing was measured yet)."""
        if self._loads:
            return self.load_seconds / self._loads
        lines = self.factory.lines if self.factory is not None else 0
        return LOAD_COST.per_line() * lines

    def _count_load(self, seconds: float, lines: int) -> None:
        self.load_seconds += seconds
        self._loads += 1
        LOAD_COST.add(seconds, lines)

    @property
    def ready(self) -> bool:
        """All loaded (or none to load): using them now compiles nothing."""
        return self.factory is None or not self._pending

    def __len__(self) -> int:
        """The mutants chosen (those loaded, once all are)."""
        return len(self._loaded) if self._attempted and self.ready else len(self.chosen)

    def hook(
        self,
        before_test: Callable[[TestCase], None] | None = None,
        before_statement: Callable[[int], None] | None = None,
        after_test: Callable[[], None] | None = None,
    ) -> None:
        """Give every mutant's executor the worker's heartbeat, as the original's has."""
        self._hooks = (before_test, before_statement, after_test)
        for loaded in self._loaded:
            executor = loaded.executor
            executor.before_test = before_test
            executor.before_statement = before_statement
            executor.after_test = after_test

    def reached(self, execution: Execution) -> list[LoadedMutant]:
        """The mutants whose function ran in ``execution`` (probe hits and distances name lines)."""
        lines = sorted({line for line, _ in execution.hits} | set(execution.distances))
        if not lines:
            return []
        found = []
        for loaded in self.loaded:
            start, end = loaded.scope
            at = bisect.bisect_left(lines, start)
            if at < len(lines) and lines[at] <= end:
                found.append(loaded)
        return found

    def kills(
        self,
        execution: Execution,
        among: list[LoadedMutant] | None = None,
        skip: Callable[[MutantTarget], bool] | None = None,
    ) -> set[MutantTarget]:
        """The mutants ``execution``'s test kills, among those it reaches and ``skip`` leaves."""
        if execution.refused or execution.timed_out:
            return set()
        expected = observations_of(execution, self.module_name)
        killed = set()
        for loaded in self.reached(execution) if among is None else among:
            if skip is not None and skip(loaded.target):
                continue
            if self.kills_one(loaded, execution.test, expected):
                killed.add(loaded.target)
        return killed

    def kills_one(self, loaded: LoadedMutant, test: TestCase, expected: list[Observation]) -> bool:
        self.executions += 1
        mutated = loaded.executor.run(test, trace=False)
        if mutated.refused and not mutated.timed_out:
            return False  # the sandbox stopped the mutant: nothing a test file would see
        if mutated.capped:
            # Stopped by the wall-clock cap before its time on the test clock was up (the
            # machine would not let it run): not known to time out, so not a kill.
            return False
        return differs(expected, observations_of(mutated, self.module_name))


def differs(expected: list[Observation], actual: list[Observation]) -> bool:
    """True if a test asserting ``expected`` fails on a run that shows ``actual``."""
    if any(fails(observation, actual) for observation in expected):
        return True
    # A raise the original did not have fails the test even with no assertion on that call.
    expected_raises = {o for o in expected if o.kind == "raises"}
    return any(o.kind == "raises" and o not in expected_raises for o in actual)


def fails(observation: Observation, actual: list[Observation]) -> bool:
    """True if the assertion written from ``observation`` fails on a run that shows ``actual``."""
    if observation in actual:
        return False
    if observation.kind == "approx":
        for other in actual:
            if (other.index, other.kind, other.detail) == (
                observation.index,
                "approx",
                observation.detail,
            ) and _close_texts(observation.value, other.value):
                return False
    return True


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=APPROX_RELATIVE, abs_tol=1e-12)


def _close_texts(expected: str, actual: str) -> bool:
    """Whether ``pytest.approx`` of one literal accepts the other: a float, or a flat list,
    tuple or dict of numbers compared element by element."""
    try:
        left, right = ast.literal_eval(expected), ast.literal_eval(actual)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return False
    if isinstance(left, dict) and isinstance(right, dict):
        if left.keys() != right.keys():
            return False
        left, right = list(left.values()), [right[key] for key in left]
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return (
            type(left) is type(right)
            and len(left) == len(right)
            and all(_close(float(a), float(b)) for a, b in zip(left, right, strict=True))
        )
    if isinstance(left, int | float) and isinstance(right, int | float):
        return _close(float(left), float(right))
    if isinstance(left, complex) and isinstance(right, int | float | complex):
        return cmath.isclose(left, right, rel_tol=APPROX_RELATIVE, abs_tol=1e-12)
    return False


@functools.lru_cache(maxsize=4)
def _function_scopes(tree: ast.Module) -> list[tuple[int, int]]:
    scopes = [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    return sorted(scopes)


def _scope(scopes: list[tuple[int, int]], line: int) -> tuple[int, int]:
    """The innermost function around ``line`` (the line itself outside any function)."""
    holding = [(start, end) for start, end in scopes if start <= line <= end]
    if not holding:
        return (line, line)
    return max(holding, key=lambda scope: scope[0])
