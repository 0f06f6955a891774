"""What a worker is asked to do and what it answers: typed records that travel as JSON lines.

A job is one module's run: its units share one worker, one import and one budget. The worker
answers with events: ``UnitStarted`` and ``Progress`` while it works, one ``UnitResult`` per unit
as soon as that unit is done (so a later crash cannot take it away), or a ``WorkerError``. The
supervisor turns them into a ``JobOutcome``. Every record converts to and from plain JSON
(``to_json`` / ``from_json``, cattrs), so jobs travel to worker processes and to dask workers
alike; a field of the wrong type or one a record does not have is refused, by name.

    >>> spec = JobSpec("shapes.py", "shapes", ".", (UnitJob("Square"),), budget_seconds=2)
    >>> JobSpec.loads(spec.dumps()) == spec
    True
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union

import cattrs

import miogen

STARTUP_SECONDS = 10.0  # interpreter start, analysis and import, on a loaded machine
SLACK_SECONDS = 5.0  # beyond the budget and post-processing, before a worker is given up
EVALUATION_RUN_SECONDS = 60.0  # wall allowance per unit when the budget counts evaluations
# Post-processing per unit under an evaluation budget: a bound that load does not reach, so that
# the same seed gives the same tests (shrinking and assertion selection stop at their fixpoint).
EVALUATION_POST_SECONDS = 30.0
# Shrinking's own time per unit under a time budget, beyond the unit's share, at most: values
# are minimised however short the budget (issue 24: plain values), as EvoSuite's minimisation
# has a timeout of its own. Shrinking is bounded by evaluations (minimize.shrink's
# SHRINK_EVALUATIONS); this is a hard bound for a loaded machine, where 1 s stopped a unit of
# 60 tests (stdlib_fractions at load 12) before its second round.
SHRINK_SECONDS = 3.0
# The same under an evaluation budget, beyond the post-processing's own deadline: on a loaded
# machine the set cover before shrinking took all of that (stdlib_shlex's 276 tests at load 14:
# the 30 s, then shrinking ran no candidate and ``shlex(instream=..., infile=-743)`` kept the
# keyword the test never reads). Shrinking is bounded by its evaluations, the set cover's kills
# and the choice of assertions by their input (``worker.phases.UnitRun._judging_net``); this
# only bounds a very slow machine.
EVALUATION_SHRINK_SECONDS = 60.0

TestData = list[Any]  # a test case as testcase.model.to_json writes it
R = TypeVar("R")


class Algorithm(enum.StrEnum):
    """The search algorithm of a job (``--algorithm``)."""

    MIO = "mio"
    RANDOM = "random"
    WTS = "wts"
    MIO_NOFDS = "mio-nofds"  # MIO without feedback-directed sampling (an ablation)
    DYNAMOSA = "dynamosa"  # the many-objective GA with dynamic targets (worker/search/dynamosa.py)
    ADYNAMOSA = "adynamosa"  # DynaMOSA preferring cheap tests (Grano et al., Alg. 1 and 2)
    ADYNAMOSA_NONADAPTIVE = "adynamosa-nonadaptive"  # its ablation: no adaptive switch

    @property
    def genetic(self) -> bool:
        """DynaMOSA and both aDynaMOSA variants (a population, fronts, the CDG)."""
        return self in (Algorithm.DYNAMOSA, Algorithm.ADYNAMOSA, Algorithm.ADYNAMOSA_NONADAPTIVE)

    @property
    def performance_aware(self) -> bool:
        """aDynaMOSA's variants: tests carry the performance proxies I1-I7."""
        return self in (Algorithm.ADYNAMOSA, Algorithm.ADYNAMOSA_NONADAPTIVE)


class StopReason(enum.StrEnum):
    """Why a unit's search ended, as Hypothesis's ``ExitReason`` names why a run ended."""

    BUDGET = "budget"  # its share of the time (or its evaluations) ran out
    ALL_COVERED = "all-covered"  # every target, and every mutant of the mutation phase, covered
    # The mutation phase killed nothing new for as long as it had run; or, with goals besides
    # branches, every branch was covered and no new goal came for as long as the search had run.
    STAGNATION = "stagnation"
    CANCELLED = "cancelled"  # the caller cancelled the job
    NO_SEARCH = "no-search"  # nothing to search: no targets, or replaying seeds only


