"""Test names: the call a test checks and how it ends; a joined test's parts, in order."""

from __future__ import annotations

import keyword

from miogen.assertions.observation import Observation
from miogen.emit import names
from miogen.emit.names import MAX_LENGTH
from miogen.testcase.model import Statement, TestCase


def account_part(*calls: tuple[str, int]) -> TestCase:
    """``Account()``, then each (method, amount) on it."""
    statements = [Statement("construct", "Account")]
    for method, amount in calls:
        statements.append(Statement("value", value=amount))
        statements.append(
            Statement("method", method, (("amount", len(statements) - 1),), receiver=0)
        )
    return tuple(statements)


def joined(*parts: TestCase) -> tuple[TestCase, tuple[int, ...]]:
    """The parts one after another (as minimize.suite.concatenate does), and where each starts."""
    test: TestCase = ()
    starts = []
    for part in parts:
        if test:
            starts.append(len(test))
        mapping = {index: index + len(test) for index in range(len(part))}
        test += tuple(statement.renumbered(mapping) for statement in part)
    return test, tuple(starts)


def name(test: TestCase, observations: list[Observation], parts: tuple[int, ...] = ()) -> str:
    return names.test_name(test, observations, set(), parts)


def test_a_single_test_is_named_after_its_last_call_and_what_it_returns():
    test = account_part(("deposit", 5), ("withdraw", 2))
    assert name(test, [Observation(4, "equals", "3")]) == "test_withdraw_returns_3"
    assert (
        name(test, [Observation(4, "raises", "ValueError")]) == "test_withdraw_raises_value_error"
    )
    assert name(test, []) == "test_withdraw"


def test_a_joined_test_names_each_part_in_order_and_the_raise_it_ends_in():
    test, parts = joined(
        account_part(("deposit", 5)),
        account_part(("withdraw", 1)),
        (Statement("value", value=-1), Statement("construct", "Account", (("balance", 0),))),
    )
    raised = [Observation(len(test) - 1, "raises", "ValueError")]
    assert name(test, raised, parts) == "test_deposit_withdraw_account_init_raises_value_error"
    as_one = name(test, raised)  # as if one test: the situation too
    assert as_one == "test_account_init_with_negative_balance_raises_value_error"


def test_a_single_test_says_what_is_telling_about_its_arguments():
    test = account_part(("deposit", 5), ("withdraw", 0))
    raised = [Observation(4, "raises", "ValueError")]
    assert name(test, raised) == "test_withdraw_with_zero_amount_raises_value_error"
    empty = (Statement("value", value=""), Statement("call", "parse", (("/text", 0),)))
    assert name(empty, [Observation(1, "is_none")]) == "test_parse_with_empty_text_returns_none"
    long = (Statement("value", value=None), Statement("call", "f" * 30, (("limit", 0),)))
    assert (
        name(long, [Observation(1, "raises", "TypeError")]) == f"test_{'f' * 30}_raises_type_error"
    )


def test_a_joined_test_does_not_claim_what_its_last_part_returns():
    """The earlier parts returned other values: ``returns_4`` would tell half the story."""
    test, parts = joined(account_part(("deposit", 5)), account_part(("deposit", 4)))
    returned = [Observation(2, "equals", "5"), Observation(5, "equals", "4")]
    assert name(test, returned, parts) == "test_deposit"  # one callee, named once
    assert name(test, returned) == "test_deposit_returns_4"


def test_a_callee_is_named_once_and_the_last_parts_comes_last():
    test, parts = joined(
        account_part(("withdraw", 1)), account_part(("deposit", 1)), account_part(("withdraw", 9))
    )
    raised = [Observation(len(test) - 1, "raises", "InsufficientFunds")]
    assert name(test, raised, parts) == "test_deposit_withdraw_raises_insufficient_funds"
    test, parts = joined(
        account_part(("deposit", 1)), account_part(("withdraw", 1)), account_part(("deposit", 2))
    )
    assert name(test, [], parts) == "test_withdraw_deposit"


def test_a_long_joined_name_keeps_the_first_parts_that_fit_and_always_the_last():
    methods = ["apply_interest_rate", "close_statement_period", "open_new_account_for", "transfer"]
    test, parts = joined(*(account_part((method, 1)) for method in methods))
    raised = [Observation(len(test) - 1, "raises", "OverflowError")]
    named = name(test, raised, parts)
    # The second part does not fit, so neither does any after it (a shorter one would, but
    # the name would skip a step); the last part and its raise stay.
    assert named == "test_apply_interest_rate_transfer_raises_overflow_error"
    assert len(named) <= MAX_LENGTH


def test_joined_names_are_unique_identifiers_in_the_module():
    test, parts = joined(account_part(("deposit", 5)), account_part(("withdraw", 1)))
    taken: set[str] = {"test_deposit_withdraw"}
    first = names.test_name(test, [], taken, parts)
    second = names.test_name(test, [], taken, parts)
    assert (first, second) == ("test_deposit_withdraw_2", "test_deposit_withdraw_3")
    for each in taken:
        assert each.isidentifier() and not keyword.iskeyword(each) and each == each.lower()


def test_parts_past_the_end_of_the_run_are_ignored():
    """A re-run that stopped early gives a shorter test than the parts were counted on."""
    test = account_part(("deposit", 5))
    assert name(test, [], (3, 40)) == "test_deposit"
