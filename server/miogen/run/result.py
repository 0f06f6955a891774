"""What a run of one module yields: coverage numbers that add up, per-unit verified tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from miogen.analysis.model import ModuleModel, Unit
from miogen.common.project import ModuleLocation
from miogen.common.records import JobOutcome, TestRecord, UnitOutcome
from miogen.emit.gate import Gated
from miogen.emit.merge import MergeResult
from miogen.host.adds import Gain, module_gain
from miogen.host.baseline import Baseline
from miogen.host.measure import Measurement
from miogen.host.suite_kills import SuiteKills


@dataclass(frozen=True)
class Numbers:
    """Branches covered out of a total, as coverage.py's ``results.Numbers``: they add up, so
    a module's figure is the ``sum()`` of its units' and a project's the sum of its modules'.

    >>> sum([Numbers(3, 4), Numbers(1, 4)])
    Numbers(covered=4, total=8)
    >>> Numbers(4, 8).percent
    50.0
    """

    covered: int = 0
    total: int = 0

    @classmethod
    def of(cls, covered: Iterable[int], total: int) -> Numbers:
        """The numbers of a set of covered target ids out of ``total`` targets."""
        return cls(len(set(covered)), total)

    @property
    def percent(self) -> float:
        """Covered in percent; nothing to cover is fully covered (coverage.py's rule)."""
        return 100.0 * self.covered / self.total if self.total else 100.0

    def __add__(self, other: Numbers) -> Numbers:
        return Numbers(self.covered + other.covered, self.total + other.total)

    def __radd__(self, other: int | Numbers) -> Numbers:
        if other == 0:  # sum() starts from 0
            return self
        if isinstance(other, Numbers):
            return other + self
        return NotImplemented


@dataclass
class Dropped:
    """Tests the verification dropped, by cause (names)."""

    failing: list[str] = field(default_factory=list)  # failed in every run
    # passed in one order, hash seed or clock only (host/clock.py: one rerun is years ahead)
    unstable: list[str] = field(default_factory=list)
    sandbox: list[str] = field(default_factory=list)  # did what the sandbox refuses
    # Why the test file could not be imported in the verification: then none is kept.
    unimportable: str = ""
    adds_nothing: list[str] = field(default_factory=list)  # covers only what is covered already
    # kept, then refused by the project's mypy or ruff in the file as written (``run.gate``)
    checkers: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"failing": len(self.failing), "unstable": len(self.unstable),
                "sandbox": len(self.sandbox), "adds_nothing": len(self.adds_nothing)}  # fmt: skip

    @property
    def refused(self) -> set[str]:
        """The tests that failed, varied or were refused (not those that added nothing)."""
        return set(self.failing) | set(self.unstable) | set(self.sandbox)


@dataclass
class Verification:
    """What coverage.py measured on the tests that pass, and what was dropped."""

    tests: list[TestRecord]
    measurement: Measurement | None = None
    dropped: Dropped = field(default_factory=Dropped)
    runs: int = 0  # pytest runs of the final set of tests
    clock_ahead: bool = False  # whether a rerun had the clock years ahead (libfaketime found)
    seconds: float = 0.0
    # The kept tests' own seconds in each shuffled rerun (pytest's, without coverage.py).
    runtimes: list[float] = field(default_factory=list)
    gains: dict[str, Gain] = field(default_factory=dict)  # unit -> what it adds to the suite
    # The runs were the project's plain pytest's, the file where it is written (``run.check``).
    in_project: bool = False
    # Test name -> the targets it covers: coverage.py's per-test measurement of the first
    # verification read through the file its runs ran (``Verifier.first``); None without one.
    # What decides, beside the mutants, which tests are kept (``host.suite_kills.Keeping``).
    covers: dict[str, set[int]] | None = None

    def measured_gains(self) -> dict[str, Gain]:
        """Each unit's gain with what coverage.py measured on the tests kept (``run.check``:
        verified again, alone, when keeping left some out)."""
        measured = self.measurement.covered if self.measurement is not None else {}
        return {
            name: dataclasses.replace(gain, combined=gain.suite | frozenset(measured.get(name, ())))
            for name, gain in self.gains.items()
        }


@dataclass(frozen=True)
class Kept:
    """What keeping only what adds decided (``run.keep``): each unit's gain over the suite."""

    gains: dict[str, Gain] = field(default_factory=dict)  # unit -> what its kept tests add
    notes: list[str] = field(default_factory=list)  # the suite's mutant runs' (``suite_kills``)
    suite_kills: SuiteKills | None = None  # the suite's verdict on the mutants (with mutation)