class ErrorKind(enum.StrEnum):
    """What stopped a whole job before any unit ran (the user's input, or miogen itself)."""

    SYNTAX = "syntax"
    IMPORT = "import"
    UNKNOWN_UNIT = "unknown-unit"
    INTERNAL = "internal"


JobStatus = Literal["ok", "failed", "cancelled"]


# --- the question ---------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitJob:
    """One unit of a job, with what earlier runs left for it."""

    name: str
    seeds: tuple[TestData, ...] = ()  # tests replayed into the archive before the search
    blocked: tuple[TestData, ...] = ()  # tests that killed a worker: never run again
    careful: bool = False  # after a crash: no mutants, no joining (their inputs could crash it)
    replay_only: bool = False  # no search: replay the seeds and post-process them
    # The search's tests as found: no shrinking (``--raw``; a unit whose workers died too often)
    raw: bool = False
    share: float | None = None  # weight in the job's budget (default: the unit's target count)
    # Target ids the project's own suite covers (``host.baseline``): the search treats them as
    # covered, so they draw no effort and no kept test is there for them alone.
    suite_covered: tuple[int, ...] = ()


@dataclass(frozen=True)
class JobSpec:
    """One module's generation job: a pure function of this record (seeds included).

    ``budget_seconds`` is the whole job's: its units share it, first in proportion to their
    ``share`` (or size), then as they finish (see ``engine``); it covers each unit's search and
    post-processing, from the end of the module's import (not the worker's start, analysis
    and import). ``evaluations`` instead gives every unit
    that many fitness evaluations (deterministic, for tests and benchmarks).
    """

    path: str  # the module file
    module_name: str  # dotted name the emitted tests import
    import_root: str  # put on sys.path so that `import module_name` works
    units: tuple[UnitJob, ...]  # empty: every public unit of the module
    budget_seconds: float = 5.0
    evaluations: int | None = None
    seed: int = 0
    algorithm: Algorithm = Algorithm.MIO
    # Goals besides branches (criteria/selection.py): smart | all | branch | a comma list.
    criteria: str = "smart"
    # Covered goals keep the cheaper test (aDynaMOSA's Eq. 1) also under MIO.
    performance: bool = False
    join_tests: bool = False  # kept tests joined into fewer (minimize.suite.join_tests)
    test_timeout: float = 1.0
    post_seconds: float | None = None  # post-processing per unit under an evaluation budget
    focus_point: float = 0.5
    # Budget share kept for the mutation phase (mutants as targets) when coverage is incomplete;
    # a search that covers everything earlier hands all the rest to it. 0 turns it off.
    mutation_share: float = 0.2
    progress_interval: float = 0.2
    scratch: str = ""  # the worker's private folder (temporary files, heartbeat, output)
    cwd: str = ""  # working directory of the tests: the project root, where pytest runs them
    warning_filters: tuple[str, ...] = ()  # the project's pytest ``filterwarnings``
    memory_limit_mb: int = 2048
    trace: bool = False  # measure arcs with the tracer even where the probes suffice (checks)
    # The project's interpreter and miogen's folder for it (``host.interpreter``); empty:
    # the worker runs in miogen's own.
    python: str = ""
    shim: str = ""
    # Pytest runs of the verification done where the job ran, after the search (the dask
    # executor's workers: ``ctg.remote``); 0: the caller verifies.
    verify_runs: int = 0

    def attempt_seconds(self) -> float:
        """Wall seconds one worker may take for this spec: start-up, budget, slack.

        The supervisor's deadline and the worker's CPU-time limit both derive from it.
        """
        units = self.units or (UnitJob(""),)  # unnamed: the supervisor adds the rest once known
        searching = [u for u in units if not u.replay_only]
        if self.evaluations is not None:
            work = len(searching) * EVALUATION_RUN_SECONDS
        else:
            work = self.budget_seconds if searching else 0.0
        post = len(units) * self.post_allowance()
        return STARTUP_SECONDS + work + post + SLACK_SECONDS

    def post_allowance(self) -> float:
        """Seconds of post-processing per unit beyond its budget share, at most.

        Under a time budget post-processing is part of each unit's share but for shrinking's
        own time on a slow machine (``shrink_allowance``); this allowance only bounds how far
        the rendering of the last tests may run past it (the supervisor's deadline). Under an
        evaluation budget it is the post-processing's own deadline (``post_deadline``), far
        enough not to depend on the load, and shrinking's allowance beyond it.
        """
        return self.post_deadline() + self.shrink_allowance()

    def post_deadline(self) -> float:
        """Seconds from a unit's end of search to its post-processing's deadline under an
        evaluation budget (``post_allowance`` but shrinking's own), 1 under a time budget."""
        if self.post_seconds is not None:
            return self.post_seconds
        if self.evaluations is not None:
            return max(EVALUATION_POST_SECONDS, 0.2 * self.budget_seconds)
        return 1.0

    def shrink_allowance(self) -> float:
        """Seconds per unit that shrinking may take beyond half its reduction's time, at most,
        under either budget: what the set cover before it leaves may be nothing."""
        return SHRINK_SECONDS if self.evaluations is None else EVALUATION_SHRINK_SECONDS

    def unit(self, name: str) -> UnitJob:
        return next(u for u in self.units if u.name == name)

    def dumps(self) -> str:
        return json.dumps(to_json(self))

    @classmethod
    def loads(cls, text: str) -> JobSpec:
        return from_json(cls, json.loads(text))


