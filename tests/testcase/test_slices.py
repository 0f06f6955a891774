"""A test's slice at a call: what a worker's killer is blocked by (``host.supervisor``)."""

from __future__ import annotations

from miogen.testcase.model import Statement, blocked_by, canonical_key, statement_slice


def value(v):
    return Statement("value", value=v)


def test_a_calls_slice_keeps_what_it_reads_and_what_changed_it():
    test = (
        value(3),  # 0
        Statement("construct", "Stack", (("capacity", 0),)),  # 1
        value(9),  # 2
        Statement("method", "push", (("item", 2),), receiver=1),  # 3: fills the stack
        value("x"),  # 4
        Statement("call", "shout", (("text", 4),)),  # 5: unrelated
        Statement("method", "pop", receiver=1),  # 6
    )
    assert statement_slice(test, 6) == test[:4] + (Statement("method", "pop", receiver=1),)
    assert statement_slice(test, 5) == (value("x"), Statement("call", "shout", (("text", 0),)))


def test_a_test_holding_a_blocked_call_is_blocked():
    killer = (value(1864343715), Statement("call", "format", (("colwidth", 0),)))
    blocked = frozenset({canonical_key(killer)})
    around = (
        value("a"),
        Statement("call", "format", (("cols", 0),)),
        value(1864343715),
        Statement("call", "format", (("colwidth", 2),)),
    )
    assert blocked_by(around, blocked)
    other = (value(1864343714), Statement("call", "format", (("colwidth", 0),)))
    assert not blocked_by(other, blocked)
