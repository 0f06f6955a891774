"""What a CTG run tells: a table per unit, the pooled coverage mu(P), and a JSON report for CI."""

from __future__ import annotations

from typing import Any

from miogen.ctg.runner import CtgReport, UnitState
from miogen.host.adds import Gain, line_goals, module_gain
from miogen.run.report import Coverage, Report, UnitEntry, report_json
from miogen.run.result import Numbers


def numbers(state: UnitState) -> Numbers:
    """coverage.py's figure for the unit after the run (its test file and the new tests)."""
    return Numbers.of(state.after, state.total)


def unit_entry(state: UnitState) -> UnitEntry:
    """The unit's fields in every ``--json`` report (``run.report``)."""
    outcome = state.outcome
    message = outcome.message if outcome is not None and outcome.status != "ok" else ""
    return UnitEntry(
        state.module.location.module_name, state.unit.name, state.unit.kind, state.status,
        Coverage.of(numbers(state)), len(state.tests), message,
    )  # fmt: skip


def unit_fields(state: UnitState) -> dict[str, Any]:
    """The unit's fields of ``ctg`` alone."""
    allocation = state.allocation
    outcome = state.outcome
    return {
        "key": state.key,
        "reason": allocation.reason if allocation else "",
        "changed": state.changed,
        "budget_seconds": round(allocation.seconds, 3) if allocation else 0.0,
        "covered_before": len(state.before),
        "covered_by_your_suite": len(state.suite),
        "tests_added": state.added,
        "seconds": round(outcome.seconds, 3) if outcome else 0.0,
        "seeds_replayed": outcome.result.replayed if outcome and outcome.result else 0,
        "seeds_dropped": state.seeds_dropped,
        "tests_not_kept": state.dropped,
    }


def to_json(report: CtgReport, fail_under: float | None = None) -> dict[str, Any]:
    """The ``--json`` report (``run.report``): the fields of both commands, then ctg's."""
    pooled = sum((numbers(state) for state in report.units), Numbers())
    common = Report(
        "ctg", str(report.root), Coverage.of(pooled), [unit_entry(s) for s in report.units],
        report.warnings, exit_code(report, fail_under),
    )  # fmt: skip
    own = {
        "strategy": report.config.strategy,
        "budget_per_job_slot": report.config.budget,
        "jobs": report.config.jobs,
        "executor": report.executor,
        "history": str(report.history) if report.history else None,
        "module_errors": report.module_errors,
        "budget_allocated_seconds": round(
            sum(s.allocation.seconds for s in report.units if s.allocation), 3
        ),
        "generation_seconds": round(report.generation_seconds, 3),
        "wall_seconds": round(report.wall_seconds, 3),
        "written": [str(p) for p in report.written],
        "not_written": report.unwritten,
        "changed_since": report.changes.ref if report.changes else None,
        "fail_under": fail_under,
    }
    return report_json(common, own, [unit_fields(s) for s in report.units])


NOTHING_TO_DO = 3  # --changed-since: no unit changed
NOT_KEPT = 4  # generated tests were dropped by the verification, or a test file was not written


def exit_code(report: CtgReport, fail_under: float | None) -> int:
    """1: something failed to run, or the pooled coverage is under ``fail_under``; 4: tests
    could not be kept; 3: nothing to do; 0: tests added, or none needed. (2: bad input, from
    the command line.)"""
    if report.failed:
        return 1
    if fail_under is not None and report.pooled + 1e-9 < fail_under:
        return 1
    if report.not_kept:
        return NOT_KEPT
    if report.nothing_to_do:
        return NOTHING_TO_DO
    return 0


def _fraction(covered: int, total: int) -> str:
    percent = 100.0 * covered / total if total else 100.0
    return f"{covered}/{total} {percent:3.0f}%"


def table(report: CtgReport) -> list[str]:
    """One line per unit: budget (or why it did not run), coverage before/after, tests, time."""
    width = max([len(s.key) for s in report.units] + [4])
    lines = [
        f"{'unit':<{width}}  {'budget':>7}  {'before':>12}  {'after':>12}  {'tests':>5}  {'time':>6}"
    ]
    for state in report.units:
        entry = unit_fields(state)
        if state.status in ("ran", "failed"):
            budget = f"{entry['budget_seconds']:6.1f}s"
            time_taken = f"{entry['seconds']:5.1f}s"
        else:
            budget, time_taken = f"{'-':>7}", f"{'-':>6}"
        # coverage.py's branches (a function without a branch is a line goal, not counted)
        goals = line_goals(state.unit.targets)
        branches = state.total - len(goals)
        before = _fraction(len(set(state.before) - goals), branches)
        after = _fraction(len(set(state.after) - goals), branches)
        line = (
            f"{state.key:<{width}}  {budget}  {before:>12}  "
            f"{after:>12}  {state.added:>5}  {time_taken}"
        )
        note = unit_entry(state).message if state.status == "failed" else entry["reason"]
        if state.changed and state.status != "failed":
            note = "changed" + (f"; {note}" if note else "")
        lines.append(line + (f"  {note}" if note else ""))
    for relative, message in report.module_errors.items():
        lines.append(f"{relative:<{width}}  not analysed: {message}")
    return lines


