"""Coverage goals beyond branches: small hashable ids with a criterion and a human description."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Criterion(StrEnum):
    """EvoSuite's default criteria (digest sec. 0), named as ``--criteria`` takes them."""

    BRANCH = "branch"  # BC: coverage.py's arcs (the engine's targets, invariant 2)
    DIRECT_BRANCH = "direct-branch"  # DBC: a branch of a public callable the test calls itself
    LINE = "line"  # LC
    WEAK_MUTATION = "weak-mutation"  # WM: a mutant's expression would have computed another value
    METHOD = "method"  # TMC: a public callable called by the test itself
    METHOD_NO_EXCEPTION = "method-no-exception"  # NTMC: ... and returning without an exception
    EXCEPTION = "exception"  # EC: one goal per distinct exception type per callable (dynamic)
    OUTPUT = "output"  # OC: categories of a callable's return value


@dataclass(frozen=True, slots=True, order=True)
class Goal:
    """One goal of a criterion other than BC (BC goals stay the engine's integer target ids).

    ``callable`` is the unit's callable the goal is about ("Triangle.area", "Triangle.__init__",
    "classify"), ``line`` a source line, ``detail`` what else tells goals apart: the branch target
    id (DBC), the mutant's index (WM), the exception's type (EC), the output category (OC).

    >>> Goal(Criterion.OUTPUT, "Account.balance", 12, "negative").description
    'Account.balance returns a negative number'
    """

    criterion: Criterion
    callable: str = ""
    line: int = 0
    detail: str = ""
    # Goals are dictionary keys in every evaluation (archive, h): hash once, not per lookup.
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        key = (self.criterion, self.callable, self.line, self.detail)
        object.__setattr__(self, "_hash", hash(key))

    def __hash__(self) -> int:
        return self._hash

    @property
    def description(self) -> str:
        """A sentence for reports and hovers."""
        criterion, name, detail = self.criterion, self.callable, self.detail
        if criterion is Criterion.DIRECT_BRANCH:
            return f"branch {detail} on line {self.line}, with {name} called by the test"
        if criterion is Criterion.LINE:
            return f"line {self.line} executed"
        if criterion is Criterion.WEAK_MUTATION:
            return f"mutant {detail} on line {self.line} infected"
        if criterion is Criterion.METHOD:
            return f"{name} called"
        if criterion is Criterion.METHOD_NO_EXCEPTION:
            return f"{name} returns normally"
        if criterion is Criterion.EXCEPTION:
            return f"{name} raises {detail}"
        return f"{name} returns {OUTPUT_WORDS.get(detail, detail)}"


OUTPUT_WORDS = {
    "true": "True",
    "false": "False",
    "negative": "a negative number",
    "zero": "zero",
    "positive": "a positive number",
    "empty": "an empty value",
    "non-empty": "a non-empty value",
    "none": "None",
    "not-none": "a value other than None",
}