# --- the answer -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TestRecord:
    """One generated test: its pytest source and what it is in the suite for."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    source: str  # a ``def test_...`` function
    imports: tuple[str, ...]  # names imported from the module under test
    extra_imports: tuple[str, ...]  # whole import lines (pytest, math, ...)
    targets: tuple[int, ...]  # branch target ids it covers
    kills: int  # mutants it kills (the mutation phase)
    test: TestData  # the test case, for seeding later runs
    # With mutation on: the unit's mutants (their indices) its emitted assertions kill.
    killed: tuple[int, ...] = ()


@dataclass(frozen=True)
class Uncovered:
    """A target the search did not cover, with the calls that came closest."""

    id: int
    closest: str
    h: float


@dataclass(frozen=True)
class MutationSummary:
    mutants: int = 0  # mutants tried by the assertion selection
    killed: int = 0  # killed by the emitted assertions
    score: float = 0.0
    killed_in_search: int = 0  # mutant targets the archive covered
    coverage_evaluations: int = 0  # evaluations before the mutation phase


@dataclass(frozen=True)
class ShrinkSummary:
    cache_hits: int = 0
    executions: int = 0
    attempts: dict[str, int] = field(default_factory=dict)  # per shrink pass
    successes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkerDrops:
    """Tests the worker found but did not emit, by cause."""

    refused_on_rerun: int = 0  # the sandbox refused something (or it hung) when re-run
    unstable: int = 0  # two clean re-runs disagreed on how it ends (an exception, or none)
    without_assertion: int = 0  # nothing stable to check


@dataclass(frozen=True)
class CriterionCoverage:
    """Goals of one criterion the emitted tests cover, out of the criterion's goals."""

    covered: int
    total: int


@dataclass(frozen=True)
class UnitResult:
    """What the worker found for one unit."""

    unit: str
    total: int  # targets of the unit
    covered: tuple[int, ...]  # target ids the search covered (a claim; coverage.py decides)
    tests: tuple[TestRecord, ...]
    uncovered: tuple[Uncovered, ...]
    stop_reason: StopReason
    evaluations: int = 0
    executions: int = 0  # test executions in all phases, mutants' included
    mutant_executions: int = 0
    search_executions: int = 0
    search_seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase of this unit
    replayed: int = 0  # seed tests that still applied
    refusals: dict[str, int] = field(default_factory=dict)  # what the sandbox refused, counted
    mutation: MutationSummary = MutationSummary()
    shrinking: ShrinkSummary = ShrinkSummary()
    dropped: WorkerDrops = WorkerDrops()
    # Per criterion (criteria.Criterion's values), measured on the emitted tests.
    criteria: dict[str, CriterionCoverage] = field(default_factory=dict)
    event: Literal["result"] = "result"

    @property
    def rate(self) -> float:
        """Test executions per second of search."""
        return self.search_executions / self.search_seconds if self.search_seconds else 0.0


@dataclass(frozen=True)
class StreamedTest:
    targets: tuple[int, ...]
    test: TestData


@dataclass(frozen=True)
class Progress:
    """What the search has so far (throttled); new covering tests go out at once."""

    unit: str
    evaluations: int
    elapsed: float
    fraction: float  # of the unit's current budget
    covered: tuple[int, ...]
    total: int
    rate: float
    new_tests: tuple[StreamedTest, ...] = ()
    event: Literal["progress"] = "progress"


