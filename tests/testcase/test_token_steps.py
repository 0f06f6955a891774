"""Token steps on strings (testcase.tokens): a parser's inputs changed by whole tokens, taken
from the module's constants and the project's tests, reach the branches that want tokens of a
kind in an order, which one-character edits of the same seeds do not reach in the budget."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from miogen.analysis.module import analyze_source
from miogen.common.records import JobSpec, UnitJob
from miogen.host.supervisor import run_job
from miogen.testcase import tokens
from miogen.testcase.mutation import change_primitive
from miogen.testcase.sampling import TestFactory
from miogen.testcase.tokens import separators_of, tables_of, token_pool, tokenize

# "HH:MM[:SS] [am|pm]": the pm side of an hour before noon, and midnight as "12:.. am", want
# a word and a number the seeds do not hold together ("pm" is only the module's literal, 12
# only the integer it compares with)
CLOCK = """
def parse_clock(text):
    words = text.strip().split(" ")
    if len(words) > 2:
        return None
    fields = words[0].split(":")
    if len(fields) not in (2, 3):
        return None
    if not all(f.isdigit() for f in fields):
        return None
    hour, minute = int(fields[0]), int(fields[1])
    second = int(fields[2]) if len(fields) == 3 else 0
    if len(words) == 2:
        meridian = words[1].lower()
        if meridian == "pm":
            if hour < 12:
                hour += 12
        elif meridian == "am":
            if hour == 12:
                hour = 0
        else:
            return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    return hour * 3600 + minute * 60 + second
"""

CLOCK_TEST = """
from clock import parse_clock


def test_clock():
    assert parse_clock("10:30") == 37800
    assert parse_clock("7:15 am") == 26100
"""


def test_tokens_are_runs_of_a_kind_and_the_modules_separators():
    assert tokenize("10:36:28 PM, Jan") == ["10", ":", "36", ":", "28", " ", "PM", ",", " ", "Jan"]
    assert tokenize("a::b--c", ("::", "--")) == ["a", "::", "b", "--", "c"]
    assert "".join(tokenize("ünï 3.5\t±x")) == "ünï 3.5\t±x"


def test_the_separators_are_those_split_partitioned_or_joined_on():
    source = (
        'COMMASPACE = ", "\nTWICE = "x"\nTWICE = "y"\n'
        'a.split("::")\nb.rpartition("@")\n"--".join(c)\nd.split()\ne.split(sep)\n'
        'COMMASPACE.join(f)\nTWICE.join(g)\nre.split("[,;]", h)\n'
    )
    assert separators_of(source) == (", ", "--", "::", "@")


def test_the_pool_holds_the_tokens_of_its_strings_and_its_integers_as_digits():
    pool = token_pool(("7:15 am", "pm"), (12, -1), ("::",))
    assert pool.by_kind["alpha"] == ("am", "pm")
    assert pool.by_kind["digit"] == ("7", "15", "12")
    assert set(pool.by_kind["other"]) == {":", "::"}
    assert pool.phrases == ("7:15 am",)


def test_a_parser_of_times_is_covered_from_its_tests_strings_by_token_steps(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_clock.py").write_text(CLOCK_TEST)
    (tmp_path / "clock.py").write_text(CLOCK)
    spec = JobSpec(
        path=str(tmp_path / "clock.py"), module_name="clock", import_root=str(tmp_path),
        cwd=str(tmp_path), units=(UnitJob("parse_clock"),), evaluations=300, seed=1,
        mutation_share=0.0,
    )  # fmt: skip
    outcome = run_job(spec)
    result = outcome.units[0].result
    assert result is not None, outcome.message
    # by characters only: 14 of 18 (neither side of "pm" before noon, nor "12:.. am")
    assert len(result.covered) == result.total == 18


def test_the_token_pool_is_built_once_per_factory_pool_not_per_step():
    """The token steps of string mutation take the factory's token pool, built when its pool
    is first asked for and again only when the pool is replaced (``prepare`` adds the project's
    test values): a step in the search's hot loop no longer hashes the pool's strings."""
    model = analyze_source(CLOCK, "clock.py", "clock")
    made = TestFactory(model, model.unit("parse_clock"))
    pool = made.token_pool()
    assert "pm" in pool.by_kind["alpha"] and made.token_pool() is pool
    before = tokens.token_pool.cache_info()
    rng = random.Random(3)
    changed = {change_primitive(made, "10:36 am", rng) for _ in range(300)}
    assert any(":" in str(v) and str(v) != "10:36 am" for v in changed)
    after = tokens.token_pool.cache_info()
    assert (after.hits, after.misses) == (before.hits, before.misses), "no step built it again"
    made.pool = dataclasses.replace(made.pool, strings=(*made.pool.strings, "noon"))
    assert "noon" in made.token_pool().by_kind["alpha"]


# A lexer's parser whose words are in tables (HMS, PERTAIN): "10 h" and "jan of" want a word of
# a table after a number or a month, which the tests never put there; the pool's other words
# (sentences that are no dates, as a real suite has many) drown the tables' few.
WHEN = """
import re

