"""Verifying a module's tests: its steps in order, each a call into the module that does it.

    outcomes (the worker's tests per unit, names made apart: ``emit.module``)
    -> what the project's suite covers (``SuiteSource``: ``host.baseline``)
    -> verify (``run.check.Verifier.first``: coverage run and reruns in other orders, hash
       seeds and clocks; drop what fails or varies)
    -> what decides which are kept (``host.suite_kills.Keeping``: the order and what each
       test covers, ``Verification.covers``, read once) -> with mutation on, the mutants the
       tests kill that the suite leaves alive (``host.suite_kills``)
    -> keep only what adds to the suite (``run.keep.keep_adds``)
    -> what is kept verified once more when that left some out (``Verifier.again``)
    -> each unit's kept tests and coverage.py's measurement of them (``run.result``: ``ModuleRun``)

Each step takes the records of the steps before it, imports no other step and calls none back:
the data goes one way, and the tests go through one verification. ``verify_outcomes`` is the one verification of
every front end: ``run.job`` calls it after the worker for ``miogen generate`` and the language
server, ``miogen ctg`` after its jobs (or on the executor's worker, which has the sources).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from miogen.analysis.model import ModuleModel, Unit
from miogen.common.project import ModuleLocation
from miogen.common.records import TestRecord, UnitOutcome
from miogen.emit.gate import Gated
from miogen.emit.module import unique_names
from miogen.host import clock
from miogen.host.baseline import Baseline, project_baseline, refresh_in_background
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.measure import Ahead
from miogen.host.suite_kills import Keeping, SuiteKills, kills_over_suite
from miogen.run import check
from miogen.run.check import VERIFY_RUNS
from miogen.run.keep import SuiteCovered, keep_adds
from miogen.run.result import Kept, ModuleRun, Verification, module_run

__all__ = [
    "CachedSuite",
    "MeasuredFirst",
    "MeasuredSuite",
    "SuiteCovered",
    "SuiteSource",
    "verify_outcomes",
]


def verify_outcomes(
    location: ModuleLocation,
    model: ModuleModel,
    units: Sequence[Unit],
    outcomes: Sequence[UnitOutcome],
    test_timeout: float = 1.0,
    runs: int = VERIFY_RUNS,
    ahead: Sequence[Ahead] = (),
    interpreter: Interpreter = OWN,
    suite: SuiteCovered | SuiteSource | None = None,
    verified: Callable[[list[TestRecord]], Verification] | None = None,
    folder: Path | None = None,
    again_ahead: bool = True,
    warning_filters: Sequence[str] = (),
    gate: Callable[[Sequence[TestRecord], bool], Gated] | None = None,
) -> ModuleRun:
    """The module's run, verified: the tests each unit's outcome holds (``outcomes``, one per
    unit, in order; names made apart across units), verified together (``run.check.Verifier``),
    then split per unit with what coverage.py measured for each.

    ``suite``: what is covered already (unit -> target ids: the module's test file, the
    project's suite; or the project's suite measured meanwhile, ``SuiteSource``): then only
    the tests that add to it are kept (``run.keep``), and those kept are verified once more
    when some were left out: every figure shown is coverage.py's on what is written, not a sum
    of what each test covered beside the others (invariant 2); a kept test that needed a
    left-out one before it fails there alone, and is dropped as failing. None keeps every
    verified test. ``verified``: the verification already done elsewhere (a dask worker
    verified its job's tests, ``ctg.remote``), given the tests as named here; None verifies
    them here. ``again_ahead``: the second verification's process starts while the first
    runs, in case keeping leaves some out (a save or ``miogen generate`` waits for it); False:
    only once it has (``miogen ctg`` verifies many modules at once, where a process started
    for a module that leaves nothing out is CPU spent for nothing). ``folder``: the project's
    folder the tests will be written in (``common.project.project_folder``, found once per job
    by the caller): they are verified there, by the project's pytest; None: in a folder of
    their own. ``warning_filters``: the project's pytest ``filterwarnings``, read once per job by the
    caller (the job's spec carries them: ``JobSpec.warning_filters``), for both verifications.
    ``gate``: the project's checkers on the tests as they would be written (``run.gate``), before
    anything runs, and again on what is kept: the tests it leaves out are not verified (or the
    kept ones are verified once more), so that the figures are those of what is written; None:
    every test goes on.
    """
    found = unique_names([list(o.result.tests) if o.result is not None else [] for o in outcomes])
    tests = [test for each in found for test in each]
    gated = gate(tests, model.has_module_state) if gate is not None and tests else None
    if gated is not None and gated.left_out:
        found = [[test for test in each if test.name not in gated.left_out] for each in found]
        tests = [test for each in found for test in each]
    # The project's suite, when one is measured: the tests are kept by what they add to it.
    # Its answer about the module is asked once, and handed to the steps that need it.
    baseline = suite.result() if suite is not None and not isinstance(suite, Mapping) else None
    mutants = suite is not None and not isinstance(suite, Mapping) and suite.mutants
    answer = (
        baseline.of_module(location.path, model.source, units, tests=mutants)
        if baseline is not None
        else None
    )
    covered = (
        suite if suite is None or isinstance(suite, Mapping)
        else answer.covered if answer is not None
        else None
    )  # fmt: skip
    # Verified here (``check.Verifier``: its first runs, then, once what adds is kept, what is
    # kept once more when some were left out), or elsewhere (``verified``: kept as verified).
    verifier = None
    if tests and verified is None:
        again = again_ahead and covered is not None
        verifier = check.Verifier(
            location, model, units, test_timeout, interpreter, folder, warning_filters, again
        )
    try:
        if verifier is not None:
            verification: Verification | None = verifier.first(tests, runs, ahead=ahead)
        else:
            for process in ahead:
                process.close()
            verification = verified(tests) if tests and verified is not None else None
        kept: Kept | None = None
        if covered is not None:
            # What decides, beside the mutants, which tests are kept: read once, for the
            # suite's runs against mutants (which go first to the verdicts that decide) and
            # for keeping; with mutation on, a test that kills a mutant the suite leaves
            # alive adds too.
            covers = verification.covers if verification is not None else None
            keeping = (
                Keeping(
                    [test.name for test in verification.tests], covers,
                    frozenset(i for ids in covered.values() for i in ids),
                )
                if verification is not None and verification.tests and covers is not None
                else None
            )  # fmt: skip
            names = {test.name for test in verification.tests} if verification else set()
            kills, killed = (
                kills_over_suite(
                    answer, location, model.source, units, found, names, interpreter, keeping
                )
                if mutants else ({}, SuiteKills())
            )  # fmt: skip
            kept = keep_adds(verification, keeping, units, covered, kills, killed)
            if gate is not None and verification is not None and verification.tests:
                # the gate again, on what is kept: the file's text as it will be written (its
                # parametrized groups are of these tests); the kept tests are verified once
                # more when it leaves some out (``Verifier.again``)
                late = gate(verification.tests, model.has_module_state)
                refused = [t.name for t in verification.tests if t.name in late.left_out]
                verification.tests = [t for t in verification.tests if t.name not in late.left_out]
                verification.dropped.checkers += refused
                before = gated.left_out if gated is not None else {}
                gated = dataclasses.replace(late, left_out={**before, **late.left_out})
            if verifier is not None and verification is not None:
                verifier.again(verification)
    finally:
        if verifier is not None:
            verifier.close()
    # The rerun elsewhere ran: what it kept.
    elsewhere = verification is not None and verification.runs > clock.SEED
    notes = clock.elsewhere().notes() if elsewhere else []
    if gated is not None:
        notes = [*gated.notes(), *notes]
    result = module_run(
        location, model, units, outcomes, found, verification, baseline, notes, kept
    )
    result.gated = gated
    return result


class SuiteSource(Protocol):
    """The project's own suite's coverage for a run: started once the module is known to be
    one to test, asked for once its tests are verified; None: keep every verified test.
    ``mutants``: whether the suite's runs against mutants are waited for (``host.suite_kills``)."""

    mutants: bool

    def start(self) -> None: ...

    def result(self) -> Baseline | None: ...


class MeasuredSuite:
    """The CLI's: the project's suite measured (cached by content) while the search runs."""

    mutants = True

    def __init__(self, root: Path, interpreter: Interpreter = OWN) -> None:
        self.root, self.interpreter = root, interpreter
        self.future: Future[Baseline] | None = None

    def start(self) -> None:
        measuring = ThreadPoolExecutor(1, thread_name_prefix="miogen-baseline")
        self.future = measuring.submit(project_baseline, self.root, self.interpreter)
        measuring.shutdown(wait=False)

    def result(self) -> Baseline | None:
        return self.future.result() if self.future is not None else None


class MeasuredFirst(MeasuredSuite):
    """``miogen generate``'s: the project's suite measured before the search (its coverage
    shares the budget, ``run.shares.by_suite``) and handed to the verification as it is:
    ``start`` after the first measures nothing again."""

    def start(self) -> None:
        if self.future is None:
            super().start()


class CachedSuite:
    """The language server's: a save never waits for the project's whole suite. Its cached
    measurement when current; else this job keeps every test, and one is started in the
    background for the next job (``refresh``). The editor's save never waits for the suite's runs against
    mutants."""

    mutants = False

    def __init__(self, root: Path) -> None:
        self.root = root
        self.missing = False  # asked for, and not current: ``refresh`` measures it
        self.read: tuple[Baseline | None] | None = None  # ``current``'s answer, once read

    def start(self) -> None:
        pass

    def current(self) -> Baseline | None:
        """The cached measurement when it is of the project's files as they are (None: it is
        not; nothing is started). Read once per job (the project's files are hashed to tell):
        the search aims past it and the tests are kept by it, the same measurement."""
        if self.read is None:
            suite = project_baseline(self.root, run=False)
            self.read = (None if suite.stale else suite,)
        return self.read[0]

    def result(self) -> Baseline | None:
        suite = self.current()
        self.missing = suite is None
        return suite

    def refresh(self) -> None:
        """Measure the suite in the background for the jobs after this one, when this one
        found no current measurement (once the job is done: its runs are not slowed)."""
        if self.missing:
            refresh_in_background(self.root)