@dataclass(frozen=True)
class Loaded:
    """The module is analysed and imported: seconds per module-level phase, and each unit's
    weight in the budget (its ``share``, or its size)."""

    phases: dict[str, float]
    weights: dict[str, float] = field(default_factory=dict)
    # The worker was a spare that had analysed the module's text before the job (``worker``).
    analysed_ahead: bool = False
    event: Literal["loaded"] = "loaded"


@dataclass(frozen=True)
class UnitStarted:
    """The worker turns to a unit (a crash from now on is that unit's)."""

    unit: str
    event: Literal["start"] = "start"


@dataclass(frozen=True)
class WorkerError:
    kind: ErrorKind
    message: str
    line: int | None = None
    event: Literal["error"] = "error"


@dataclass(frozen=True)
class Crash:
    """A worker that died (or was killed) while running one of ``unit``'s tests."""

    unit: str
    reason: str
    test: TestData | None = None  # the test it was running, when the heartbeat names one
    event: Literal["crash"] = "crash"


Event = Union[Loaded, Progress, UnitStarted, UnitResult, WorkerError, Crash]  # noqa: UP007
EVENTS: dict[str, type[Event]] = {
    "loaded": Loaded,
    "progress": Progress,
    "start": UnitStarted,
    "result": UnitResult,
    "error": WorkerError,
    "crash": Crash,
}


def event_from_json(data: Mapping[str, Any]) -> Event:
    """The typed event of a JSON message; ValueError for an unknown one."""
    kind = EVENTS.get(str(data.get("event")))
    if kind is None:
        raise ValueError(f"not a worker event: {data!r}")
    return from_json(kind, data)


@dataclass
class UnitOutcome:
    """What became of one unit of a job."""

    unit: str
    status: JobStatus = "ok"
    result: UnitResult | None = None
    crashes: list[Crash] = field(default_factory=list)
    message: str = ""  # why it failed

    @property
    def seconds(self) -> float:
        """Wall seconds the worker spent on this unit (its phases; the module's start excluded)."""
        return sum(self.result.phases.values()) if self.result is not None else 0.0

    @property
    def stop_reason(self) -> StopReason | None:
        if self.result is not None:
            return self.result.stop_reason
        return StopReason.CANCELLED if self.status == "cancelled" else None


@dataclass(frozen=True)
class WorkerStart:
    """The process of one attempt of a job: its pid, and whether it was started ahead of the
    job (a spare, ``host.spare``: its launch was off the job's clock)."""

    pid: int
    spare: bool
    analysed_ahead: bool = False  # the spare had analysed the module's text (once it loaded)


@dataclass(frozen=True)
class VerifiedTests:
    """A job's tests as verified where the job ran (``JobSpec.verify_runs``): the names kept
    (after ``pipeline.unique_names`` over the job's units, in their order), those dropped by
    cause, and coverage.py's ``Measurement`` of the kept ones as plain JSON."""

    kept: tuple[str, ...]
    failing: tuple[str, ...] = ()
    unstable: tuple[str, ...] = ()
    sandbox: tuple[str, ...] = ()
    unimportable: str = ""
    measurement: dict[str, Any] | None = None
    runs: int = 0
    runtimes: tuple[float, ...] = ()
    clock_ahead: bool = False
    seconds: float = 0.0
    # Test name -> the targets it covers (``Verification.covers``); None: no per-test measure.
    covers: dict[str, tuple[int, ...]] | None = None


@dataclass
class JobOutcome:
    """A job's end: each unit's outcome, or the error that stopped the whole job."""

    status: JobStatus
    units: list[UnitOutcome] = field(default_factory=list)
    error: WorkerError | None = None  # syntax, import, unknown unit, internal
    message: str = ""
    wall_seconds: float = 0.0
    # Seconds before the first unit: "start" (launch to loaded, per attempt, summed), "analyse"
    # and "import" (the first attempt's).
    phases: dict[str, float] = field(default_factory=dict)
    workers: list[WorkerStart] = field(default_factory=list)  # one per attempt, in order
    verified: VerifiedTests | None = None  # when the spec asked for ``verify_runs``

    def unit(self, name: str) -> UnitOutcome:
        return next(u for u in self.units if u.unit == name)

    def outcome_of(self, name: str, why: str = "") -> UnitOutcome:
        """The unit's outcome; a unit the worker never answered for failed with the job (its
        message, else ``why``)."""
        found = next((u for u in self.units if u.unit == name), None)
        return found or UnitOutcome(name, "failed", message=self.message or why)

    @property
    def crashes(self) -> list[Crash]:
        return [crash for unit in self.units for crash in unit.crashes]