MONTHS = [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april")]
HMS = [("h", "hour", "hours"), ("m", "minute", "minutes")]
ZONES = ["utc", "gmt"]
PERTAIN = ["of"]


def lex(text):
    return re.findall(r"[a-z]+|[0-9]+|[+-]", text.lower())


def index_in(table, word):
    for number, names in enumerate(table):
        if word in names:
            return number
    return None


def parse_all(text):
    return [parse_when(part) for part in text.split(",")]


def parse_when(text):
    tokens = lex(text)
    found = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        following = tokens[i + 1 : i + 2]
        if token.isdigit():
            unit = index_in(HMS, following[0]) if following else None
            if unit is not None:
                found["hms"[unit]] = int(token)
                i += 1
            elif int(token) > 31:
                found["year"] = int(token)
            else:
                found["day"] = int(token)
        elif index_in(MONTHS, token) is not None:
            found["month"] = index_in(MONTHS, token) + 1
            if following and following[0] in PERTAIN:
                found["pertain"] = True
                i += 1
        elif token in ZONES:
            found["zone"] = token
        else:
            return None
        i += 1
    return found
"""

WHEN_TEST = """
import pytest

from when import parse_when


def test_dates():
    assert parse_when("5 jan 2003") == {"day": 5, "month": 1, "year": 2003}
    assert parse_when("2003 feb 7 utc") == {"year": 2003, "month": 2, "day": 7, "zone": "utc"}


@pytest.mark.parametrize(
    "text",
    [
        "lunch with the board at noon",
        "see you next tuesday",
        "the meeting moved to the other room",
        "call Martin about the trust deed",
        "quarterly report due soon",
        "ask Anna for the slides",
        "bring coffee and biscuits",
        "reply to the landlord today",
    ],
)
def test_words_are_not_dates(text):
    assert parse_when(text) is None
"""


def test_the_word_tables_are_literals_of_words_and_punctuation():
    source = (
        'JUMP = [" ", ",", "at", "of"]\nMONTHS = [("Jan", "January"), ("Feb", "February")]\n'
        'PERTAIN = ["of"]\n__all__ = ["parse", "parser"]\nDATA = ["a", 1]\n'
        'PHRASES = ["two words", "x"]\nf(("am", "pm"))\ng(["one"])\n'
    )
    assert tables_of(source) == (
        ("at", "of"),
        ("Jan", "January", "Feb", "February"),
        ("of",),
        ("am", "pm"),
    )


def test_with_word_tables_half_the_words_put_in_are_of_a_table():
    pool = token_pool(
        ("call Martin about the trust deed", "5 jan 2003"), (), (",",), (("of",), ("h", "m"))
    )
    rng = random.Random(0)
    changed = [tokens.mutate_tokens("5 jan 2003", rng, pool) for _ in range(400)]
    tabled = [c for c in changed if set(tokenize(c)) & {"of", "h", "m"}]
    assert len(tabled) > len(changed) // 5
    no_tables = dataclasses.replace(pool, tables=())
    rng = random.Random(0)
    changed = [tokens.mutate_tokens("5 jan 2003", rng, no_tables) for _ in range(400)]
    assert len([c for c in changed if set(tokenize(c)) & {"of", "h", "m"}]) == 0


def test_a_parser_with_word_tables_takes_the_branches_of_their_words(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_when.py").write_text(WHEN_TEST)
    (tmp_path / "when.py").write_text(WHEN)
    spec = JobSpec(
        path=str(tmp_path / "when.py"), module_name="when", import_root=str(tmp_path),
        cwd=str(tmp_path), units=(UnitJob("parse_when"),), evaluations=600, seed=1,
        mutation_share=0.0,
    )  # fmt: skip
    outcome = run_job(spec)
    result = outcome.units[0].result
    assert result is not None, outcome.message
    # without the tables' words 13 of 14: no month followed by "of"
    assert len(result.covered) == result.total == 14
