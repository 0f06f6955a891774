"""Shrinking moves down the simplicity order and keeps exactly the targets a test is kept for."""

from __future__ import annotations

import datetime
import decimal
import random
import re
import time
from fractions import Fraction

import pytest
from miogen.analysis.model import Parameter, Signature
from miogen.analysis.typespec import TypeSpec
from miogen.minimize import shrink
from miogen.minimize.readable import module_texts, module_words
from miogen.minimize.reduce import CoverageCache, ReducedTest, set_cover, split_independent
from miogen.minimize.shrink import Shrinker, simplicity, value_cost
from miogen.testcase.model import Statement
from worker.helpers import problem_for

SUBJECT = """
def grade(score: int, bonus: int = 0, name: str = "") -> str:
    if score + bonus >= 90:
        return "A"
    if score >= 50:
        return "B"
    if name.startswith("x"):
        return "X"
    return "C"
"""


def cache_for(problem, runs=None):
    """The coverage cache of ``problem``'s runs; each test it runs is added to ``runs``."""

    def run(test):
        if runs is not None:
            runs.append(test)
        evaluated = problem.evaluate(test)
        return evaluated.individual, frozenset(t for t, h in evaluated.h.items() if h >= 1.0)

    return CoverageCache(run)


def call(score, *extra):
    statements = [Statement("value", value=score)]
    args = [("score", 0)]
    for name, value in extra:
        statements.append(Statement("value", value=value))
        args.append((name, len(statements) - 1))
    statements.append(Statement("call", "grade", tuple(args)))
    return tuple(statements)


def test_values_shrink_toward_simple_ones_and_keep_coverage(write_module):
    problem = problem_for(write_module("grades", SUBJECT), "grade")
    cache = cache_for(problem)
    test = call(731, ("bonus", -12), ("name", "qwerty"))
    _, covered = cache(test)
    signatures = problem.factory.signature
    shrunk = Shrinker(cache, time.monotonic() + 5, signature_of=signatures).shrink(
        ReducedTest(test, covered)
    )
    assert simplicity(shrunk.test) < simplicity(test)
    assert shrunk.targets == covered and covered <= cache(shrunk.test)[1]
    values = [s.value for s in shrunk.test if s.kind == "value"]
    assert values == [90], shrunk.test  # bonus and name dropped; the smallest A score


def test_boundary_values_are_found(write_module):
    problem = problem_for(write_module("grades", SUBJECT), "grade")
    cache = cache_for(problem)
    test = call(77)  # covers "score >= 50" true
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
    assert [s.value for s in shrunk.test if s.kind == "value"] == [50]


def test_no_identical_test_runs_twice(write_module):
    problem = problem_for(write_module("grades", SUBJECT), "grade")
    cache = cache_for(problem)
    test = call(731, ("name", "xyz"))
    cache(test)
    before = problem.executor.executions
    cache(test)
    assert problem.executor.executions == before and cache.hits == 1


def test_the_deadline_is_honoured(write_module):
    problem = problem_for(write_module("grades", SUBJECT), "grade")
    cache = cache_for(problem)
    test = call(731, ("bonus", -12), ("name", "qwerty"))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() - 1).shrink(ReducedTest(test, covered))
    assert shrunk.test == test


def test_set_cover_keeps_coverage_with_fewer_tests(write_module):
    problem = problem_for(write_module("grades", SUBJECT), "grade")
    cache = cache_for(problem)
    rng = random.Random(5)
    tests = [problem.sample(rng) for _ in range(60)]
    union = frozenset().union(*(cache(t)[1] for t in tests))
    pieces = [p for t in tests for p in split_independent(t)]
    chosen = set_cover(pieces, cache)
    assert frozenset().union(*(r.targets for r in chosen)) == union
    assert len(chosen) <= len(union)
    assert all(sum(s.kind == "call" for s in r.test) == 1 for r in chosen)


GAUGE = """
class Gauge:
    def __init__(self, level: int = 0) -> None:
        self.level = level

    def lift(self, step: int, /, times: int = 1, *more: int) -> int:
        self.level += step * times
        return self.level
"""


