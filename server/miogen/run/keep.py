"""Keeping only what adds to the project's suite: its coverage, and with mutation on its kills.

    Verification (coverage.py per test) + what the suite covers (+ the mutants it kills,
    ``host.suite_kills``) -> the tests that add, in the file's order -> ``Kept`` (each unit's
    gain over the suite)

A step of ``run.verify.verify_outcomes``, entered once: the flow reads what decides
(``host.suite_kills.Keeping``: the tests' order and what each covers, ``Verification.covers``)
once and hands it to the suite's runs against mutants, then to ``keep_adds``; it calls no other
step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from miogen.analysis.model import Unit
from miogen.host.adds import Gain, keep_what_adds, line_goals
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
    gain over it. ``keeping``: what decides, read once by the caller (``Verification.covers``).
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
    coverage.py's per-test measurement (``keeping``: its order, covers and the suite's ids).
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
