"""aDynaMOSA's seven performance proxies (Table I) from one execution and the test itself."""

from __future__ import annotations

from collections.abc import Sequence

from miogen.instrument.counting import CounterMap
from miogen.testcase.model import CALLS, TestCase


def proxies(
    test: TestCase, counts: Sequence[int], counters: CounterMap | None
) -> tuple[float, ...]:
    """I1..I7 (``worker.search.performance.PROXIES``) of a test that ran with statement ``counts``.

    Production code is the instrumented part of the module (the unit and the code of its file
    that its tests can run, ``instrument.reach``):
    I1 loop iterations, summed over loops that iterated more than once (the paper keeps loops
    run once out, so that covering a loop is never penalised); I2 calls of its functions; I4
    objects its statements create (list/dict/set displays and comprehensions, calls of classes),
    counted per statement that ran more than once, for the same reason; I5 statements executed.
    The paper counts I5 as covered statements; execution counts are used here because runtime,
    which the proxy stands for, grows with them. The test side is read from the flat statement
    list the search evolves: I3 its calls, I6 its other statements (values and collections), I7
    its length. (Rendering inlines values used once, so the emitted test is shorter by I6 at
    most; the order between tests is what matters.)

    >>> proxies(((),), [], None)[2:]
    (0.0, 0.0, 0.0, 1.0, 1.0)
    """
    calls = sum(1 for statement in test if getattr(statement, "kind", "") in CALLS)
    length = len(test)
    if counters is None:
        return (0.0, 0.0, float(calls), 0.0, 0.0, float(length - calls), float(length))
    own = counters.of(counts)
    if not own:
        own = [0] * len(counters.lines)
    loops = sum(count for count in (own[s] for s in counters.loop_bodies) if count > 1)
    functions = sum(own[site] for site in counters.entries)
    objects = sum(
        count * made for count, made in zip(own, counters.allocations, strict=True) if count > 1
    )
    statements = sum(own)
    return (
        float(loops), float(functions), float(calls), float(objects), float(statements),
        float(length - calls), float(length),
    )  # fmt: skip
