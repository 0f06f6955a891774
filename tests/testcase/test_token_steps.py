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
from miogen.testcase.tokens import separators_of, token_pool, tokenize

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
