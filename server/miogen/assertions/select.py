"""Keeps the assertions that matter: the few that kill the mutants the test can kill (EvoSuite)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from miogen.analysis.model import Signature
from miogen.assertions.kills import MutantSet, fails
from miogen.assertions.observation import Observation, ObservationKind
from miogen.assertions.observe import observations_of
from miogen.testcase.model import Statement, TestCase
from miogen.worker.executor import Execution


@dataclass
class MutationReport:
    mutants: int = 0  # mutants tried
    killed: set[int] = field(
        default_factory=set
    )  # by the kept assertions or by a different exception
    failed_to_load: int = 0

    @property
    def score(self) -> float:
        return len(self.killed) / self.mutants if self.mutants else 0.0


class MutationAnalysis:
    """Runs each test against each mutant of the unit once; selects assertions by what they kill."""

    def __init__(self, mutants: MutantSet) -> None:
        self.executors = [(loaded.mutant, loaded.executor) for loaded in mutants.loaded]
        self.report = MutationReport(len(self.executors), set(), mutants.failed_to_load)
        self.module_name = mutants.module_name
        self.last_killed: set[int] = set()  # the mutants the last selected assertions kill

    def select(
        self,
        test: TestCase,
        observed: list[Observation],
        deadline: float,
        signature_of: Callable[[Statement], Signature | None] | None = None,
    ) -> list[Observation]:
        """A small subset of ``observed`` that kills every mutant that any observation kills;
        none of them an ``is None`` check of a call declared ``-> None`` (``signature_of``:
        the calls' signatures; see ``without_command_results``)."""
        self.last_killed = set()
        checkable = without_command_results(test, observed, signature_of)
        return _with_reads(test, observed, self._select(test, checkable, deadline))

    def _select(
        self, test: TestCase, observed: list[Observation], deadline: float
    ) -> list[Observation]:
        if not self.executors:
            return _fallback(observed)
        kills: dict[Observation, set[int]] = {o: set() for o in observed}
        for mutant, executor in self.executors:
            if time.monotonic() >= deadline:
                self.report.killed |= self.last_killed
                return _fallback(observed)
            execution = executor.run(test, trace=False)
            if execution.capped:  # stopped by the wall-clock cap: what it shows is not known
                continue
            mutated = observations_of(execution, self.module_name)
            if _fails_without_assertions(execution, test, observed):
                self.last_killed.add(mutant.index)
            for observation in observed:
                if fails(observation, mutated):
                    kills[observation].add(mutant.index)
        chosen = _greedy_cover(kills)
        for observation in chosen:
            self.last_killed |= kills[observation]
        self.report.killed |= self.last_killed
        structural = [o for o in observed if o.kind == "raises"]
        kept = structural + [o for o in chosen if o.kind != "raises"]
        return kept if kept else _fallback(observed)


def without_command_results(
    test: TestCase,
    observations: list[Observation],
    signature_of: Callable[[Statement], Signature | None] | None,
) -> list[Observation]:
    """``observations`` but ``is None`` checks of calls declared ``-> None``: such a call is a
    command, and type checkers reject using its result (mypy's func-returns-value). Left out
    before the choice, so that another check (the state it changed, a later call's value)
    is chosen in its place, and a test is not left without any."""
    if signature_of is None:
        return observations
    kept = []
    for observation in observations:
        statement = test[observation.index]
        if observation.kind == "is_none" and statement.kind in ("call", "method"):
            signature = signature_of(statement)
            if signature is not None and signature.returns.kind == "none":
                continue
        kept.append(observation)
    return kept


def _fails_without_assertions(
    execution: Execution, test: TestCase, observed: list[Observation]
) -> bool:
    """Under the mutant the test raises where it did not (or not what pytest.raises expects)."""
    expected = next((o for o in observed if o.kind == "raises"), None)
    if execution.exception is None:
        return expected is not None
    index, type_name, _ = execution.exception
    return (
        expected is None
        or expected.index != index
        or expected.value not in (type_name, "Exception")
    )


def _greedy_cover(kills: dict[Observation, set[int]]) -> list[Observation]:
    remaining = set().union(*kills.values()) if kills else set()
    chosen = []
    while remaining:
        best = max(kills, key=lambda o: (len(kills[o] & remaining), o.kind == "equals", o.index))
        gain = kills[best] & remaining
        if not gain:
            break
        chosen.append(best)
        remaining -= gain
    return sorted(chosen, key=lambda o: (o.index, o.kind))


def _fallback(observed: list[Observation]) -> list[Observation]:
    """No mutant told them apart: keep the raise, else the last call's value, else the last state."""
    raises = [o for o in observed if o.kind == "raises"]
    if raises:
        return raises
    values = [o for o in observed if o.kind != "attribute"]
    if values:
        return [max(values, key=lambda o: (o.index, o.kind != "isinstance"))]
    return observed[-1:]


def _with_reads(
    test: TestCase, observed: list[Observation], kept: list[Observation]
) -> list[Observation]:
    """A result that nothing uses keeps a check of its value: a bare property read checks
    nothing (and linters call it a useless expression), and a call whose result is dropped
    (``inventory.total()``) reads as a query nobody checked. Calls that returned None (commands:
    ``stack.push(1)``) stay as they are; the shrinker has left out those the test did not need."""
    checked = {o.index for o in kept}
    used = {index for statement in test for index in statement.references()}
    extra = []
    for index, statement in enumerate(test):
        if statement.kind not in RESULTS or index in checked | used:
            continue
        values = [o for o in observed if o.index == index and o.kind in _PREFERRED]
        if statement.kind != "property" and any(
            o.index == index and o.kind == "is_none" for o in observed
        ):
            continue
        extra += sorted(values, key=lambda o: _PREFERRED.index(o.kind))[:1]
    return kept + extra


# Statements whose result a test may drop, and the checks of a result, best first.
RESULTS = frozenset({"property", "call", "method", "operator"})
_PREFERRED: tuple[ObservationKind, ...] = (
    "equals", "approx", "nan", "is_none", "isinstance", "length", "callable",
)  # fmt: skip
