"""Per-criterion coverage for the summary: coverage.py's for branch and line, the worker's for the rest."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from miogen.analysis.model import Unit
from miogen.analysis.targets import CodeMap
from miogen.criteria.goals import Criterion

MEASURED_BY_COVERAGE = (Criterion.BRANCH, Criterion.LINE)


def unit_lines(unit: Unit, code: CodeMap) -> set[int]:
    """The statement lines of a unit as coverage.py counts them (its ranges, helpers included)."""
    return {line for line in code.statements if unit.contains(line)}


def criteria_summary(
    worker: Mapping[str, Mapping[str, int]],
    branches: tuple[int, int],
    lines: tuple[int, int],
) -> dict[str, dict[str, object]]:
    """Criterion -> covered, total, percent and who measured it, in the criteria's order.

    ``worker`` is the engine's report on the emitted tests (``result["criteria"]``);
    ``branches`` and ``lines`` are coverage.py's (covered, total) on the same tests, which
    replace the worker's own count for those two criteria (invariant 2: the product reports
    what coverage.py measures). Exceptions have no total known in advance: their total is the
    number of distinct exceptions found.

    >>> criteria_summary({"output": {"covered": 1, "total": 2}}, (3, 4), (9, 10))["output"]
    {'covered': 1, 'total': 2, 'percent': 50.0, 'measured_by': 'miogen'}
    """
    summary: dict[str, dict[str, object]] = {}
    for criterion in Criterion:
        if criterion is Criterion.BRANCH:
            covered, total, tool = *branches, "coverage.py"
        elif criterion is Criterion.LINE:
            covered, total, tool = *lines, "coverage.py"
        elif criterion.value in worker:
            covered, total = worker[criterion.value]["covered"], worker[criterion.value]["total"]
            tool = "miogen"
        else:
            continue
        percent = round(100.0 * covered / total, 1) if total else 100.0
        summary[criterion.value] = {
            "covered": covered, "total": total, "percent": percent, "measured_by": tool,
        }  # fmt: skip
    return summary


def line_coverage(executed: Collection[int], unit: Unit, code: CodeMap) -> tuple[int, int]:
    """(covered, total) statement lines of the unit among coverage.py's executed lines."""
    statements = unit_lines(unit, code)
    return len(statements & set(executed)), len(statements)


def describe(summary: Mapping[str, Mapping[str, object]]) -> str:
    """One line for the text summary: "branch 12/12, line 20/20, ..., exception 2 found".

    >>> describe({"exception": {"covered": 2, "total": 2}, "line": {"covered": 3, "total": 4}})
    'exception 2 found, line 3/4'
    """
    parts = []
    for name, numbers in summary.items():
        if name == Criterion.EXCEPTION.value:
            parts.append(f"{name} {numbers['covered']} found")
        else:
            parts.append(f"{name} {numbers['covered']}/{numbers['total']}")
    return ", ".join(parts)
