"""``QuickParser`` (analysis.targets) gives exactly what coverage.py's own parser gives.

The branch targets are coverage.py's arcs; the quick parser only finds the statements' lines
another way (the interpreter's tokenizer, the bytecode compiled from the parsed tree). Compared
here on every module of miogen itself, the examples, and texts made to find the edges.
"""

from __future__ import annotations

import re
from pathlib import Path

import coverage.parser
import hypothesis
import hypothesis.strategies as st
import pytest
from coverage.config import DEFAULT_EXCLUDE
from coverage.exceptions import NotPython
from coverage.misc import join_regex
from coverage.parser import PythonParser
from miogen.analysis import targets
from miogen.analysis.module import analyze_source, unit_targets
from miogen.analysis.targets import QuickParser, parse_code, target_id

from bench.big_file import module_text

ROOT = Path(__file__).resolve().parents[2]
EXCLUDE = join_regex(DEFAULT_EXCLUDE)

EDGES = {
    "empty": "",
    "comments only": "# one\n# two\n",
    "no final line break": "def f(x):\n    if x:\n        return 1\n    return 2",
    "crlf": "def f(x):\r\n    if (x and\r\n            x > 1):\r\n        return 1\r\n    return 2\r\n",
    "lone cr": "def f(x):\r    if x:\r        return 1\r    return 2\r",
    "pragma": (
        "def f(x):\n    if x:  # pragma: no cover\n        return 1\n    return 2\n\n"
        "def g():  # pragma: no cover\n    return 3\n"
    ),
    "continuations": (
        '@decorate(\n    1,\n)\ndef f(x, \\\n      y):\n    """Doc\n\n    more."""\n'
        "    z = [\n        x,  # a comment\n\n        y,\n    ]; w = 1\n"
        "    if x: return (1,\n        2)\n    else:\n        s = '''a\nb'''\n"
        "    while y \\\n            and x:\n        y -= 1\n    return f'{x!r:>{y}}'\n"
    ),
    "match and try": (
        "async def f(k):\n    match k:\n        case [1, *rest] if rest:\n            return 1\n"
        "        case {'a': _}:\n            pass\n        case _:\n            return None\n"
        "    try:\n        async with k as v:\n            await v\n    except* ValueError:\n"
        "        raise\n    finally:\n        del k\n"
    ),
    "compiles to an error": "async def f():\n    yield 1\n    return 2\n",
    "form feed and tabs": "def f(x):\n\tif x:\n\t\treturn 1\n\x0c\n\treturn [\n\t\t2]\n",
    "class docstrings": (
        'class A:\n    """A."""\n\n    def m(self):\n        """M."""\n        if self:\n'
        "            return lambda: (yield)\n        return 0\n"
    ),
}


def facts(kind: type[PythonParser], text: str) -> tuple[object, ...]:
    """Everything the analysis reads from coverage.py's parser."""
    parser = kind(text=text or "\n", exclude=EXCLUDE)
    try:
        parser.parse_source()
    except NotPython as error:
        return (str(error),)
    arcs = parser.arcs()
    return (
        parser.statements,
        parser.excluded,
        parser.raw_statements,
        parser.raw_docstrings,
        parser.multiline_map,
        arcs,
        dict(parser.exit_counts()),
        {arc: parser.missing_arc_description(*arc) for arc in sorted(arcs) if arc[0] > 0},
        {line: parser.first_line(line) for line in range(1, text.count("\n") + 3)},
    )


def modules() -> list[Path]:
    found = sorted((ROOT / "server" / "miogen").rglob("*.py"))
    found += sorted((ROOT / "examples").rglob("*.py"))
    found += sorted((ROOT / "bench").glob("*.py"))
    return found


def test_the_quick_parser_is_used_with_the_installed_coverage():
    """The quick path is checked against this coverage.py version; another version (whose
    parser may differ) must be checked by these tests before ``QUICK_PARSE`` admits it."""
    assert targets.QUICK_PARSE, "check QuickParser against this coverage.py, then admit it"
    assert isinstance(parse_code("def f(x):\n    return x\n").parser, QuickParser)


@pytest.mark.parametrize("name", sorted(EDGES))
def test_the_quick_parser_agrees_with_coverage_on_edge_texts(name):
    text = EDGES[name]
    assert facts(QuickParser, text) == facts(PythonParser, text)


def test_the_quick_parser_agrees_with_coverage_on_miogen_and_the_examples():
    checked = 0
    for path in modules():
        text = path.read_text(encoding="utf-8")
        assert facts(QuickParser, text) == facts(PythonParser, text), path
        checked += 1
    assert checked > 100


