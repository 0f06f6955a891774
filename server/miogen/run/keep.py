"""Keeping only what adds to the project's suite: its coverage, and with mutation on its kills.

    Verification (coverage.py per test) + what the suite covers (+ the mutants it kills,
    ``host.suite_kills``) -> the tests that add, in the file's order -> ``Kept`` (each unit's
    gain over the suite)

A step of ``run.verify.verify_outcomes``, which reads ``keeping_of`` once and hands it to
the suite's runs against mutants and to ``keep_adds``; it calls no other step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from miogen.analysis.model import ModuleModel, Unit
from miogen.emit.module import module_text
from miogen.host.adds import Gain, covers_by_test, keep_what_adds, line_goals
from miogen.host.suite_kills import Keeping, MutantId, SuiteKills
from miogen.run.result import Kept, Verification

SuiteCovered = Mapping[str, Sequence[int]]  # unit -> target ids the project's tests cover


def keep_adds(
    verification: Verification | None,
    keeping: Keeping | None,
    units: Sequence[Unit],
    suite: SuiteCovered,
    kills: Mapping[str, set[MutantId]] | None = None,
    killed: SuiteKills | None = None,
) -> Kept:
    """Keep only the verified tests that add to ``suite`` (``keep_only_what_adds``; the
    ``verification`` is updated: its tests, dropped and measurement), and give each unit its
    gain over it. ``keeping``: the verification's ``keeping_of``, read once by the caller.
    ``kills`` (with mutation on: test name -> the mutants it kills) and ``killed`` (the
    project's suite's verdict on them, ``host.suite_kills``): a test that kills a mutant the
    suite leaves alive adds too (one it did not judge, past its cap, does not)."""
    verification = verification or Verification([])
    verdict = killed or SuiteKills()
    # A mutant past the cap of runs is not judged: no test is kept for it, nor counted.
    gains = keep_only_what_adds(
        verification, keeping, units, suite, kills, verdict.killed | verdict.unjudged
    )
    return Kept(gains, [f"mutants: {note}" for note in verdict.notes], killed)


def keep_only_what_adds(
    verification: Verification,
    keeping: Keeping | None,
    units: Sequence[Unit],
    suite: SuiteCovered,
    kills: Mapping[str, set[MutantId]] | None = None,
    suite_killed: set[MutantId] | None = None,
) -> dict[str, Gain]:
    """Drop the verified tests that add no target to the project's ``suite`` (unit -> covered
    ids) and the tests kept before them, in the file's order; the kept tests' coverage is
    coverage.py's per-test measurement (``keeping``: the verification's ``keeping_of``).
    Returns each unit's gain over the suite. ``kills`` (test name -> the mutants it kills,
    with mutation on): a test that kills one that neither ``suite_killed`` nor a test kept
    before it kills adds too.

    Without per-test measurement (no tests, or a run that measured nothing: ``keeping`` None),
    nothing is dropped.
    """
    measurement = verification.measurement
    if measurement is not None and keeping is not None:
        order, covers = keeping.order, keeping.covers
        kept = set(keep_what_adds(order, covers, keeping.suite, kills, suite_killed or ()))
        verification.dropped.adds_nothing += [n for n in order if n not in kept]
        if len(kept) < len(order):  # its module figure was of every verified test
            measurement.module_percent = None
        verification.tests = [t for t in verification.tests if t.name in kept]
        reached = {i for name in kept for i in covers.get(name, ())}
        for unit in units:
            ids = {t.id for t in unit.targets}
            measurement.covered[unit.name] = sorted(reached & ids)
    measured = measurement.covered if measurement is not None else {}
    added = {m for t in verification.tests for m in (kills or {}).get(t.name, ())}
    added -= suite_killed or set()
    verification.gains = {
        unit.name: Gain(
            unit.name,
            len(unit.targets),
            frozenset(suite.get(unit.name, ())),
            frozenset(suite.get(unit.name, ())) | frozenset(measured.get(unit.name, ())),
            sum(1 for u, _ in added if u == unit.name),
            line_goals(unit.targets),
        )  # fmt: skip
        for unit in units
    }
    return verification.gains


def keeping_of(
    verification: Verification | None, module_name: str, model: ModuleModel, suite: SuiteCovered
) -> Keeping | None:
    """What decides, beside the mutants, which of the verified tests are kept: their order, the
    targets each covers (coverage.py's per-test measurement) and those the ``suite`` covers;
    None without a per-test measurement (then every test is kept). The suite's runs against
    mutants go first to the verdicts that decide (``host.suite_kills``)."""
    measurement = verification.measurement if verification is not None else None
    if verification is None or measurement is None or not measurement.per_test:
        return None
    if not verification.tests:
        return None
    generated = module_text(verification.tests, module_name, model.has_module_state)[1]
    covers = covers_by_test(measurement.per_test, generated)
    order = [t.name for t in verification.tests]
    return Keeping(order, covers, frozenset(i for ids in suite.values() for i in ids))