def test_only_arguments_with_defaults_are_left_out(write_module):
    """Without ``step``, ``gauge.lift()`` raises Python's TypeError where ``lift("a")`` raised
    TypeError inside ``lift``: to a target "lift raises TypeError" the same, but a call no type
    checker takes (mypy: call-arg). ``*more`` goes, then ``times`` (a default; positional
    only, as what comes before ``*more`` is, so only once nothing positional follows it)."""
    problem = problem_for(write_module("gauges", GAUGE), "Gauge")

    def run(candidate):
        execution = problem.executor.run(candidate, trace=False)
        raised = execution.exception is not None and execution.exception[1] == "TypeError"
        lifts = any(s.name == "lift" for s in candidate)
        return candidate, frozenset({"lift raises TypeError"} if raised and lifts else ())

    cache = CoverageCache(run)
    test = (
        Statement("construct", "Gauge"),
        Statement("value", value="a"),
        Statement("value", value=3),
        Statement("value", value=4),
        Statement("method", "lift", (("/step", 1), ("/times", 2), ("*more", 3)), receiver=0),
    )
    _, covered = cache(test)
    assert covered
    signatures = problem.factory.signature
    shrunk = Shrinker(cache, time.monotonic() + 30, signature_of=signatures).shrink(
        ReducedTest(test, covered)
    )
    assert [name for name, _ in shrunk.test[-1].args] == ["/step"], shrunk.test
    # Without signatures only an element of *more may go.
    assert list(Shrinker(cache, time.monotonic() + 30)._arguments(test)) == [
        (*test[:3], Statement("method", "lift", (("/step", 1), ("/times", 2)), receiver=0))
    ]


def test_a_positional_only_argument_is_left_out_only_when_nothing_positional_follows():
    signature = Signature(
        "f", (Parameter("/a", TypeSpec("int"), 0, True), Parameter("/b", TypeSpec("int"), 0, True)),
        TypeSpec("none"), 1,
    )  # fmt: skip
    args = (("/a", 0), ("/b", 1))
    assert not shrink._droppable(args, 0, signature)  # b would move into a's place
    assert shrink._droppable(args, 1, signature)
    assert shrink._droppable(args[:1], 0, signature)


RELATIONS = """
def edge(a: int, b: int, c: int) -> str:
    if a > b > c and a == b + c - 1:
        return "edge"
    return "other"


def doubles(a: int, b: int, c: int) -> str:
    if c > 0 and a == 2 * b and b == 2 * c:
        return "doubling"
    return "other"
"""


def call3(name, a, b, c):
    values = (Statement("value", value=a), Statement("value", value=b), Statement("value", value=c))
    return (*values, Statement("call", name, (("a", 0), ("b", 1), ("c", 2))))


def shrunk_values(write_module, name, test):
    problem = problem_for(write_module("relations", RELATIONS), name)
    cache = cache_for(problem)
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
    assert covered <= cache(shrunk.test)[1]
    return [s.value for s in shrunk.test if s.kind == "value"]


def test_a_relation_between_inputs_shrinks_by_moving_pairs_together(write_module):
    # No single number can move without breaking a == b + c - 1.
    assert shrunk_values(write_module, "edge", call3("edge", 991, 600, 392)) == [4, 3, 2]


def test_a_ratio_between_inputs_shrinks_by_halving_them_together(write_module):
    # Neither one number nor a pair can move without breaking a == 2b == 4c.
    assert shrunk_values(write_module, "doubles", call3("doubles", 512, 256, 128)) == [4, 2, 1]


LABELS = """
def label(kind: str, ratio: float) -> str:
    if kind.lower() in ("food", "toys") and 0 < ratio < 1:
        return kind + " share"
    return "other"
"""


def test_strings_shrink_to_a_word_of_the_module_and_floats_to_a_half(write_module):
    problem = problem_for(write_module("labels", LABELS), "label")
    cache = cache_for(problem)
    test = (
        Statement("value", value="FoOD"), Statement("value", value=0.73125),
        Statement("call", "label", (("kind", 0), ("ratio", 1))),
    )  # fmt: skip
    _, covered = cache(test)
    words = module_words(problem.factory.model)
    assert {"food", "toys", "kind", "ratio", "label"} <= set(words)
    shrunk = Shrinker(cache, time.monotonic() + 5, words=words).shrink(ReducedTest(test, covered))
    assert [s.value for s in shrunk.test if s.kind == "value"] == ["food", 0.5]


def test_a_fuzz_string_becomes_a_plain_word_of_the_same_length():
    assert value_cost("kind") < value_cost("K#d!") < value_cost("K#d!x")