def test_the_quick_parser_agrees_on_the_big_generated_module():
    text = module_text(250)
    assert facts(QuickParser, text) == facts(PythonParser, text)


def test_a_module_without_exclusions_is_not_tokenized_in_python(monkeypatch):
    """The pure-Python tokenizer was a third of a big module's analysis; a text with nothing
    excluded has its statements' lines from the interpreter's tokenizer instead."""

    def refuse(text):
        raise AssertionError("tokenize ran")

    monkeypatch.setattr(coverage.parser, "generate_tokens", refuse)
    parse_code.cache_clear()
    model = analyze_source(module_text(20), "quick.py", "quick")
    assert any(target.arc for unit in model.units for target in unit.targets)


def test_a_module_with_an_exclusion_takes_coverages_own_path(monkeypatch):
    calls = []
    original = coverage.parser.generate_tokens

    def counted(text):
        calls.append(text)
        return original(text)

    monkeypatch.setattr(coverage.parser, "generate_tokens", counted)
    text = EDGES["pragma"] + "\n# distinct\n"
    parse_code.cache_clear()
    code = parse_code(text)
    assert calls == [text]
    assert code.statements == frozenset(facts(PythonParser, text)[0])  # type: ignore[arg-type]


def test_a_units_targets_from_its_own_lines_are_those_of_the_whole_text():
    """``unit_targets`` parses the units' own lines (the others blank), one unit at a time or
    all at once: every unit, private ones too, of miogen, the examples and the edge texts gets
    exactly the targets, ids included, of the whole text's analysis."""
    texts = [(str(path), path.read_text(encoding="utf-8")) for path in modules()]
    texts += [(name, text) for name, text in EDGES.items() if name != "compiles to an error"]
    compared = 0
    for path, text in texts:
        model = analyze_source(text, path, "m")
        units = [*model.units, *model.private_units]
        if not units:
            continue
        names = [unit.name for unit in units]
        together = unit_targets(text, path, "m", names)
        for unit in units:
            assert together[unit.name] == unit.targets, (path, unit.name)
            if compared % 7 == 0:  # one at a time: another segment
                assert unit_targets(text, path, "m", [unit.name]) == {unit.name: unit.targets}
            compared += 1
    assert compared > 1000


def test_target_ids_name_their_goals():
    """Within a module one id is one goal (an arc, or a line with no branch): two units that
    call one helper share its ids, and no two goals share an id."""
    for path in modules():
        model = analyze_source(path.read_text(encoding="utf-8"), str(path), "m")
        goals: dict[int, tuple[object, ...]] = {}
        for unit in [*model.units, *model.private_units]:
            for target in unit.targets:
                goal = (target.kind, target.arc if target.arc else target.line)
                assert goals.setdefault(target.id, goal) == goal, (path, target)
                assert target_id(target.line, target.arc) == target.id
    assert len({target_id(line, None) for line in range(1, 500)}) == 499
    arcs = [(a, b) for a in range(1, 40) for b in range(-40, 40) if b]
    ids = {target_id(a, (a, b)) for a, b in arcs} | {target_id(a, None) for a in range(1, 40)}
    assert len(ids) == len(arcs) + 39


FRAGMENTS = [
    "\n", "  \n", "\t\n", "\r\n", " ", "#", "# pragma: no cover", "pragma", "no", "cover", ":",
    "if TYPE_CHECKING:", "if typing.TYPE_CHECKING:", "def f()", "async def g()", " -> int", "...",
    ")", "]", "x = 1", "if x:",
]  # fmt: skip


@hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
@hypothesis.given(st.lists(st.sampled_from(FRAGMENTS), max_size=30))
def test_the_quick_exclusion_check_finds_what_coverage_py_finds(pieces):
    text = "".join(pieces)
    pattern = join_regex(DEFAULT_EXCLUDE)
    assert targets.excluding(pattern, text) == bool(re.search(pattern, text, flags=re.MULTILINE))


def test_runs_of_blank_lines_do_not_hide_an_exclusion():
    pattern = join_regex(DEFAULT_EXCLUDE)
    blank = "x = 1\n" + "\n \n" * 500
    assert not targets.excluding(pattern, blank)
    assert targets.excluding(pattern, blank + "    if TYPE_CHECKING:\n        pass\n")
    assert targets.excluding(pattern, "x = 1  #" + "\n \n" * 500 + "pragma: no cover\n")
