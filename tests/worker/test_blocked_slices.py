"""Once a worker died, every evaluated test is checked against the blocked tests' slices: each
call's slice (a function of the statements up to it) is computed once per prefix, not again for
each test that shares it (``testcase.model.SliceKeys``)."""

from __future__ import annotations

import random

import pytest
from miogen.testcase import model
from miogen.testcase.model import CALLS, Statement, blocked_by, canonical_key
from miogen.worker.search import Budget, run_mio
from worker.helpers import problem_for

SUBJECT = """
class Account:
    def __init__(self, balance: int = 0) -> None:
        self.balance = balance

    def deposit(self, amount: int) -> int:
        if amount <= 0:
            raise ValueError("positive amounts only")
        self.balance += amount
        return self.balance

    def withdraw(self, amount: int) -> int:
        if amount == 7_654_321 and self.balance == 1_234_567:  # the search keeps at it
            return -1
        if amount > self.balance:
            raise ValueError("not enough")
        self.balance -= amount
        return self.balance
"""
KILLER = (
    Statement("construct", "Account"),
    Statement("value", value=1864343715),
    Statement("method", "deposit", (("amount", 1),), receiver=0),
)


def test_each_calls_slice_is_computed_once_for_a_searchs_tests(write_module, monkeypatch):
    path = write_module("account", SUBJECT)
    problem = problem_for(path, "Account")
    problem.blocked = frozenset({canonical_key(KILLER)})
    computed: list[tuple[object, ...]] = []
    evaluated: list[model.TestCase] = []
    original = model.statement_slice

    def counted(test: model.TestCase, index: int) -> model.TestCase:
        computed.append(canonical_key(test[: index + 1]))
        return original(test, index)

    monkeypatch.setattr(model, "statement_slice", counted)
    evaluate = problem.evaluate
    monkeypatch.setattr(problem, "evaluate", lambda test: evaluated.append(test) or evaluate(test))
    run_mio(problem, Budget(evaluations=300), random.Random(3))
    for test in evaluated[:20]:  # a test evaluated again (another mode's view) computes none
        before = len(computed)
        problem.under(problem.mode).evaluate(test)
        assert len(computed) == before
    assert len(computed) == len(set(computed))  # each prefix's slice once
    assert len(evaluated) == 300 and computed
    monkeypatch.setattr(model, "statement_slice", original)
    for test in evaluated:  # the same verdicts as the slices computed afresh
        slices = [model.statement_slice(test, i) for i, s in enumerate(test) if s.kind in CALLS]
        keys = {canonical_key(test), *map(canonical_key, slices)}
        assert blocked_by(test, problem.blocked, problem.slices) == bool(keys & problem.blocked)
        assert blocked_by(test, problem.blocked) == bool(keys & problem.blocked)


@pytest.mark.parametrize("limit", [1, 3])
def test_a_full_cache_starts_again_and_answers_the_same(limit):
    slices = model.SliceKeys(limit=limit)
    test = (*KILLER, Statement("method", "withdraw", (("amount", 1),), receiver=0))
    first = slices.of(test)
    assert (
        slices.of(test)
        == first
        == [canonical_key(model.statement_slice(test, i)) for i in (0, 2, 3)]
    )


def test_a_cache_of_no_prefixes_keeps_none(monkeypatch):
    """``blocked_by`` without a cache goes through ``SliceKeys(limit=0)``: each slice afresh."""
    computed = []
    original = model.statement_slice
    monkeypatch.setattr(model, "statement_slice", lambda t, i: computed.append(i) or original(t, i))
    slices = model.SliceKeys(limit=0)
    construct = KILLER[:1]
    assert slices.of(construct) == slices.of(construct) == [canonical_key(construct)]
    assert len(computed) == 2
