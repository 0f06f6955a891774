"""A kept test whose value came from the clock keeps what it can check instead of being dropped."""

from __future__ import annotations

import time

from miogen.minimize.reduce import ReducedTest
from miogen.testcase.model import Statement
from miogen.worker import phases
from miogen.worker.search import Budget
from worker.test_phases import unit_run

MOMENTS = """
import datetime
import types


def parse_moment(text: str, pattern: str):
    moment = datetime.datetime.strptime(text, pattern)
    if "%Y" not in pattern:
        moment = moment.replace(year=datetime.date.today().year)
    if "%d" in pattern:
        return moment.date()
    if "%H" in pattern:
        return moment.time()
    return None


def stamped(label: str):
    if label:
        return types.SimpleNamespace(label=label, at=datetime.datetime.now())
    return None
"""


def call(unit: str, *values: object) -> tuple[Statement, ...]:
    named = tuple((f"/{i}", i) for i in range(len(values)))
    return (*(Statement("value", value=v) for v in values), Statement("call", unit, named))


def rendered(run: phases.UnitRun, *tests: ReducedTest) -> phases.Rendering:
    deadline = time.monotonic() + 30
    return phases.render(run.problem, list(tests), "moments", deadline, run.mutants, set())


def test_a_date_from_the_clock_is_checked_by_a_type_the_test_imports(write_module):
    run = unit_run(write_module("moments", MOMENTS), "parse_moment")
    (test,) = rendered(run, ReducedTest(call("parse_moment", "3", "%d"), frozenset({1}))).tests
    assert "assert isinstance(parse_moment(" in test.source
    assert "datetime.date)" in test.source and "import datetime" in test.extra_imports
    namespace = dict(vars(run.module))
    exec("\n".join([*test.extra_imports, test.source]), namespace)  # noqa: S102
    namespace[test.name]()  # passes, whatever the day


def test_a_test_with_nothing_to_check_is_kept_for_a_branch_only_it_covers(write_module):
    run = unit_run(write_module("moments", MOMENTS), "stamped")
    stamping = call("stamped", "a")
    alone = rendered(run, ReducedTest(stamping, frozenset({7})))
    assert [t.source.splitlines()[1].strip() for t in alone.tests] == ['stamped("a")']
    assert alone.drops.without_assertion == 0
    # Kept before for nothing a branch needs (a mutant, say): not worth a test without a check.
    extra = rendered(run, ReducedTest(stamping, frozenset()))
    assert extra.tests == [] and extra.drops.without_assertion == 1


def test_a_path_that_reads_the_clock_and_returns_none_is_emitted(write_module):
    """``x == pattern`` without directives: today's year is read, then None returned."""
    run = unit_run(write_module("moments", MOMENTS), "parse_moment", seed=1)
    run.search(Budget(evaluations=300))
    result = run.finish(time.monotonic() + 60, set())
    sources = [test.source for test in result.tests]
    assert any(" is None" in source for source in sources), sources