# --- across machines ------------------------------------------------------------------------


class VersionMismatch(ValueError):
    """A record sealed by another miogen, or by records of another shape: never decoded."""


@functools.cache
def schema() -> str:
    """A digest of every record's fields and their declared types: two ends with the same one
    read each other's JSON alike (a field added, renamed or retyped changes it)."""
    shapes = sorted(
        f"{name}({', '.join(f'{f.name}: {f.type}' for f in dataclasses.fields(kind))})"
        for name, kind in globals().items()
        if isinstance(kind, type) and dataclasses.is_dataclass(kind) and kind.__module__ == __name__
    )
    return hashlib.sha256("\n".join(shapes).encode()).hexdigest()[:12]


def versions() -> dict[str, str]:
    """This end's miogen version and record schema (what ``sealed`` stamps)."""
    return {"miogen": miogen.__version__, "schema": schema()}


def sealed(record: object) -> dict[str, Any]:
    """A record as JSON stamped with this end's ``versions`` (for another machine)."""
    return {**versions(), "record": to_json(record)}


def unsealed(kind: type[R], data: Mapping[str, Any], sender: str = "the other end") -> R:
    """The record ``sealed`` stamped, or VersionMismatch when it was sealed by another miogen
    version or another record schema: records are refused across versions, never read in part.
    """
    theirs = {key: str(data.get(key, "?")) for key in ("miogen", "schema")}
    if theirs != versions():
        raise VersionMismatch(mismatch_message(sender, theirs))
    return from_json(kind, data["record"])


def mismatch_message(sender: str, theirs: Mapping[str, str]) -> str:
    ours = versions()
    return (
        f"{sender} runs miogen {theirs.get('miogen', '?')} (records {theirs.get('schema', '?')}), "
        f"this end miogen {ours['miogen']} (records {ours['schema']}): they cannot work together; "
        "install the same miogen on the client and on every worker"
    )


# --- JSON ---------------------------------------------------------------------------------


def _strict(kind: type[R]) -> Callable[[Any, Any], R]:
    """A structure hook that takes a value of ``kind`` as it is and refuses any other
    (cattrs would call ``str(1)``; a float field takes an integer, as JSON writes 5.0)."""

    def structure(value: Any, _: Any) -> R:
        if isinstance(value, bool) and kind is not bool:
            raise TypeError(f"expected {kind.__name__}, got a boolean {value!r}")
        if kind is float and isinstance(value, int):
            return typing.cast(R, float(value))
        if not isinstance(value, kind):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
        return value

    return structure


def _converter() -> cattrs.Converter:
    """Records to plain JSON values and back; a field of the wrong type or one the record does
    not have is an error (a worker or a dask worker of another version, a corrupted line)."""
    converter = cattrs.Converter(forbid_extra_keys=True)
    for kind in (str, int, float, bool):
        converter.register_structure_hook(kind, _strict(kind))
    for enumeration in (enum.Enum, enum.StrEnum):  # StrEnum: before str in its members' MRO
        converter.register_unstructure_hook(enumeration, _value)
        converter.register_structure_hook(enumeration, _member)
    return converter


def _value(member: enum.Enum) -> Any:
    return member.value


def _member(value: Any, kind: type[enum.Enum]) -> enum.Enum:
    return kind(value)  # ValueError for a value it does not have


CONVERTER = _converter()


def to_json(record: object) -> Any:
    """A record as plain JSON values (tuples become lists, enums their values)."""
    return CONVERTER.unstructure(record)


def from_json(kind: type[R], data: Any) -> R:
    """Rebuild a ``kind`` record from ``to_json``'s output; ValueError naming each field that
    does not fit (a wrong type, an unknown field, a missing one)."""
    try:
        return CONVERTER.structure(data, kind)
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError) as error:
        problems = "; ".join(cattrs.transform_error(error)) if isinstance(
            error, cattrs.BaseValidationError) else str(error)  # fmt: skip
        raise ValueError(f"not a {getattr(kind, '__name__', kind)}: {problems}") from error
