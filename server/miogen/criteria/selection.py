"""Which goals the search aims at: ``--criteria smart`` (default), ``branch``, ``all`` or a list.

Smart selection follows Zhou et al., "Coverage Goal Selector for Combining Multiple Criteria"
(TSE 2024), sec. 3, and the digest's sec. 5.1:

1. Criteria are grouped by coverage correlation: {BC, DBC, LC, WM}, {TMC, NTMC}, {EC}, {OC}.
2. Each group is represented by the criterion whose fitness guides best and whose goals imply
   the others': DBC, NTMC, EC and OC.
3. The unselected criteria keep only subsuming goals. LC: the last line of every basic block
   that spans at least ``LINE_SPAN`` lines (``line - first line of the block >= 8``, the
   artifact's ``smart_combine_line_span``). WM: the key operators ROR, AOR and BOR (UOI is
   "equal-to-line"; its Python stand-ins here, constant and condition mutants, are dropped
   too), and of those only the subsuming mutants (Gheyi et al.'s Z3 results as the artifact
   encodes them, ``SUBSUMING``). BC and TMC keep nothing: DBC and NTMC subsume them.

Choices where the paper is silent or Python differs:

- BC goals are always searched: they are coverage.py's arcs, which the product reports
  (invariant 2), and DynaMOSA's control-dependence graph is built on them (as DynaMOSA adds
  BC under smart selection, digest 5.1). DBC goals are then only added where they can differ
  from their branch: in callables the unit's own code also calls (elsewhere, covering the
  branch means the test called the callable itself).
- The project's ROR mutants already are the subsuming set. AOR follows the artifact (+ -> *,
  - -> *, * -> +, / -> * and -); ``//`` is taken as Java's integer division (the project
  mutates it to * and /, so * is kept); ``%`` has no rule in the artifact, which then keeps
  every mutant, and so does this.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from miogen.assertions.mutants import MutationPoint
from miogen.criteria.goals import Criterion

LINE_SPAN = 8
SUBSUMING: dict[str, frozenset[str]] = {
    # AOR
    "Add": frozenset({"Mult"}),
    "Sub": frozenset({"Mult"}),
    "Mult": frozenset({"Add"}),
    "Div": frozenset({"Mult", "Sub"}),
    "FloorDiv": frozenset({"Mult", "Sub"}),
    # BOR
    "BitAnd": frozenset({"BitOr"}),
    "BitXor": frozenset({"BitOr"}),
    "BitOr": frozenset({"BitAnd", "BitXor"}),
    # ROR (the project's relational mutants are these already)
    "Eq": frozenset({"LtE", "GtE"}),
    "NotEq": frozenset({"Lt", "Gt"}),
    "Lt": frozenset({"LtE", "NotEq"}),
    "LtE": frozenset({"Lt", "Eq"}),
    "Gt": frozenset({"GtE", "NotEq"}),
    "GtE": frozenset({"Gt", "Eq"}),
}
KEY_OPERATORS = ("ROR", "AOR", "BOR")
ALL = tuple(Criterion)
SMART = (
    Criterion.DIRECT_BRANCH,
    Criterion.LINE,
    Criterion.WEAK_MUTATION,
    Criterion.METHOD_NO_EXCEPTION,
    Criterion.EXCEPTION,
    Criterion.OUTPUT,
)
NAMES = ", ".join(["smart", "all", *ALL])


@dataclass(frozen=True)
class Selection:
    """The criteria whose goals the search aims at (BC always), and whether they are subsets."""

    criteria: tuple[Criterion, ...]
    smart: bool = False

    @property
    def name(self) -> str:
        if self.smart:
            return "smart"
        if set(self.criteria) == set(ALL):
            return "all"
        return ",".join(self.criteria)

    def __contains__(self, criterion: object) -> bool:
        return criterion in self.criteria

    @property
    def counts_statements(self) -> bool:
        """Whether the search needs statement counters (line and weak-mutation goals do)."""
        return Criterion.LINE in self.criteria or Criterion.WEAK_MUTATION in self.criteria

    def probes(self, point: MutationPoint) -> bool:
        """Whether the search needs an infection probe for this mutant (a searched WM goal)."""
        if Criterion.WEAK_MUTATION not in self.criteria:
            return False
        return not self.smart or bool(smart_mutants([point]))


def parse_criteria(text: str) -> Selection:
    """Read ``--criteria``: ``smart``, ``all``, ``branch`` or a comma-separated list.

    >>> parse_criteria("branch,exception").criteria
    (<Criterion.BRANCH: 'branch'>, <Criterion.EXCEPTION: 'exception'>)
    >>> parse_criteria("smart").smart, parse_criteria("all").name
    (True, 'all')
    """
    words = [word.strip() for word in text.split(",") if word.strip()]
    if words == ["smart"]:
        return Selection((Criterion.BRANCH, *SMART), smart=True)
    if words == ["all"]:
        return Selection(ALL)
    unknown = [word for word in words if word not in set(ALL)]
    if unknown or not words:
        raise ValueError(f"unknown criteria {', '.join(unknown) or '(none)'}; choose from {NAMES}")
    chosen = [Criterion(word) for word in words]
    return Selection(tuple(dict.fromkeys([Criterion.BRANCH, *chosen])))


def criteria_option(text: str) -> str:
    """``--criteria``'s argparse type: the text itself when ``parse_criteria`` accepts it."""
    try:
        parse_criteria(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def smart_lines(blocks: Iterable[tuple[int, int]]) -> list[int]:
    """The last line of every basic block spanning at least ``LINE_SPAN`` lines.

    >>> smart_lines([(3, 5), (10, 18), (20, 27)])
    [18]
    """
    return sorted({last for first, last in blocks if last - first >= LINE_SPAN})


def smart_mutants(points: Sequence[MutationPoint]) -> list[MutationPoint]:
    """The subsuming ROR, AOR and BOR mutants; every mutant of an operator with no rule."""
    return [
        point
        for point in points
        if point.mutant.operator in KEY_OPERATORS
        and (point.original not in SUBSUMING or point.replacement in SUBSUMING[point.original])
    ]