def unit_gain(state: UnitState) -> Gain:
    """What a unit's tests add to the project's suite: coverage.py's branches, its line goals
    (functions without a branch) told apart (``Gain``)."""
    return Gain(
        state.key, state.total, frozenset(state.suite), frozenset(state.after),
        lines=line_goals(state.unit.targets),
    )  # fmt: skip


def gains(report: CtgReport) -> list[str]:
    """Per unit that ran and per module: what the tests add to the project's own suite."""
    lines: list[str] = []
    modules: dict[str, list[Gain]] = {}
    for state in report.units:
        gain = unit_gain(state)
        modules.setdefault(state.module.relative, []).append(gain)
        if state.outcome is not None:
            lines.append(gain.describe())
    return lines + [module_gain(name, found).describe() for name, found in modules.items()]


def summary(report: CtgReport) -> list[str]:
    ran = [s for s in report.units if s.outcome is not None]
    return gains(report) + [
        f"pooled coverage mu(P): {_fraction(report.covered, report.branches)} of the branches "
        f"(coverage.py on the test files; {report.pooled:.1f}%)",
        f"{len(ran)} of {len(report.units)} units ran; generation {report.generation_seconds:.1f} s "
        f"on {report.config.jobs} job slot(s), wall {report.wall_seconds:.1f} s",
    ]


def markdown(report: CtgReport, fail_under: float | None = None) -> str:
    """A pull-request comment: per module its units, the tests added, what they add over the
    project's own suite, and what could not be kept and why."""
    code = exit_code(report, fail_under)
    since = f" since `{report.changes.ref}`" if report.changes else ""
    lines = ["## miogen: generated tests", ""]
    if report.nothing_to_do:
        lines.append(f"No unit changed{since}: nothing to do.")
    modules: dict[str, list[UnitState]] = {}
    for state in report.units:
        modules.setdefault(state.module.relative, []).append(state)
    if modules:
        lines += [
            f"| module | units{' changed' if report.changes else ''} | tests added | "
            "over your suite |",
            "|---|---|---:|---|",
        ]
    for relative, group in modules.items():
        gain = module_gain(
            relative,
            [unit_gain(s) for s in group],
        )
        before, after = gain.percent(gain.suite), gain.percent(gain.combined)
        if gain.added:
            over = f"+{gain.added} branches over your suite ({before:.0f}% → {after:.0f}%)"
        elif gain.lines_added:
            over = (
                f"no branch ({before:.0f}%); lines of {gain.lines_added} function(s) it never ran"
            )
        else:
            over = f"nothing added ({before:.0f}%)"
        names = ", ".join(f"`{s.unit.name}`" for s in group)
        added = sum(s.added for s in group)
        lines.append(f"| `{relative}` | {names} | {added} | {over} |")
    problems = []
    for state in report.units:
        if state.dropped:
            problems.append(
                f"- `{state.key}`: {len(state.dropped)} generated tests dropped: they failed, "
                "were unstable or did what the sandbox refuses in the verification "
                f"({', '.join(state.dropped[:5])})"
            )
        if state.status == "failed" and state.outcome is not None:
            problems.append(f"- `{state.key}`: the search failed: {state.outcome.message}")
    for path, why in report.unwritten.items():
        problems.append(f"- `{path}`: not written: {why}")
    for relative, message in report.module_errors.items():
        problems.append(f"- `{relative}`: not analysed: {message}")
    if problems:
        lines += ["", "### Could not keep", "", *problems]
    lines += [
        "",
        f"Branch coverage of {'the changed' if report.changes else 'all'} units (coverage.py): "
        f"{report.covered}/{report.branches} "
        f"({report.pooled:.1f}%). {len(report.written)} test files written. Exit status {code}.",
    ]
    return "\n".join(lines) + "\n"