WIDTHS = """
def pad(prefix: str, width: int) -> str:
    if len(prefix) == width > 3:
        return prefix
    return prefix.ljust(width)
"""


def test_a_string_whose_length_matters_keeps_it_in_plain_characters(write_module):
    problem = problem_for(write_module("widths", WIDTHS), "pad")
    cache = cache_for(problem)
    test = (
        Statement("value", value="hV#8"), Statement("value", value=4),
        Statement("call", "pad", (("prefix", 0), ("width", 1))),
    )  # fmt: skip
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
    values = [s.value for s in shrunk.test if s.kind == "value"]
    assert values[0].islower() and len(values[0]) == values[1], values


ADDRESSES = """
def kind(address: str) -> str:
    if "@" in address and len(address) > 6:
        return "email"
    return "other"
"""


def test_a_string_whose_punctuation_matters_keeps_it_in_lowercase(write_module):
    problem = problem_for(write_module("addresses", ADDRESSES), "kind")
    cache = cache_for(problem)
    test = (Statement("value", value="AbC@dEf"), Statement("call", "kind", (("address", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
    assert shrunk.test[0].value == "abc@def"


PICK = """
def pick(flag: int, a: int, b: float, c: str, d: int) -> str:
    if flag > 0:
        return "yes"
    return "no"
"""


def test_values_the_targets_do_not_need_become_plain_in_a_few_runs(write_module):
    # Four of the five values matter to nothing: one run makes them all plain at once, where a
    # run per value and step would be needed (and a short post-processing has few runs).
    problem = problem_for(write_module("picks", PICK), "pick")
    values = (731, 1416707424, 8.8564375, "sxdIy#", -1549307622)
    test = (
        *(Statement("value", value=v) for v in values),
        Statement("call", "pick", tuple((n, i) for i, n in enumerate("flag a b c d".split()))),
    )
    runs = []

    def run(candidate):
        runs.append(candidate)
        if len(runs) > 4:  # the runs allowed are spent: refused, as at a deadline
            return candidate[:0], frozenset()
        evaluated = problem.evaluate(candidate)
        return evaluated.individual, frozenset(t for t, h in evaluated.h.items() if h >= 1.0)

    cache = CoverageCache(run)
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    plain = [s.value for s in shrunk.test if s.kind == "value"]
    assert plain == [1, 1, 1.0, "a", -1], plain


CODES = '''
def is_code(text: str) -> bool:
    """A six-digit code whose number leaves 1 when divided by 97.

    >>> is_code("100202")
    True
    """
    if len(text) == 6 and text.isdigit() and int(text) % 97 == 1:
        return True
    return False
'''


def test_a_made_up_string_becomes_the_modules_own_example(write_module):
    # No shorter or plainer string keeps the code valid: only the docstring's reads as known.
    problem = problem_for(write_module("codes", CODES), "is_code")
    cache = cache_for(problem)
    test = (Statement("value", value="583165"), Statement("call", "is_code", (("text", 0),)))
    assert int("583165") % 97 == 1
    _, covered = cache(test)
    texts = module_texts(problem.factory.model)
    assert "100202" in texts
    shrinker = Shrinker(cache, time.monotonic() + 5, texts=texts)
    shrunk = shrinker.shrink(ReducedTest(test, covered))
    assert shrunk.test[0].value == "100202"


SCHEMES = """
import re
SCHEME = re.compile(r"([^/:]+):(.*)")


def scheme(url: str) -> str:
    match = SCHEME.fullmatch(url)
    if match and len(match.group(1)) == 3:
        return "three"
    return "other"
"""


def test_a_string_written_for_the_modules_pattern_is_not_its_own_text(write_module):
    # The strings written for a regular expression (analysis.regexes) are drawn from its
    # classes at random: the search's inputs, not text a reader knows from the module. As a
    # "text of the module" at half the cost, "=V]:" was plainer than any cut of it and stayed.
    problem = problem_for(write_module("schemes", SCHEMES), "scheme")
    model = problem.factory.model
    assert "=V]:" in model.constants.strings  # the search still draws it
    texts = module_texts(model)
    assert "=V]:" not in texts
    assert "three" in texts  # the module's literals still are
    cache = cache_for(problem)
    test = (Statement("value", value="=V]:"), Statement("call", "scheme", (("url", 0),)))
    _, covered = cache(test)
    shrinker = Shrinker(cache, time.monotonic() + 30, words=module_words(model), texts=texts)
    value = shrinker.shrink(ReducedTest(test, covered)).test[0].value
    assert isinstance(value, str) and len(value) == 4 and value.endswith(":")
    assert all(c in shrink.PLAIN_CHARACTERS for c in value[:3]), value


GROUPS = """
import re


def grouped(pattern: re.Pattern[str]) -> str:
    if pattern.groups:
        return "groups"
    return "none"
"""


def test_a_compiled_pattern_shrinks_as_its_pattern_string_with_its_flags(write_module):
    # A pattern from the catalogue (``re.compile("(ab)*")``) was a value of fixed cost that
    # no pass changed: ``re.compile("[a-z]+")`` stayed where any pattern would do.
    problem = problem_for(write_module("groups", GROUPS), "grouped")
    cache = cache_for(problem)
    pattern = re.compile("(AB)*", re.IGNORECASE)
    test = (Statement("value", value=pattern), Statement("call", "grouped", (("pattern", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    value = shrunk.test[0].value
    assert isinstance(value, re.Pattern)
    assert value.groups == 1 and len(value.pattern) < len(pattern.pattern), value
    assert value.flags == pattern.flags


JOINER = """
def joined(text: str) -> str:
    if "\\u200c" in text:
        return "joined"
    return "plain"
"""


def test_a_long_string_is_cut_down_to_the_odd_character_it_needs_in_few_runs(write_module):
    # The search's long strings carry one character that matters: halving from either end
    # finds it in about log2(length) rounds, where cutting one character a round takes length.
    problem = problem_for(write_module("joiner", JOINER), "joined")
    runs = []
    cache = cache_for(problem, runs)
    test = (
        Statement("value", value="aB3" * 13 + "\u200c"),
        Statement("call", "joined", (("text", 0),)),
    )
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    assert shrunk.test[0].value == "\u200c"
    assert len(runs) <= 40, len(runs)


AMOUNTS = """
from decimal import Decimal
from fractions import Fraction


def halve(amount: Decimal) -> Decimal:
    if amount > 2:
        return amount / 2
    return amount


def share(part: Fraction) -> str:
    if 0 < part < 1:
        return "part"
    return "whole"
"""


def test_decimals_and_fractions_shrink_like_numbers(write_module):
    path = write_module("amounts", AMOUNTS)
    found = shrunk_numbers(
        path, ("halve", decimal.Decimal("2.5728")), ("share", Fraction(355, 1130))
    )
    assert found == [decimal.Decimal(3), Fraction(1, 2)]


def shrunk_numbers(path, decimal_case, fraction_case):
    """The value each one-argument call is shrunk to: a Decimal ``amount``, a Fraction ``part``."""
    found = []
    for (unit, value), name in ((decimal_case, "amount"), (fraction_case, "part")):
        cache = cache_for(problem_for(path, unit))
        test = (Statement("value", value=value), Statement("call", unit, ((name, 0),)))
        _, covered = cache(test)
        shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
        found.append(shrunk.test[0].value)
    return found


PARTS = """
from decimal import Decimal
from fractions import Fraction


def cents(amount: Decimal) -> str:
    if abs(amount) % 1 == Decimal("0.95"):
        return "ninety-five"
    return "other"


def sevenths(part: Fraction) -> str:
    if part.denominator == 7:
        return "sevenths"
    return "other"
"""


def test_decimals_and_fractions_keep_the_fraction_a_goal_needs_and_lose_the_whole_part(
    write_module,
):
    # 0, 1, a half and the nearest integer all lose the fraction the branch needs.
    path = write_module("parts", PARTS)
    found = shrunk_numbers(
        path, ("cents", decimal.Decimal("-40.950")), ("sevenths", Fraction(45, 7))
    )
    assert found == [decimal.Decimal("-0.95"), Fraction(3, 7)]


def test_shrinking_a_test_takes_a_bounded_number_of_runs(write_module, monkeypatch):
    monkeypatch.setattr(shrink, "MAX_SHRINK_RUNS", 5)
    problem = problem_for(write_module("joiner", JOINER), "joined")
    runs = []
    cache = cache_for(problem, runs)
    test = (
        Statement("value", value="aB3" * 13 + "\u200c"),
        Statement("call", "joined", (("text", 0),)),
    )
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    assert len(runs) <= 1 + 5 and shrunk.test[0].value != "\u200c"
    assert covered <= cache(shrunk.test)[1]


CHECKSUMS = """
def check(code: str) -> str:
    if len(code) == 10 and code.isdigit():
        if sum(int(c) * (i + 1) for i, c in enumerate(code)) % 11 == 0:
            return "valid"
        return "invalid"
    return "other"
"""


def test_the_digits_of_a_string_go_toward_0_where_its_length_and_kind_matter(write_module):
    # Ten digits whose checksum fails: nothing shorter or plainer covers "invalid", but one
    # nonzero digit reads as made up on purpose, ten as fuzz.
    problem = problem_for(write_module("checksums", CHECKSUMS), "check")
    cache = cache_for(problem)
    test = (Statement("value", value="1506715204"), Statement("call", "check", (("code", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
    value = shrunk.test[0].value
    assert len(value) == 10 and value.isdigit() and int(value) < 10, value
    assert covered <= cache(shrunk.test)[1]


EMAILS = """
def kind(address: str) -> str:
    if len(address) >= 80 and "@" in address:
        return "long email"
    return "other"
"""


def test_each_odd_character_is_made_plain_everywhere_at_once(write_module):
    # The length and the "@" matter, so neither a cut nor the whole string made plain keeps the
    # goal; each other odd character made plain wherever it is takes a run, not one per place.
    problem = problem_for(write_module("emails", EMAILS), "kind")
    runs = []
    cache = cache_for(problem, runs)
    address = "Ab;\u03c9" * 19 + "A@;\u03c9"
    test = (Statement("value", value=address), Statement("call", "kind", (("address", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    value = shrunk.test[0].value
    assert len(value) == 80 and set(value) - set("abcdefghijklmnopqrstuvwxyz0123456789 ") == {"@"}
    assert len(runs) <= 60, len(runs)


ADDRESSES_V4 = """
def is_ip(text: str) -> bool:
    parts = text.split(".")
    if len(parts) == 4 and all(p.isdigit() and int(p) < 256 for p in parts):
        return True
    return False
"""


def test_digits_go_toward_0_but_not_to_an_address_linters_flag(write_module):
    problem = problem_for(write_module("addresses_v4", ADDRESSES_V4), "is_ip")
    cache = cache_for(problem)
    test = (Statement("value", value="192.168.1.7"), Statement("call", "is_ip", (("text", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 5).shrink(ReducedTest(test, covered))
    value = shrunk.test[0].value
    assert value != "0.0.0.0" and value.count(".") == 3 and value.count("0") >= 2, value


SHARES = """
import decimal
import fractions


def share(amount: decimal.Decimal, part: fractions.Fraction) -> str:
    if amount < 0:
        return "debt"
    return "credit"
"""


def test_decimals_and_fractions_become_plain_in_the_first_pass(write_module):
    """``Decimal("-2.4838")`` and ``Fraction(9999, 1000744)`` that the target does not depend
    on (but the sign) become -1 and 1 in the plain pass, all at once (0 and 0 lose the sign).
    """
    problem = problem_for(write_module("shares", SHARES), "share")
    cache = cache_for(problem)
    test = (
        Statement("value", value=decimal.Decimal("-2.4838")),
        Statement("value", value=Fraction(9999, 1000744)),
        Statement("call", "share", (("amount", 0), ("part", 1))),
    )
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).plain(ReducedTest(test, covered))
    assert [s.value for s in shrunk.test if s.kind == "value"] == [decimal.Decimal(-1), 1]


RESIDUE = """
def residue(n: int) -> str:
    if n % 9 == 4:
        return "four"
    return "other"
"""
UNTYPED_RESIDUE = RESIDUE.replace("n: int", "n")


@pytest.mark.parametrize(
    ("source", "number", "small"),
    [(RESIDUE, 112, 4), (UNTYPED_RESIDUE, 112.0, 4.0)],
    ids=["int", "whole-float"],
)
def test_a_number_held_by_what_it_is_not_by_its_size_becomes_a_small_one(
    write_module, source, number, small
):
    """``n % 9 == 4`` holds at 112, at none of the steps from 112 toward 0 (56, 84, ... 111)
    nor at its leading digits (11): the steps stop at 112, a fuzz-like number; 4 holds it too
    (issue 24: ``pstdev([0, 0, 0, 0, 0, 0, 0, 0, 112], mu=0.01)`` for a weak mutant). An
    untyped parameter gets floats too: ``112.0`` holds it as 112 does. Its steps toward 0 were
    halves of a float (108.5, 110.25 ...) and it had no fewer digits: it stayed 112.0 (issue
    24, ``leapdays(179375.0, -14800)``); as an int's, 4.0 holds it."""
    problem = problem_for(write_module(f"residues_{type(number).__name__}", source), "residue")
    cache = cache_for(problem)
    test = (Statement("value", value=number), Statement("call", "residue", (("n", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    values = [s.value for s in shrunk.test if s.kind == "value"]
    assert values == [small] and type(values[0]) is type(small), shrunk.test
    assert covered <= cache(shrunk.test)[1]


def test_the_candidates_of_a_number_end_with_fewer_digits_then_one_digit():
    assert shrink._simpler_numbers(112)[-10:] == [111, 11, 2, 3, 4, 5, 6, 7, 8, 9]
    assert shrink._simpler_numbers(-1458)[-10:] == [-145, -14, -2, -3, -4, -5, -6, -7, -8, -9]
    assert shrink._simpler_numbers(9) == [0, 1, -1, 5, 7, 8]  # one digit: the steps only
    assert 2 not in shrink._simpler_numbers(112.5)  # floats: rounded, not replaced
    assert shrink._simpler_numbers(-25.0)[5:] == [
        -13.0, -19.0, -22.0, -24.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0,
    ]  # fmt: skip


BOUNDS = """
def tier(year: int, spent: int = 0) -> str:
    if year and year % 400 == 0 and spent <= -1000:
        return "quad"
    return "other"
"""


def _values(test):
    return [s.value for s in test if s.kind == "value"]


def _tier(year, spent):
    values = (Statement("value", value=year), Statement("value", value=spent))
    return (*values, Statement("call", "tier", (("year", 0), ("spent", 1))))


def test_an_int_shrinks_to_a_number_of_the_units_own_code(write_module):
    """``14800`` is held by ``year % 400 == 0``: 0 fails the ``year and``, and no step toward
    0, leading digits or one-digit number is a multiple of 400; the unit's own 400 is."""
    from miogen.minimize.readable import unit_numbers

    path = write_module("tiers", BOUNDS)
    problem = problem_for(path, "tier")
    cache = cache_for(problem)
    test = _tier(14800, -1000)
    _, covered = cache(test)
    landmarks = unit_numbers(path.read_text(), problem.unit.ranges)
    assert landmarks == (400, 1000)
    plain = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    assert _values(plain.test) == [14800, -1000]  # stuck one value at a time
    shrunk = Shrinker(cache, time.monotonic() + 30, landmarks=landmarks)
    assert _values(shrunk.shrink(ReducedTest(test, covered)).test) == [400, -1000]


def test_the_numbers_pass_goes_on_from_the_number_it_changed_last(write_module):
    """Under a budget of evaluations: once ``year`` is at its simplest, each accepted step of
    ``spent`` toward its bound (not a landmark here: binary steps) does not run ``year``'s
    candidates again, each a new test. Starting each pass from ``year``, 60 evaluations left
    ``spent`` at -7405."""
    path = write_module("tiers", BOUNDS)
    problem = problem_for(path, "tier")
    cache = cache_for(problem)
    test = _tier(29600, -29617)
    _, covered = cache(test)
    shrinker = Shrinker(cache, time.monotonic() + 30, landmarks=(400,), evaluations=60)
    assert _values(shrinker.shrink(ReducedTest(test, covered)).test) == [400, -1000]


def test_a_small_float_shrinks_to_fewer_significant_digits(write_module):
    """``0.00055`` has no candidate between 0.0 (rounded to decimals) and itself but those of
    more digits; cut to one significant digit, then the powers of ten above it."""
    path = write_module(
        "tails",
        """
        def tail(p: float) -> str:
            if 0 < p < 0.075:
                return "low"
            return "central"
        """,
    )
    problem = problem_for(path, "tail")
    cache = cache_for(problem)
    test = (Statement("value", value=0.00055), Statement("call", "tail", (("p", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    assert _values(shrunk.test) == [0.01]


def test_a_floats_whole_part_shrinks_and_its_fraction_stays(write_module):
    """A goal held by the fraction (``pstdev([False, False, -524.03125])``: a weak mutant of
    the square root's rounding): rounding loses it, halving steps add digits; moving the
    whole part toward 0 keeps it."""
    path = write_module(
        "odd32",
        """
        def odd(x: float) -> str:
            if x < -100 and x * 32 % 2 == 1:
                return "odd"
            return "other"
        """,
    )
    problem = problem_for(path, "odd")
    cache = cache_for(problem)
    test = (Statement("value", value=-524.03125), Statement("call", "odd", (("x", 0),)))
    _, covered = cache(test)
    shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    assert _values(shrunk.test) == [-100.03125]


HALVES = '''
import datetime


def half(day: datetime.date) -> int:
    """>>> half(datetime.date(2008, 2, 28))"""
    if day.month > 6:
        return 2
    return 1
'''


def test_a_date_moves_to_a_year_the_module_names_and_the_first_of_its_month(write_module):
    """``date(1982, 10, 16)`` holds the ``month > 6`` branch; ``date(2008, 10, 1)`` does too,
    2008 from the module's own example."""
    from miogen.minimize.readable import module_years

    path = write_module("halves", HALVES)
    problem = problem_for(path, "half")
    cache = cache_for(problem)
    test = (
        Statement("value", value=datetime.date(1982, 10, 16)),
        Statement("call", "half", (("day", 0),)),
    )
    _, covered = cache(test)
    years = module_years(path.read_text())
    assert years == (2008,)
    shrunk = Shrinker(cache, time.monotonic() + 30, years=years).shrink(ReducedTest(test, covered))
    assert _values(shrunk.test) == [datetime.date(2008, 10, 1)]
    without = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
    assert _values(without.test) == [datetime.date(2000, 10, 1)]  # 2000 where none is named


READER = """
class Reader:
    def __init__(self, text: str = "", name: object = None) -> None:
        self.text = text
        self.name = name

    def words(self) -> list[str]:
        if " " in self.text:
            return self.text.split()
        return [self.text]
"""


def test_a_keyword_the_call_never_reads_goes_in_the_first_pass(write_module):
    """``Reader(text="a b", name=-743).words()``: ``name`` is stored and never read by
    ``words``; the first pass (the one every kept test gets, ``reduce_suite``) leaves it out,
    not only the later rounds a loaded machine may not reach (stdlib_shlex's ``infile=-743``).
    """
    problem = problem_for(write_module("readers", READER), "Reader")
    cache = cache_for(problem)
    test = (
        Statement("value", value="a b"),
        Statement("value", value=-743),
        Statement("construct", "Reader", (("text", 0), ("name", 1))),
        Statement("method", "words", receiver=2),
    )
    _, covered = cache(test)
    signatures = problem.factory.signature
    shrunk = Shrinker(cache, time.monotonic() + 30, signature_of=signatures).plain(
        ReducedTest(test, covered)
    )
    construct = next(s for s in shrunk.test if s.kind == "construct")
    assert [name for name, _ in construct.args] == ["text"], shrunk.test
    assert covered <= cache(shrunk.test)[1]


STAMPS = """
import datetime


def stamp(when: datetime.datetime) -> str:
    if when.year > 1999:
        return "new"
    return "old"


def local(when: datetime.datetime) -> str:
    if when.tzinfo is None:
        return "local"
    return "aware"
"""


def test_a_naive_datetime_becomes_aware_where_the_test_keeps_its_goals(write_module):
    """A naive datetime means the local time of whichever machine runs the test (ruff's
    DTZ001): where the code takes either, the test's is in UTC; where the code tells them
    apart (``local``), it stays naive."""
    path = write_module("stamps", STAMPS)
    for unit, aware in (("stamp", True), ("local", False)):
        problem = problem_for(path, unit)
        cache = cache_for(problem)
        test = (
            Statement("value", value=datetime.datetime(2010, 3, 1, 5, 0)),
            Statement("call", unit, (("when", 0),)),
        )
        _, covered = cache(test)
        shrunk = Shrinker(cache, time.monotonic() + 30).shrink(ReducedTest(test, covered))
        value = shrunk.test[0].value
        assert isinstance(value, datetime.datetime), shrunk.test
        assert (value.tzinfo is not None) == aware, shrunk.test
        assert (value.year, value.month, value.day, value.hour) == (2000, 1, 1, 0), shrunk.test
