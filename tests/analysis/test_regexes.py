"""The module's regular expressions and strings they match (analysis.regexes): which patterns a
module uses and on which lines, folded from its constants; examples that the pattern matches as a
whole, on every CPython from 3.10 (whose parser is ``sre_parse``) to 3.13."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from miogen.analysis import regexes
from miogen.analysis.module import analyze_source
from miogen.analysis.regexes import RegexUse, examples, examples_of, uses_of

MODULE = textwrap.dedent(r"""
    import re

    NUMBER = r"\d+"
    VERSION = "v" + NUMBER + r"(\.\d+)*"
    MONTHS = {"Jan": 1, "Feb": 2}
    MONTH_PAT = r"(%s)" % "|".join(MONTHS)
    TIME_RE = f"{NUMBER}:{NUMBER}"
    KEY = re.compile(r"(?P<key>\w+)=(?P<value>[^;]*)", re.IGNORECASE | re.ASCII)
    GREETING = "hello"
    AMBIGUOUS_PAT = "a"
    AMBIGUOUS_PAT = "b"


    class Reader:
        LINE = re.compile("{}-{}".format(NUMBER, "x"))

        def read(self, text):
            return self.LINE.match(text)


    def check(text, dynamic):
        if re.fullmatch(VERSION, text, flags=re.I):
            return KEY.findall(text)
        re.search(dynamic, text)
        return re.sub("[aeiou]+", "", text)
    """)


def test_the_module_s_patterns_are_found_where_they_are_used():
    uses = uses_of(MODULE)
    found = {(use.pattern, use.flags) for use in uses}
    assert found == {
        (r"v\d+(\.\d+)*", re.I),  # folded from constants; flags by keyword
        (r"(Jan|Feb)", 0),  # a "%" of a join of a dict's keys; named as a pattern
        (r"\d+:\d+", 0),  # an f-string, named as a pattern
        (r"(?P<key>\w+)=(?P<value>[^;]*)", re.I | re.A),  # compiled, with its flags
        (r"\d+-x", 0),  # str.format, compiled in a class
        ("[aeiou]+", 0),
    }
    lines = MODULE.splitlines()
    by_pattern = {p: [u.line for u in uses if u.pattern == p] for p, _ in found}
    # KEY: where it is compiled, and in check() where its method is called
    assert [lines[n - 1].strip()[:15] for n in by_pattern[r"(?P<key>\w+)=(?P<value>[^;]*)"]] == [
        "KEY = re.compil",
        "return KEY.find",
    ]
    assert "self.LINE.match" in lines[by_pattern[r"\d+-x"][-1] - 1]
    assert all(isinstance(use, RegexUse) for use in uses)


def test_what_does_not_fold_or_compile_is_left_out():
    source = 'import re\nP = "("\ndef f(s, p):\n    re.match(P, s)\n    re.match(p + "a", s)\n'
    assert uses_of(source) == ()
    assert uses_of("def f(:") == ()


PATTERNS = [
    r"^(\d+)\.(\d+)(?:\.(\d+))?(?P<pre>[ab]\d+)?$",
    r"(?i)v?(\d+)!?",
    r"(a)(?(1)b|c)",
    r"(\w+)@\1",
    r"(?<!x)y",
    r"[^\W\d]+\s*[^a-z]",
    r".*?\b(foo|bar)\b",
    r"(?x) a  b  # spaces and comments",
    r"(?:ab){2,}c{3}",
    r"[\u0400-\u04ff]+",
    r"(?>a+)b",  # atomic (3.11)
    r"a++b*+",  # possessive (3.11)
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_examples_match_their_pattern_as_a_whole(pattern: str):
    found = examples_of(pattern)
    assert found, pattern
    assert all(re.fullmatch(pattern, text) for text in found)
    assert list(found) == sorted(found, key=len)
    assert examples_of.__wrapped__(pattern) == found  # the same ones every time


def test_what_the_generator_cannot_satisfy_gives_no_example():
    assert examples(r"(?=\d)\w+", 0, random.Random(0)) == []  # a lookahead that must see text
    assert examples(r"(", 0, random.Random(0)) == []  # not a pattern
    assert examples(r"a{1000}", 0, random.Random(0)) == []  # longer than an example may be


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-c\\d\.\(\)\|\*\+\?]{1,12}", fullmatch=True))
def test_any_pattern_gives_matching_examples_or_none(pattern: str):
    try:
        re.compile(pattern)
    except re.error:
        return
    assert all(re.fullmatch(pattern, text) for text in examples(pattern, 0, random.Random(1)))


def test_the_constant_pool_gets_examples_and_patterns():
    model = analyze_source(MODULE, "mod.py", "mod")
    pool = model.constants
    assert ("[aeiou]+", 0) in pool.patterns
    assert any(re.fullmatch(r"v\d+(\.\d+)*", s) for s in pool.strings)
    assert any(re.fullmatch(r"\d+:\d+", s) for s in pool.strings)


PYTHONS = ["3.10", "3.12", "3.13"]


def _python(version: str) -> str | None:
    home = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for candidate in sorted(home.glob(f"{version}.*")):
        if (candidate / "bin" / "python").exists():
            return str(candidate / "bin" / "python")
    return None


@pytest.mark.parametrize("version", PYTHONS)
def test_the_generator_works_on_other_pythons(version: str, tmp_path: Path):
    """The worker runs in the project's Python: the module (and analysis/patterns.py, whose
    character classes it shares) needs only the standard library, and reads patterns with
    ``sre_parse`` where ``re._parser`` is not there yet (3.10)."""
    python = _python(version)
    if python is None:
        pytest.skip(f"no CPython {version} here")
    script = (
        "import json, re, sys\n"
        f"sys.path.insert(0, {str(Path(regexes.__file__).parents[2])!r})\n"
        "from miogen.analysis import regexes as module\n"
        f"patterns = {[p for p in PATTERNS if '>' not in p and '++' not in p]!r}\n"
        "found = {p: list(module.examples_of(p)) for p in patterns}\n"
        "uses = [u.pattern for u in module.uses_of(sys.stdin.read())]\n"
        "print(json.dumps([found, uses]))\n"
    )
    done = subprocess.run(
        [python, "-W", "error::DeprecationWarning", "-c", script],
        input=MODULE, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found, uses = json.loads(done.stdout)
    for pattern, texts in found.items():
        assert texts and all(re.fullmatch(pattern, text) for text in texts), pattern
    assert set(uses) == {use.pattern for use in uses_of(MODULE)}
    assert sys.version_info >= (3, 11)  # this side's own run reads re._parser
