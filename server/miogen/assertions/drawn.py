"""What a test that drew from an unseeded source can still assert: the type every run agreed on.

A value made from the clock or a random generator is never stated (observe.py), but its type
often is the same in every run: ``strf_date_convert`` gives a ``datetime.date`` whatever the
day, or None on its last path. Such a type check keeps the test's point (the call returns,
and returns that kind of thing) without depending on the day, so a test that covers what no
other test covers is not left without an assertion and dropped.

Runs agree on a type by chance where the type depends on the draw (``1 if random.random() <
0.5 else "one"``): two runs half the time, six 1 in 32. So a type is checked only when every
run agrees on it, and a test with such a check is first run to ``TYPE_RUNS`` runs in all (each
drawing anew from the unseeded source): a type that is a coin flip then agrees 1 in 32768,
where it cost a dropped test in the verification's reruns (or a flaky test) 1 in 32 before.
Only tests that drew and have a type to check pay the extra runs.
"""

from __future__ import annotations

import builtins
import datetime
import decimal
import fractions
import uuid

from miogen.assertions.observation import Observation
from miogen.testcase.model import CALLS, TestCase, has_value
from miogen.worker.executor import Execution

TYPE_RUNS = 16  # runs in all of a test that would check a drawn value's type (see above)

# Standard-library value types a test names as ``module.Class``: the renderer imports the
# modules it sees used that way (emit/render.py, ``module_imports``). Bound at import: the
# worker later puts a clock-watching subclass in ``datetime.datetime`` (worker/entropy.py).
NAMED = {
    kind: f"{kind.__module__}.{kind.__qualname__}"
    for kind in (
        datetime.date, datetime.datetime, datetime.time, datetime.timedelta,
        decimal.Decimal, fractions.Fraction, uuid.UUID,
    )
}  # fmt: skip


def agreed_types(
    runs: list[Execution], drawn: set[int], agreed: list[Observation]
) -> list[Observation]:
    """A type check for each drawn statement that ``agreed`` checks in no way, when every run
    gave it a value of the same nameable type: ``is None``, a builtin or a standard-library
    value type. Statements after one that raised in any run are left alone."""
    checked = {o.index for o in agreed}
    test = runs[0].test
    found = []
    for index in sorted(drawn - checked):
        if not _valued(test, index) or not all(_ran(run, index) for run in runs):
            continue
        kinds = {type(run.values[index]) for run in runs}
        if len(kinds) == 1:
            observation = _type_check(index, kinds.pop())
            if observation is not None:
                found.append(observation)
    return found


def agree_on_type(runs: list[Execution], index: int) -> bool:
    """Every run ran the statement to its end and gave it a value of one type."""
    if not all(_ran(run, index) for run in runs):
        return False
    return len({type(run.values[index]) for run in runs}) == 1


def typed_in_all(
    runs: list[Execution], drawn: set[int], agreed: list[Observation]
) -> list[Observation]:
    """``agreed`` without the type checks of drawn statements whose type some run did not
    share (the first two runs' agreement is no more than a coin's), and with the types every
    run agrees on (``agreed_types``)."""
    kept = [
        o
        for o in agreed
        if not (o.index in drawn and o.kind == "isinstance") or agree_on_type(runs, o.index)
    ]
    return kept + agreed_types(runs, drawn, kept)


def checks_types(drawn: set[int], agreed: list[Observation], more: list[Observation]) -> bool:
    """Whether the observations would check the type of a drawn statement: ``agreed``'s
    ``isinstance`` of one, or ``more`` (what ``agreed_types`` found)."""
    return bool(more) or any(o.index in drawn and o.kind == "isinstance" for o in agreed)


def _valued(test: TestCase, index: int) -> bool:
    return index < len(test) and test[index].kind in CALLS and has_value(test[index])


def _ran(run: Execution, index: int) -> bool:
    """The statement ran to its end in ``run`` (no statement up to it raised)."""
    raised = run.exception[0] if run.exception is not None else None
    return index < len(run.values) and (raised is None or raised > index)


def _type_check(index: int, kind: type) -> Observation | None:
    if kind is type(None):
        return Observation(index, "is_none")
    if kind in NAMED:
        return Observation(index, "isinstance", NAMED[kind])
    if kind.__module__ == "builtins" and getattr(builtins, kind.__name__, None) is kind:
        return Observation(index, "isinstance", kind.__name__)
    return None
