"""The search problem for one unit: tests are sampled, mutated and executed; h comes from the trace.

The problem evaluates under a frozen ``EvaluationMode``: the branch targets alone, or the unit's
mutants too (the mutation phase and the reduction after it). A phase that needs another mode
asks for a view (``under``) that shares the executor, the blocked tests and the refusal counts.

Targets the project's own suite covers (``settled``, ``UnitJob.suite_covered``) are covered
before the search starts: the problem neither lists nor scores them, so no algorithm spends
effort on them (MIO keeps no population for them, DynaMOSA never ranks by them and counts them
as covered in its control-dependence graph) and the reduction keeps no test for them alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass

from miogen.analysis.model import Target, Unit
from miogen.analysis.targets import CodeMap
from miogen.assertions.kills import MutantSet, MutantTarget
from miogen.criteria import UnitCriteria, proxies
from miogen.testcase.crossover import crossover
from miogen.testcase.model import SliceKeys, TestCase, blocked_by, size
from miogen.testcase.mutation import mutate
from miogen.testcase.sampling import TestFactory
from miogen.worker.executor import Execution, Executor
from miogen.worker.search import Evaluated

MAX_REFUSAL_KINDS = 20  # distinct reasons kept for the summary; the rest are counted together
REACHED = 0.01  # h of a branch whose line ran but whose distance is unknown (loop exits, match)


@dataclass(frozen=True)
class EvaluationMode:
    """Which targets an evaluation scores besides the branches.

    ``mutants``: the unit's mutants are targets too (killed = covered); ``skip`` says which of
    them need no more checking (the archive's covered ones during the search); ``whole_kills``:
    a test that kills a mutant ``skip`` lets through is run against all of them.
    """

    mutants: MutantSet | None = None
    skip: Callable[[MutantTarget], bool] | None = None
    whole_kills: bool = False


BRANCHES_ONLY = EvaluationMode()


def branch_h(distance: float) -> float:
    """h = 1/(1+d), halved so that a reached-but-missed branch stays below covered (1)."""
    return 0.5 / (1.0 + distance)


class UnitProblem:
    """Implements the search's Problem protocol for one unit (see worker/search/problem.py)."""

    def __init__(
        self,
        factory: TestFactory,
        executor: Executor,
        unit: Unit,
        code: CodeMap,
        blocked: frozenset[tuple[object, ...]] = frozenset(),
        mode: EvaluationMode = BRANCHES_ONLY,
        criteria: UnitCriteria | None = None,
        performance: bool = False,
        settled: frozenset[int] = frozenset(),
    ) -> None:
        """``criteria``: the other criteria's goals, scored from the same executions;
        ``performance``: tests carry aDynaMOSA's proxies (its archive and fronts, MIO's
        ``--performance``); ``settled``: target ids the project's suite covers (see the module
        docstring)."""
        self.factory = factory
        self.executor = executor
        self.unit = unit
        self.code = code
        self.blocked = blocked  # canonical keys of tests (or their slices) that killed a worker
        self.slices = SliceKeys()  # the evaluated tests' calls' slices, for ``blocked``
        self.mode = mode
        self.by_id: dict[int, Target] = {t.id: t for t in unit.targets}
        self.settled = frozenset(i for i in settled if i in self.by_id)
        # the branch and line targets the search aims at: those the suite leaves
        self.open_ids: tuple[int, ...] = tuple(i for i in self.by_id if i not in self.settled)
        self.refusals: dict[str, int] = {}  # shared by every view of the problem
        self._first_line: dict[int, int] = {}
        self.criteria = criteria
        self.performance = performance
        self._mutant_targets = tuple(m.target for m in mode.mutants.loaded) if mode.mutants else ()
        self._targets: tuple[Hashable, ...] = (*self.open_ids, *self._mutant_targets)
        self._goals = 0  # the criteria's goal count when ``_targets`` was built

    def under(self, mode: EvaluationMode) -> UnitProblem:
        """The same problem evaluated in ``mode`` (executor, blocked tests and their slices,
        refusals shared)."""
        view = UnitProblem(
            self.factory, self.executor, self.unit, self.code, self.blocked, mode,
            self.criteria, self.performance, self.settled,
        )  # fmt: skip
        view.refusals, view._first_line = self.refusals, self._first_line
        view.slices = self.slices
        return view

    def targets(self) -> Collection[Hashable]:
        """Branch targets (but the settled ones), the criteria's goals, and each mutant's in a
        mode with mutants.

        Asked before every step; rebuilt only when a criterion found new goals (exceptions).
        """
        goals = self.criteria.goal_count() if self.criteria is not None else 0
        if goals != self._goals:
            self._goals = goals
            criteria = self.criteria.goals() if self.criteria is not None else []
            self._targets = (*self.open_ids, *criteria, *self._mutant_targets)
        return self._targets

    def control_dependencies(self) -> dict[Hashable, tuple[Hashable, ...]]:
        """DynaMOSA's control-dependence graph over the branch targets and the criteria's goals.

        A settled target is covered for good: what it controls is reachable from the start (as
        though the search had covered it), and it is no node of its own.
        """
        graph = self.criteria.control_dependencies() if self.criteria is not None else {}
        settled = self.settled
        if not settled:
            return graph
        return {
            target: () if any(p in settled for p in parents) else parents
            for target, parents in graph.items()
            if target not in settled
        }

    def crossover(
        self, first: TestCase, second: TestCase, rng: random.Random
    ) -> tuple[TestCase, TestCase]:
        return crossover(first, second, rng, self.factory.config.max_statements)

    def sample(self, rng: random.Random) -> TestCase:
        return self.factory.sample(rng)

    def mutate(self, individual: TestCase, rng: random.Random) -> TestCase:
        return mutate(self.factory, individual, rng)

    def evaluate(self, individual: TestCase) -> Evaluated[TestCase]:
        if self.blocked and blocked_by(individual, self.blocked, self.slices):
            return Evaluated(individual, {}, size(individual))
        execution = self.executor.run(individual)
        if execution.refused:
            # A dead end: it covers nothing, so it never enters the archive and is never emitted.
            reason = execution.refused
            if reason not in self.refusals and len(self.refusals) >= MAX_REFUSAL_KINDS:
                reason = "other refusals"  # e.g. writes to ever new file names
            self.refusals[reason] = self.refusals.get(reason, 0) + 1
            return Evaluated(execution.test, {}, size(execution.test))
        test = execution.test
        measured = (
            proxies(test, execution.counts, self.criteria.counters)
            if self.performance and self.criteria is not None
            else ()
        )
        return Evaluated(test, self.heuristics(execution), size(test), measured)

    def heuristics(self, execution: Execution) -> dict[Hashable, float]:
        """h per target: the branches', the other criteria's goals', the mutants' (in their mode).

        Settled targets are left out, after the criteria read every branch's h from them.
        """
        h = self.branch_heuristics(execution)
        if self.criteria is not None:
            h.update(self.criteria.heuristics(execution, h).items())
        for target in self.settled:
            h.pop(target, None)
        if self.mode.mutants is not None:
            h.update(self.mutant_heuristics(execution, self.mode.mutants))
        return h

    def branch_heuristics(self, execution: Execution) -> dict[Hashable, float]:
        """h per target: 1 when covered, else the branch distance, else a little for reaching it.

        Coverage comes from the probes' hits (if/while/for outcomes and function entries), which
        name exactly coverage.py's arcs; units with other branching statements (match) run under
        the arc tracer instead.
        """
        hits = execution.hits
        if self.executor.tracer is not None:
            arcs = self.translate(execution.arcs)
            lines = {a for a, _ in arcs} | {b for _, b in arcs}
            covered = {
                t.id for t in self.unit.targets if (t.arc in arcs if t.arc else t.line in lines)
            }
        else:
            lines = {line for line, _ in hits} | {line for line in execution.distances}
            covered = {t.id for t in self.unit.targets if (t.line, t.outcome) in hits}
        h: dict[Hashable, float] = {}
        for target in self.unit.targets:
            if target.id in covered:
                h[target.id] = 1.0
            elif target.kind == "line":
                continue
            elif target.line in execution.distances:
                to_true, to_false = execution.distances[target.line]
                h[target.id] = branch_h(to_true if target.positive else to_false)
            elif target.line in lines:
                h[target.id] = REACHED
        return h

    def mutant_heuristics(self, execution: Execution, mutants: MutantSet) -> dict[Hashable, float]:
        """h per reached mutant: 1 when the test kills it, else closeness to its line's boundary.

        Killing takes running the mutant; only reached mutants that ``skip`` leaves are run.
        Most mutants (relational, constant, condition, and/or) change the outcome of a
        condition only near its boundary, so a test whose condition on the mutant's line came
        closer to flipping scores higher: the line's distance stands in for EvoSuite's
        infection distance.
        """
        skip = self.mode.skip
        h: dict[Hashable, float] = {}
        reached = mutants.reached(execution)
        if not reached:
            return h
        killed = mutants.kills(execution, reached, skip)
        if killed and skip is not None and self.mode.whole_kills:
            # A test that kills something new is worth knowing whole: with all its kills counted
            # it can take over other mutants' places in the archive (same size, more total h).
            killed |= mutants.kills(execution, reached, lambda target: not skip(target))
        for loaded in reached:
            target = loaded.target
            if target in killed:
                h[target] = 1.0
                continue
            distances = execution.distances.get(loaded.mutant.line)
            h[target] = branch_h(max(distances)) if distances else REACHED
        return h

    def translate(self, arcs: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """Map raw lines to the first line of their statement, as coverage.py reports arcs."""
        first = self._first_line
        translated = set()
        for a, b in arcs:
            fa = first.get(a)
            if fa is None:
                fa = first[a] = self.code.first_line(a)
            fb = first.get(b)
            if fb is None:
                fb = first[b] = self.code.first_line(b)
            if fa != fb or a == b:
                translated.add((fa, fb))
        return translated
