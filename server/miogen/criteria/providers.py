"""Goal providers: each criterion's goals and their h from one execution, the branches' run.

Every provider reads the same execution record the branch targets are scored from (probe hits,
statement counters, infection probes, the values each statement returned, the exception that
stopped the test): nothing runs twice. Scores follow the engine's scale (``branch_h``): 1 is
covered, (0, 0.5] is "reached, this close", 0 is "nothing known". Goals the criterion cannot
reach yet get a fraction of the h of the branch they are control dependent on, as EvoSuite's
"augmented" line and weak-mutation fitness adds the branch fitness (smart selection, Eq. 12).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from miogen.analysis.model import Target
from miogen.analysis.targets import CodeMap
from miogen.assertions.mutants import MutationPoint
from miogen.criteria.goals import Criterion, Goal
from miogen.criteria.outputs import category_h, declared_families, observed_families
from miogen.criteria.structure import Structure
from miogen.instrument.counting import CounterMap
from miogen.testcase.model import TestCase

REACHED_CALL = 0.25  # h of "called, but it raised" (NTMC): reached, not covered
LINE_SHARE = 0.5  # an unexecuted line: this share of its controlling branch's h
MUTANT_UNREACHED_SHARE = 0.1  # an unreached mutant: this share of its controlling branch's h
MUTANT_REACHED = 0.12  # a reached mutant scores above this, whatever its infection distance
EQUAL_TO_LINE = ("CRP", "COND")  # mutants that always infect once reached (no probe needed)


class Trace(Protocol):
    """What the providers read of one execution (``worker.executor.Execution`` has it)."""

    test: TestCase
    values: list[object]
    exception: tuple[int, str, str] | None
    timed_out: bool
    refused: str
    counts: list[int]
    infections: dict[int, float]
    raised_inside: bool
    hits: set[tuple[int, bool | None]]

    def first_hits(self) -> dict[tuple[int, bool | None], int]:
        """The statement during which each probe hit was first taken."""
        ...


@dataclass
class Run:
    """One execution seen by every provider, with what several of them need computed once."""

    trace: Trace
    branch_h: Mapping[Hashable, float]
    structure: Structure
    counters: CounterMap | None
    calls: list[tuple[int, str]] = field(init=False)  # (statement index, callable) of the test
    call_at: dict[int, str] = field(init=False)  # the same, by statement index
    _lines: set[int] | None = field(default=None, init=False)
    _entered: set[int] | None = field(default=None, init=False)
    _control: dict[int, float] = field(default_factory=dict, init=False)
    _first_hits: dict[tuple[int, bool | None], int] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        callable_of = self.structure.callable_of
        found = [(index, callable_of(statement)) for index, statement in enumerate(self.trace.test)]
        self.calls = [(index, key) for index, key in found if key is not None]
        self.call_at = dict(self.calls)  # once per run, for every goal that asks

    def first_hit(self, hit: tuple[int, bool | None]) -> int | None:
        """The index of the statement that first took ``hit`` (a probe's line and outcome), or
        None when no probe saw it (units under the arc tracer)."""
        if self._first_hits is None:
            self._first_hits = self.trace.first_hits()
        return self._first_hits.get(hit)

    @property
    def executed_lines(self) -> set[int]:
        if self._lines is None:
            counters = self.counters
            self._lines = set() if counters is None else counters.executed_lines(self.trace.counts)
        return self._lines

    @property
    def raised_at(self) -> int:
        """Index of the statement that raised, or -1 (a timeout is not the code's exception)."""
        exception = self.trace.exception
        return exception[0] if exception is not None and not self.trace.timed_out else -1

    def control_h(self, line: int) -> float:
        """The best h of the branch targets a statement on ``line`` runs under.

        A statement under no branch runs whenever its function does: 1 if the function was
        entered in this run, else 0.
        """
        known = self._control.get(line)
        if known is not None:
            return known
        controlling = self.structure.control.get(line, ())
        if controlling:
            value = max(self.branch_h.get(target, 0.0) for target in controlling)
        else:
            value = 1.0 if self.structure.owner.get(line) in self._entered_functions() else 0.0
        self._control[line] = value
        return value

    def _entered_functions(self) -> set[int]:
        if self._entered is None:
            owner = self.structure.owner
            self._entered = {owner[line] for line in self.executed_lines if line in owner}
        return self._entered


class GoalProvider(Protocol):
    """One criterion: its goals, their h from a run, and what each goal is control dependent on."""

    criterion: Criterion

    def goals(self) -> Sequence[Goal]:
        """The goals known now, in a fixed order; dynamic criteria (EC, OC) add goals as they run."""
        ...

    def goal_count(self) -> int:
        """``len(goals())``, cheaply: the search asks before every step."""
        ...

    def fitness(self, run: Run) -> dict[Goal, float]:
        """h for the goals this run scores on (missing means 0)."""
        ...

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        """The branch targets whose coverage makes ``goal`` reachable; () if free."""
        ...


class DirectBranches:
    """DBC: a branch of a public callable, covered by a test that calls that callable itself.

    Covered directly: the statement of the test during which the branch was first taken calls
    the branch's callable (``Run.first_hit``). A test that covers it through another method
    and calls the callable elsewhere (``c.monthdays2calendar(0, 1)``, whose loop runs
    ``itermonthdays2``'s, then ``c.itermonthdays2(0, 0)``, a generator never run) does not:
    reading it per test, not per call, kept both calls in one test for the goal, a test of two
    behaviours. A branch taken first through another call and again in the direct one is not
    counted either (a test calling the callable alone covers it). Below 1 (or under the arc
    tracer, which has no order), the test need only call the callable in one of its
    statements, as close as BC says. A branch reached only through another method, with no
    direct call of its own callable in the test, scores 0 (EvoSuite's DBC fitness is then the
    worst, 1). Only branches inside public callables are DBC goals; others have no direct call
    to ask for.
    """

    criterion = Criterion.DIRECT_BRANCH

    def __init__(self, structure: Structure, targets: Sequence[Target]) -> None:
        self.structure = structure
        self._goals: dict[Goal, int] = {}
        self._hits: dict[Goal, tuple[int, bool | None]] = {}
        for target in targets:
            key = structure.callable_at(target.line)
            if target.kind == "branch" and key is not None:
                goal = Goal(self.criterion, key, target.line, str(target.id))
                self._goals[goal] = target.id
                self._hits[goal] = (target.line, target.outcome)

    def goals(self) -> Sequence[Goal]:
        return list(self._goals)

    def goal_count(self) -> int:
        return len(self._goals)

    def target_of(self, goal: Goal) -> int:
        return self._goals[goal]

    def fitness(self, run: Run) -> dict[Goal, float]:
        called = set(run.call_at.values())
        h: dict[Goal, float] = {}
        for goal, target in self._goals.items():
            if goal.callable in called:
                value = run.branch_h.get(target, 0.0)
                if value >= 1.0:
                    first = run.first_hit(self._hits[goal])
                    if first is not None and not self._direct(goal.callable, first, run):
                        continue  # covered through another call
                if value > 0.0:
                    h[goal] = value
        return h

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        return self.structure.control.get(goal.line, ())

    def _direct(self, key: str, first: int, run: Run) -> bool:
        """Whether the test's statement ``first``, during which a branch of ``key`` was first
        taken, is the test's own call of ``key``. A generator or coroutine runs none of its
        body in the statement that calls it: its branch is direct when taken at or after the
        test's first call of it (``result = c.days(3)`` then ``list(result)``), and not when
        another call took it before (``c.weeks(3)`` then ``c.days(0)``)."""
        if key in self.structure.deferred:
            return any(index <= first for index, called in run.calls if called == key)
        return run.call_at.get(first) == key


class Lines:
    """LC: a statement line of the unit's functions, covered when it starts (its counter ran)."""

    criterion = Criterion.LINE

    def __init__(self, structure: Structure, lines: Sequence[int]) -> None:
        self.structure = structure
        at = structure.callable_at
        self._goals = [Goal(self.criterion, at(line) or "", line) for line in sorted(lines)]

    def goals(self) -> Sequence[Goal]:
        return self._goals

    def goal_count(self) -> int:
        return len(self._goals)

    def fitness(self, run: Run) -> dict[Goal, float]:
        executed = run.executed_lines
        h: dict[Goal, float] = {}
        for goal in self._goals:
            if goal.line in executed:
                h[goal] = 1.0
            else:
                value = LINE_SHARE * run.control_h(goal.line)
                if value > 0.0:
                    h[goal] = value
        return h

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        return self.structure.control.get(goal.line, ())


class WeakMutants:
    """WM: a mutant whose mutated expression would have computed another value (EvoSuite's WM).

    Probed mutants (ROR, AOR, BOR, LCR) take their infection distance d from the probes:
    0 is covered, else ``0.12 + 0.38/(1+d)`` once reached. Constant and condition mutants (CRP,
    COND) change the value whenever they run ("equal-to-line"): covered when their line runs.
    Unreached mutants get a tenth of their controlling branch's h, below any reached one.
    """

    criterion = Criterion.WEAK_MUTATION

    def __init__(
        self,
        structure: Structure,
        points: Sequence[MutationPoint],
        code: CodeMap,
        probe_base: int = 0,
    ) -> None:
        """``probe_base``: the tally's number of the unit's first mutant (criteria.unit)."""
        self.structure = structure
        self._goals: dict[Goal, MutationPoint] = {}
        for point in points:
            mutant = point.mutant
            line = code.first_line(mutant.line)
            goal = Goal(self.criterion, structure.callable_at(line) or "", line, str(mutant.index))
            self._goals[goal] = point
        # (goal, mutant index, covered once its line runs) for the hot loop
        self._entries = [
            (goal, probe_base + point.mutant.index, point.mutant.operator in EQUAL_TO_LINE)
            for goal, point in self._goals.items()
        ]

    def goals(self) -> Sequence[Goal]:
        return list(self._goals)

    def goal_count(self) -> int:
        return len(self._goals)

    def fitness(self, run: Run) -> dict[Goal, float]:
        infections, executed = run.trace.infections, run.executed_lines
        h: dict[Goal, float] = {}
        for goal, index, equal_to_line in self._entries:
            if equal_to_line:
                value = 1.0 if goal.line in executed else -1.0
            else:
                distance = infections.get(index)
                value = -1.0 if distance is None else (1.0 if distance == 0 else _reached(distance))
            if value < 0.0:  # not reached
                value = MUTANT_UNREACHED_SHARE * run.control_h(goal.line)
            if value > 0.0:
                h[goal] = value
        return h

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        return self.structure.control.get(goal.line, ())


def _reached(distance: float) -> float:
    """h of a reached mutant at infection distance d: (0.12, 0.5], 0.12 when never judged."""
    return MUTANT_REACHED + (0.5 - MUTANT_REACHED) / (1.0 + distance)


class Methods:
    """TMC (``returning=False``) or NTMC: every public callable, called by the test itself.

    NTMC also asks that the call return without an exception; a call that raised scores
    ``REACHED_CALL``.
    """

    def __init__(self, structure: Structure, returning: bool) -> None:
        self.structure = structure
        self.returning = returning
        self.criterion = Criterion.METHOD_NO_EXCEPTION if returning else Criterion.METHOD
        self._by_callable = {key: Goal(self.criterion, key) for key in structure.callables}
        self._goals = list(self._by_callable.values())

    def goals(self) -> Sequence[Goal]:
        return self._goals

    def goal_count(self) -> int:
        return len(self._goals)

    def fitness(self, run: Run) -> dict[Goal, float]:
        raised = run.raised_at
        h: dict[Goal, float] = {}
        for index, key in run.calls:
            goal = self._by_callable[key]
            value = 1.0 if not self.returning or index != raised else REACHED_CALL
            h[goal] = max(h.get(goal, 0.0), value)
        return h

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        return ()


class Exceptions:
    """EC: one goal per distinct exception type per public callable, found as tests raise them.

    The callable is the one the raising statement of the test called, and the exception must
    have passed through the module's code: a call with arguments the callable does not take
    (the shrinker tries such calls) raises a TypeError before any of it runs. Timeouts and
    runs the sandbox refused are not the code's exceptions either. The total is unknown before the search, so the
    goals are dynamic: each is covered the moment it is found.
    """

    criterion = Criterion.EXCEPTION

    def __init__(self, structure: Structure) -> None:
        self.structure = structure
        self._found: dict[Goal, Goal] = {}

    def goals(self) -> Sequence[Goal]:
        return list(self._found)

    def goal_count(self) -> int:
        return len(self._found)

    def fitness(self, run: Run) -> dict[Goal, float]:
        trace = run.trace
        if trace.exception is None or trace.timed_out or trace.refused or not trace.raised_inside:
            return {}
        index, name, _ = trace.exception
        key = run.call_at.get(index)
        if key is None:
            return {}
        goal = Goal(self.criterion, key, 0, name)
        goal = self._found.setdefault(goal, goal)  # the same object each time: cheap lookups
        return {goal: 1.0}

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        return ()


class Outputs:
    """OC: categories of the values public callables return to the test (see outputs.py).

    A callable with a return annotation gets its categories up front; one without gets them
    as it returns values (the family of the first int it returns, of the first None ...).
    """

    criterion = Criterion.OUTPUT

    def __init__(self, structure: Structure) -> None:
        self.structure = structure
        self._goals: dict[Goal, None] = {}
        self._by_callable: dict[str, list[Goal]] = {key: [] for key in structure.callables}
        self._dynamic: set[str] = set()
        for key, unit_callable in structure.callables.items():
            families = declared_families(unit_callable.returns)
            if families is None:
                self._dynamic.add(key)
                continue
            for category in families:
                self._add(Goal(self.criterion, key, 0, category))

    def _add(self, goal: Goal) -> None:
        if goal not in self._goals:
            self._goals[goal] = None
            self._by_callable[goal.callable].append(goal)

    def goals(self) -> Sequence[Goal]:
        return list(self._goals)

    def goal_count(self) -> int:
        return len(self._goals)

    def fitness(self, run: Run) -> dict[Goal, float]:
        values, raised = run.trace.values, run.raised_at
        h: dict[Goal, float] = {}
        for index, key in run.calls:
            if index == raised or index >= len(values):
                continue
            value = values[index]
            if key in self._dynamic:
                for category in observed_families(value):
                    self._add(Goal(self.criterion, key, 0, category))
            for goal in self._by_callable[key]:
                score = category_h(goal.detail, value)
                if score > h.get(goal, 0.0):
                    h[goal] = score
        return h

    def parents(self, goal: Goal) -> tuple[Hashable, ...]:
        return ()
