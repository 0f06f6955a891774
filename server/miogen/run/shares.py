"""``miogen generate``'s budget where the project's suite leaves something uncovered.

Without a baseline a module's units share its budget by size (the worker's default weight:
their target counts, ``common.sharing``). With the project's own suite measured
(``host.baseline``: cached by content, else run once before the search and reused by the
verification), a unit's weight is the number of its targets that suite misses, as ``miogen
ctg``'s allocation does: the search goes where the suite does not. A unit the suite covers
completely gets no search (the summary says "covered by your suite"), unless

- the user named it (``module.py::Unit``): then it is searched as asked;
- every unit of the module is covered and mutation is on: killing the mutants the suite
  leaves alive is then all there is to gain, and the units share the budget as before.

The job's budget stays the whole module's: the weights only divide it. Each unit's job also
carries the target ids the suite covers (``UnitJob.suite_covered``): inside a partly covered
unit the search aims only at the rest.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from miogen.analysis.model import ModuleModel, Unit
from miogen.analysis.module import analyze_file
from miogen.common.errors import MiogenError
from miogen.common.project import ModuleLocation
from miogen.common.records import UnitJob
from miogen.run.verify import SuiteSource

COVERED_BY_SUITE = "covered by your suite"


@dataclass(frozen=True)
class Shares:
    """The units to search, each weighted by what the suite misses, and those left out."""

    units: tuple[UnitJob, ...]  # the job's, in the module's order
    covered: tuple[str, ...] = ()  # the suite covers them completely: no search

    @property
    def weights(self) -> dict[str, float | None]:
        """Unit -> its weight in the budget (None: its size, as without a baseline)."""
        return {job.name: job.share for job in self.units}


def missed_targets(unit: Unit, covered: Collection[int]) -> int:
    """How many of the unit's targets the suite does not cover."""
    return sum(1 for target in unit.targets if target.id not in covered)


def suite_shares(
    units: Sequence[Unit],
    suite_covered: Mapping[str, Sequence[int]],
    named: Collection[str] = (),
    mutation: bool = False,
    raw: bool = False,
) -> Shares:
    """The job's units and weights for ``units``, given the target ids the project's suite
    covers per unit (``suite_covered``); ``named``: the units the user asked for by name;
    ``mutation``: the search also looks for mutants (see the module docstring); ``raw``:
    the user's ``--raw`` (each unit's job careful and unshrunk: ``UnitJob.careful``, ``.raw``).
    """
    covered = {u.name: _covered_ids(u, suite_covered.get(u.name, ())) for u in units}
    missed = {u.name: missed_targets(u, set(covered[u.name])) for u in units}
    complete = [u.name for u in units if u.targets and not missed[u.name] and u.name not in named]
    if mutation and len(complete) == len(units):
        complete = []  # mutants are all that is left to find: every unit searches for them
    return Shares(
        tuple(
            UnitJob(
                u.name,
                careful=raw,
                raw=raw,
                share=float(missed[u.name]) if missed[u.name] else None,
                suite_covered=covered[u.name],
            )
            for u in units
            if u.name not in complete
        ),
        tuple(complete),
    )


def _covered_ids(unit: Unit, covered: Collection[int]) -> tuple[int, ...]:
    """The ids of ``unit``'s targets among ``covered``, sorted."""
    found = set(covered)
    return tuple(sorted(target.id for target in unit.targets if target.id in found))


@dataclass(frozen=True)
class SharedBySuite:
    """The module analysed, its units asked for, and their shares by what the suite misses."""

    model: ModuleModel
    units: Sequence[Unit]
    shares: Shares
    # Private units taken beside the public ones (``unreached_private``), with the number of
    # their targets the suite leaves open: the summary says which and why.
    private: tuple[tuple[Unit, int], ...] = ()

    @property
    def note(self) -> str:
        """The summary's line on the private units taken ("" when none was)."""
        return private_note(self.private)


def by_suite(
    location: ModuleLocation,
    names: Sequence[str],
    mutation: bool,
    raw: bool,
    suite: SuiteSource | None,
) -> SharedBySuite | None:
    """The units' shares of the budget by what the project's suite misses (``suite_shares``),
    the suite measured now (``suite.start``), or None when its coverage is not known (no
    suite; it failed to run: the units then share the budget by size). A module that does not
    analyse is left to the job to report."""
    if suite is None:
        return None
    try:
        model = analyze_file(location.path, location.module_name)
        units = model.select(list(names) or None)
    except (MiogenError, OSError):
        return None
    suite.start()
    found = suite.result()
    if found is None or not found.ran or found.error:
        return None
    others = [] if names else [u for u in model.unreached_private_units if u not in units]
    covered = found.covered(location.path, model.source, [*units, *others])
    private = unreached_private(others, covered)
    units = [*units, *(unit for unit, _ in private)]
    return SharedBySuite(
        model, units, suite_shares(units, covered, names, mutation, raw=raw), tuple(private)
    )


def private_note(private: Sequence[tuple[Unit, int]]) -> str:
    """What a summary says of the private units taken (``unreached_private``): which, and why."""
    if not private:
        return ""
    named = ", ".join(
        f"{unit.name} ({open_} of {len(unit.targets)} targets open)" for unit, open_ in private
    )
    return (
        f"private units tested too: {named}; no public unit of the module reaches their code, "
        "and your suite leaves those targets open"
    )


def unreached_private(
    candidates: Sequence[Unit], suite_covered: Mapping[str, Sequence[int]]
) -> list[tuple[Unit, int]]:
    """Of the private units no public unit reaches (``ModuleModel.unreached_private_units``),
    those whose targets the project's suite leaves open, each with how many: units of their
    own. Other modules call them (``dateutil.tz`` calls ``_parsetz`` of ``dateutil.parser``),
    so their branches are no public unit's targets and a run over the public units never
    searches them; the suite's run through those callers is what tells whether anything is
    left. Without a suite's coverage none is taken: a private helper is then tested through
    its callers, as the project's code uses it."""
    found = []
    for unit in candidates:
        open_ = missed_targets(unit, set(suite_covered.get(unit.name, ())))
        if open_:
            found.append((unit, open_))
    return found
