"""Inputs shaped by the module's regular expressions, found within a fixed evaluation budget at
a fixed seed (issue 23, part 6): a string that must match a pattern the module builds from its
constants, one that must repeat a group (a backreference), and match objects for functions that
take one (annotated ``re.Match[str]``, or used as one: ``m.group(...)``).

None of these patterns is "simple" (analysis.patterns), so the probes give no distance towards
them: random strings and one-character edits never get past the guard. With the strings that
analysis.regexes writes for the patterns (in the unit's string pool) and the match objects made
from them, every branch of each toy is covered; without them the inside branches are missed.
"""

from __future__ import annotations

import random
import re

import pytest
from miogen.analysis.module import analyze_source
from miogen.testcase import stdlib_values
from miogen.testcase.sampling import TestFactory, unit_regex_strings
from worker.helpers import missed_by_mio

EVALUATIONS = 300

TOYS = {
    # a module-level pattern built from constants, guarding with re.fullmatch
    "releases": r"""
        import re

        NUMBER = r"\d+"
        VERSION = "v" + NUMBER + r"(\.\d+)+" + "(-(alpha|beta|rc)%s)?" % NUMBER

        def release(text: str) -> str:
            if not re.fullmatch(VERSION, text):
                return "invalid"
            if "-" in text:
                return "pre-release"
            return "final"
        """,
    # a compiled pattern with a backreference, used through its name
    "tags": r"""
        import re

        TAG = re.compile(r"<(\w+)>([^<]*)</\1>")

        def inner(html: str) -> str:
            found = TAG.fullmatch(html)
            if found is None:
                return ""
            return found.group(2)
        """,
    # a match object, annotated
    "versions": r"""
        import re

        VERSION_RE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))*")

        def version(m: re.Match[str]) -> tuple[int, int, int]:
            major, minor, patch = m.groups()
            if patch is None:
                return int(major), int(minor), 0
            return int(major), int(minor), int(patch)
        """,
    # a match object, not annotated but used as one
    "converters": r"""
        import re

        AM_PAT = r"(\s+[AP]M)"
        DAY_PAT = r"(Mon|Tue|Wed)(day)?"

        def meridiem(string, match):
            groups = match.groups()
            if len(groups) > 1 and groups[1]:
                return "long"
            if groups[0].strip() == "PM":
                return "afternoon"
            return "morning"
        """,
}
UNITS = {"releases": "release", "tags": "inner", "versions": "version",
         "converters": "meridiem"}  # fmt: skip


@pytest.mark.parametrize("toy", sorted(TOYS))
def test_every_branch_is_covered_within_the_budget(write_module, toy):
    assert missed_by_mio(write_module(toy, TOYS[toy]), UNITS[toy], EVALUATIONS) == []


def test_the_unit_samples_strings_its_patterns_match():
    source = TOYS["releases"].replace("\n        ", "\n")
    model = analyze_source(source, "releases.py", "releases")
    pattern = r"v\d+(\.\d+)+(-(alpha|beta|rc)\d+)?"
    examples = unit_regex_strings(source, model.unit("release"))
    assert examples and all(re.fullmatch(pattern, text) for text in examples)
    factory = TestFactory(model, model.unit("release"))
    rng = random.Random(3)
    sampled = [factory.primitive("str", rng) for _ in range(200)]
    assert sum(bool(re.fullmatch(pattern, text)) for text in sampled) >= 20


def test_a_match_parameter_gets_a_match_of_a_module_pattern():
    source = TOYS["converters"].replace("\n        ", "\n")
    model = analyze_source(source, "converters.py", "converters")
    match = model.functions["meridiem"].params[1]
    assert "re.Match" in str(match.type)
    assert set(model.constants.patterns) == {(r"(\s+[AP]M)", 0), (r"(Mon|Tue|Wed)(day)?", 0)}
    rng = random.Random(1)
    made = [stdlib_values.sample("re.Match", rng, model.constants) for _ in range(20)]
    assert {m.re.pattern for m in made} == {r"(\s+[AP]M)", r"(Mon|Tue|Wed)(day)?"}
    for m in made:
        again = stdlib_values.decode(stdlib_values.encode(m))  # type: ignore[arg-type]
        assert isinstance(again, re.Match) and again.groups() == m.groups()
        assert stdlib_values.key(again) == stdlib_values.key(m)