@dataclass
class UnitRun:
    """One unit of a module's run: what the worker found, and what the verification kept."""

    unit: Unit
    outcome: UnitOutcome
    tests: list[TestRecord] = field(default_factory=list)  # kept after verification
    measured: list[int] = field(default_factory=list)  # target ids coverage.py measured on them
    dropped: list[str] = field(default_factory=list)  # failed, unstable, refused, unimportable
    gain: Gain | None = None  # what the kept tests add to the project's suite (when asked)
    skipped: str = ""  # why the unit got no search ("covered by your suite": ``run.shares``)

    @property
    def name(self) -> str:
        return self.unit.name

    @property
    def found(self) -> list[TestRecord]:
        """The tests the worker emitted for the unit, before verification."""
        return list(self.outcome.result.tests) if self.outcome.result is not None else []

    @property
    def claimed(self) -> list[int]:
        """The target ids the search claims for the kept tests (coverage.py decides)."""
        if self.tests:
            return sorted({t for test in self.tests for t in test.targets})
        return list(self.outcome.result.covered) if self.outcome.result else []

    @property
    def numbers(self) -> Numbers:
        """coverage.py's figure for the unit: measured branches out of its targets."""
        return Numbers.of(self.measured, len(self.unit.targets))


@dataclass
class ModuleRun:
    """One module's run, verified: every unit's kept tests and coverage.py's figures.

    The CLI, continuous generation and the language server all get this record; the CLI's
    written file (``output``, ``merge``) and ``notes`` are set once the tests are written.
    """

    location: ModuleLocation
    model: ModuleModel
    units: list[UnitRun]
    job: JobOutcome | None = None  # the worker's (None when several jobs fed the module: ctg)
    verification: Verification | None = None  # None: no test to verify
    suite: Baseline | None = None  # the project's own tests' coverage (None: not asked)
    output: Path | None = None
    merge: MergeResult | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per step
    notes: list[str] = field(default_factory=list)  # what the user should know
    # The project's suite run against the mutants the tests kill (None: not asked for).
    suite_kills: SuiteKills | None = None
    # The project's checkers' gate (``run.gate``): the tests it left out before the
    # verification, and the fixes the write makes (None: the project configures neither)
    gated: Gated | None = None

    @property
    def tests(self) -> list[TestRecord]:
        return [test for unit in self.units for test in unit.tests]

    @property
    def numbers(self) -> Numbers:
        """coverage.py's figure for the module's units, summed."""
        return sum((unit.numbers for unit in self.units), Numbers())

    @property
    def measurement(self) -> Measurement | None:
        return self.verification.measurement if self.verification is not None else None

    @property
    def dropped(self) -> Dropped:
        return self.verification.dropped if self.verification is not None else Dropped()

    @property
    def gains(self) -> dict[str, Gain]:
        return {unit.name: unit.gain for unit in self.units if unit.gain is not None}

    @property
    def gain(self) -> Gain:
        return module_gain(self.location.module_name, list(self.gains.values()))

    def unit(self, name: str) -> UnitRun:
        return next(unit for unit in self.units if unit.name == name)

    def split(self) -> None:
        """Each unit's kept tests and coverage.py's measurement of them."""
        verification = self.verification
        assert verification is not None
        kept = {t.name for t in verification.tests}
        measured = verification.measurement.covered if verification.measurement else {}
        for unit in self.units:
            unit.tests = [t for t in unit.tests if t.name in kept]
            unit.measured = sorted(measured.get(unit.name, []))


def module_run(
    location: ModuleLocation,
    model: ModuleModel,
    units: Sequence[Unit],
    outcomes: Sequence[UnitOutcome],
    found: Sequence[Sequence[TestRecord]],
    verification: Verification | None,
    suite: Baseline | None = None,
    notes: Sequence[str] = (),
    kept: Kept | None = None,
) -> ModuleRun:
    """The module's run from the verification's records, in their order: each unit's tests
    (``found``, in ``units``' order) as ``verification`` kept them (with, when only what adds
    to the project's ``suite`` was ``kept``, each unit's gain over it). ``notes``: the
    verification's."""
    result = ModuleRun(location, model, [
        UnitRun(unit, outcome, list(tests))
        for unit, outcome, tests in zip(units, outcomes, found, strict=True)
    ], verification=verification, suite=suite, notes=list(notes))  # fmt: skip
    if verification is not None:
        result.seconds["verify"] = verification.seconds
        gone = verification.dropped
        for unit in result.units:
            unit.dropped = [
                t.name for t in unit.tests if gone.unimportable or t.name in gone.refused
            ]
        result.split()
    if kept is not None:
        result.notes += kept.notes
        if kept.suite_kills is not None and kept.suite_kills.seconds is not None:
            result.suite_kills = kept.suite_kills  # a step of its own: its pytest runs
            result.seconds["suite_kills"] = kept.suite_kills.seconds
        # the verification's, measured again when keeping left some out (``run.check``)
        gains = verification.gains if verification is not None else kept.gains
        for unit in result.units:
            unit.gain = gains.get(unit.name)
    return result
