"""Which mutants the project's suite kills: its tests of the unit, run against each mutant."""

from __future__ import annotations

import ast
from pathlib import Path

from miogen.analysis.model import Unit
from miogen.analysis.module import analyze_file
from miogen.assertions.mutants import list_mutants, mutant_source
from miogen.host.adds import keep_what_adds
from miogen.host.baseline import Baseline, FileCoverage, project_baseline
from miogen.host.interpreter import OWN
from miogen.host.suite_kills import (
    KILLS_PATH,
    Keeping,
    MutantId,
    SuiteKills,
    _Runner,
    suite_kills,
)

SUBJECT = """\
def size(x: int) -> str:
    if x >= 10:
        return "big"
    return "small"


def unused(x: int) -> int:
    return x + 1
"""

TESTS = """
from pkg.subject import size


def test_big():
    assert size(50) == "big"


class TestSmall:
    def test_small(self):
        assert size(1) == "small"
"""


def judged(
    baseline: Baseline, path: Path, name: str, source: str, units: list[Unit], mutants, **options
) -> SuiteKills:
    """``suite_kills`` given the baseline's answer about the module, as the verification asks
    for it (once per job, ``Baseline.of_module``)."""
    answer = baseline.of_module(path, source, units)
    return suite_kills(answer, path, name, source, units, mutants, **options)


def project(write_project) -> Path:
    files = {"pkg/__init__.py": "", "pkg/subject.py": SUBJECT, "tests/test_subject.py": TESTS}
    return write_project(files)


def test_the_suites_tests_of_the_unit_run_against_each_mutant_and_are_cached(write_project):
    root = project(write_project)
    path = root / "pkg" / "subject.py"
    model = analyze_file(path, "pkg.subject")
    size, unused = model.unit("size"), model.unit("unused")
    described = {m.description: m.index for m in list_mutants(SUBJECT, size)}
    everything = {("size", i) for i in described.values()}
    everything |= {("unused", m.index) for m in list_mutants(SUBJECT, unused)}
    baseline = project_baseline(root)
    assert baseline.ran and not baseline.error
    found = judged(baseline, path, "pkg.subject", SUBJECT, model.units, everything)
    # x >= 10 -> x > 10 and 10 -> 11: size(50) and size(1) cannot tell them apart
    boundary = {("size", described["GtE -> Gt"]), ("size", described["10 -> 11"])}
    unreached = {m for m in everything if m[0] == "unused"}  # no test runs it: no run
    assert found.alive == boundary | unreached
    assert found.killed == everything - found.alive
    assert found.runs == 1 + len(everything - unreached)  # the original once, then each mutant
    assert path.read_text(encoding="utf-8") == SUBJECT  # imported from text, never written
    assert (root / KILLS_PATH).exists()
    again = judged(baseline, path, "pkg.subject", SUBJECT, model.units, everything)
    assert (again.killed, again.alive, again.runs) == (found.killed, found.alive, 0)


def test_mutants_past_the_cap_are_not_judged_and_those_no_test_runs_are_alive(write_project):
    """The cap is of runs: ``unused``'s mutants, which no test runs, are alive with no run
    whatever the cap (the cap counted them killed: a test that kills them was dropped), and
    ``size``'s, past a cap of 0, are not judged, neither killed nor alive."""
    root = project(write_project)
    path = root / "pkg" / "subject.py"
    model = analyze_file(path, "pkg.subject")
    sized = {("size", m.index) for m in list_mutants(SUBJECT, model.unit("size"))}
    unused = {("unused", m.index) for m in list_mutants(SUBJECT, model.unit("unused"))}
    found = judged(
        project_baseline(root), path, "pkg.subject", SUBJECT, model.units, sized | unused, limit=0
    )
    assert found.alive == unused and found.unjudged == sized and not found.killed
    assert found.runs == 0
    assert found.notes == [f"{len(sized)} of the {len(sized)} mutants the suite runs not judged "
                           "(a cap of 0 runs)"]  # fmt: skip


BIG_ONLY = """
from pkg.subject import tier


def test_big():
    assert tier(50) == "big"
"""


def test_a_mutant_on_a_line_no_test_runs_is_alive_before_the_cap_is_counted(write_project):
    """``tier``'s suite runs lines 1-3, never line 4: its mutants there are alive with no run,
    even past the cap (they were counted killed by the suite, and a generated test of
    ``tier(-1)`` that kills them added nothing); of those the suite runs, a fixed sample of
    ``limit`` runs and the others are not judged."""
    root = write_project(
        {"pkg/__init__.py": "", "pkg/subject.py": TIERS, "tests/test_subject.py": BIG_ONLY}
    )
    path = root / "pkg" / "subject.py"
    tier = analyze_file(path, "pkg.subject").unit("tier")
    mutants = list_mutants(TIERS, tier)
    line4 = {("tier", m.index) for m in mutants if m.line == 4}
    run = {("tier", m.index) for m in mutants if m.line != 4}
    assert line4 and len(run) > 2
    baseline = project_baseline(root)
    found = judged(baseline, path, "pkg.subject", TIERS, [tier], line4 | run, limit=2)
    assert line4 <= found.alive, found
    assert len(found.killed | (found.alive - line4)) == 2 and found.unjudged
    assert found.killed | found.alive | found.unjudged == line4 | run
    assert found.runs == 1 + 2  # the original once, then the two sampled
    # Asked again, the cache answers the two judged: the cap's two runs judge two more.
    again = judged(baseline, path, "pkg.subject", TIERS, [tier], line4 | run, limit=2)
    assert again.killed >= found.killed and again.alive >= found.alive
    assert again.unjudged < found.unjudged and len(again.unjudged) == len(found.unjudged) - 2


def test_contexts_become_pytest_node_ids(write_project):
    root = project(write_project)
    runner = _Runner(root, "pkg.subject", root / "pkg" / "subject.py", None, 1.0)  # type: ignore[arg-type]
    assert runner.selection(["test_subject.test_big", "test_subject.TestSmall.test_small"]) == (
        "tests/test_subject.py::TestSmall::test_small",
        "tests/test_subject.py::test_big",
    )
    (root / "other").mkdir()
    (root / "other" / "test_subject.py").write_text("", encoding="utf-8")
    ambiguous = _Runner(root, "pkg.subject", root / "pkg" / "subject.py", None, 1.0)  # type: ignore[arg-type]
    # two files the context may name: both run whole
    assert ambiguous.selection(["test_subject.test_big"]) == (
        "other/test_subject.py",
        "tests/test_subject.py",
    )


MULTILINE = """\
def within(x: int, low: int = 0) -> bool:
    ok = (
        x >= low
        and x < 10  # the upper bound
    )
    return ok
"""


def test_a_mutant_changes_only_its_expression_and_keeps_every_line(tmp_path):
    path = tmp_path / "within.py"
    path.write_text(MULTILINE, encoding="utf-8")
    unit = analyze_file(path, "within").unit("within")
    mutants = list_mutants(MULTILINE, unit)
    assert mutants
    for mutant in mutants:
        text = mutant_source(MULTILINE, unit, mutant.index)
        assert text.count("\n") == MULTILINE.count("\n"), text
        assert text.splitlines()[-1] == "    return ok"  # lines after it keep their text
        assert ast.dump(ast.parse(text)) != ast.dump(ast.parse(MULTILINE))
    negated = mutant_source(MULTILINE, unit, [m.operator for m in mutants].index("LCR"))
    assert "x >= low or x < 10" in negated


SLOW_TESTS = """
import time

from pkg.subject import size


def test_big():
    time.sleep(4)  # waits: the clock runs, the CPU does not
    assert size(50) == "big"


def test_small():
    assert size(1) == "small"
"""


def test_a_run_is_timed_by_its_cpu_not_by_the_clock(write_project):
    """A busy machine makes every run slower by the clock, not by its CPU time: a run that
    takes longer than ``timeout`` by the clock while using far less CPU is no timeout (it was,
    and counted the mutants killed: a test that kills them was then left out)."""
    root = write_project(
        {"pkg/__init__.py": "", "pkg/subject.py": SUBJECT, "tests/test_subject.py": SLOW_TESTS}
    )
    path = root / "pkg" / "subject.py"
    model = analyze_file(path, "pkg.subject")
    size = model.unit("size")
    described = {m.description: m.index for m in list_mutants(SUBJECT, size)}
    boundary = {("size", described["GtE -> Gt"]), ("size", described["10 -> 11"])}
    baseline = project_baseline(root)
    assert baseline.ran and not baseline.error
    found = judged(baseline, path, "pkg.subject", SUBJECT, model.units, boundary, timeout=3.0)
    assert found.alive == boundary and not found.killed, found.notes
    assert found.runs == 1 + len(boundary)


def test_each_mutant_is_planned_in_one_pass_then_run_once():
    """The mutants' data (text, tests, cache key) are made in one pass before any run, and the
    judge asks the runner in one place, once per mutant (the original's run is the runner's)."""
    import ast
    import inspect

    from miogen.host import suite_kills as module

    def calls(code: object) -> list[str]:
        tree = ast.parse(inspect.getsource(code))  # type: ignore[arg-type]
        return [
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
        ]

    called, judged = calls(module.suite_kills), calls(module._Judge)
    assert judged.count("verdict") == 1 and "verdict" not in called
    assert "run" not in called + judged
    assert called.count("_planned") == 1
    assert not {"mutant_source", "_key"} & set(called + judged)


TIERS = """\
def tier(x: int) -> str:
    if x >= 10:
        return "big" if x < 1000 else "huge"
    return "small" if x >= 0 else "negative"
"""

TIER_TESTS = """
from pkg.subject import tier


def test_big():
    assert tier(50) == "big"


def test_small():
    assert tier(1) == "small"
"""


def spied(monkeypatch) -> list[tuple[tuple[str, ...], str | None]]:
    """The runs the runner makes: (pytest's node ids, the mutated text or None: the original)."""
    ran: list[tuple[tuple[str, ...], str | None]] = []
    run = _Runner.run

    def counted(runner: _Runner, selection: tuple[str, ...], text: str | None) -> str:
        ran.append((tuple(selection), text))
        return run(runner, selection, text)

    monkeypatch.setattr(_Runner, "run", counted)
    return ran


def every_test(root: Path, path: Path, source: str, unit: Unit) -> set[MutantId]:
    """The unit's mutants the whole suite kills, each run against every test."""
    runner = _Runner(root, "pkg.subject", path, OWN, 60.0)
    assert runner.run(("tests",), None) == "passed"
    return {
        (unit.name, m.index)
        for m in list_mutants(source, unit)
        if runner.run(("tests",), mutant_source(source, unit, m.index)) != "passed"
    }


def test_a_mutant_runs_only_the_tests_that_run_its_lines_with_the_verdicts_of_all(
    write_project, monkeypatch
):
    """``x < 1000`` (line 3) runs in ``test_big`` alone: its mutants run against it alone; those
    of line 2 against both tests, of line 4 against ``test_small``. The verdicts are those of
    every test against every mutant; the original runs once, for the tests of all of them."""
    root = write_project(
        {"pkg/__init__.py": "", "pkg/subject.py": TIERS, "tests/test_subject.py": TIER_TESTS}
    )
    path = root / "pkg" / "subject.py"
    tier = analyze_file(path, "pkg.subject").unit("tier")
    mutants = list_mutants(TIERS, tier)
    everything = {("tier", m.index) for m in mutants}
    baseline = project_baseline(root)
    assert baseline.ran and not baseline.error
    ran = spied(monkeypatch)
    found = judged(baseline, path, "pkg.subject", TIERS, [tier], everything)
    line = {mutant_source(TIERS, tier, m.index): m.line for m in mutants}
    big, small = "tests/test_subject.py::test_big", "tests/test_subject.py::test_small"
    tests_of = {line[text]: tests for tests, text in ran if text is not None}
    assert tests_of == {2: (big, small), 3: (big,), 4: (small,)}, ran
    assert [tests for tests, text in ran if text is None] == [(big, small)]
    assert found.runs == len(ran) == 1 + len(everything)
    monkeypatch.undo()
    killed = every_test(root, path, TIERS, tier)
    assert (found.killed, found.alive) == (killed, everything - killed)
    assert found.alive and found.killed


AT_IMPORT = (
    TIERS
    + """
TABLE = tier(5)
"""
)

TABLE_TESTS = """
from pkg.subject import TABLE, tier


def test_big():
    assert tier(50) == "big"


def test_table():
    assert tier(50) == "big"
    assert TABLE == "small"
"""


def test_a_line_run_outside_any_test_runs_the_units_tests(write_project):
    """Line 4 runs only as the module is imported (``TABLE``), in no test: the lines cannot
    tell which tests see what it did, so its mutants run against the unit's tests, and
    ``test_table`` kills those that change ``TABLE``, as every test does."""
    root = write_project(
        {"pkg/__init__.py": "", "pkg/subject.py": AT_IMPORT, "tests/test_subject.py": TABLE_TESTS}
    )
    path = root / "pkg" / "subject.py"
    tier = analyze_file(path, "pkg.subject").unit("tier")
    line4 = {("tier", m.index) for m in list_mutants(AT_IMPORT, tier) if m.line == 4}
    baseline = project_baseline(root)
    assert baseline.ran and not baseline.error
    found = judged(baseline, path, "pkg.subject", AT_IMPORT, [tier], line4)
    killed = every_test(root, path, AT_IMPORT, tier) & line4
    assert killed and found.killed == killed and found.alive == line4 - killed


def test_every_mutant_is_planned_from_one_parse_of_the_module(tmp_path, monkeypatch):
    """``_planned`` makes each mutant's text and lines from one parse of the module (it parsed
    the module twice per mutant: once for the text, once for the lines); the texts and lines
    are those of a fresh parse per mutant."""
    from miogen.assertions import mutants as mutants_module
    from miogen.host.baseline import Baseline
    from miogen.host.suite_kills import _LineTests, _planned

    path = tmp_path / "subject.py"
    path.write_text(TIERS, "utf-8")
    tier = analyze_file(path, "subject").unit("tier")
    chosen = [("tier", m.index) for m in list_mutants(TIERS, tier)]
    assert len(chosen) > 3
    expected = {
        ("tier", i): (mutant_source(TIERS, tier, i), mutants_module.mutant_lines(TIERS, tier, i))
        for _, i in chosen
    }
    parsed: list[str | bytes] = []
    parse = mutants_module.parse

    def counted(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
        parsed.append(source)
        return parse(source, filename)

    monkeypatch.setattr(mutants_module, "parse", counted)
    baseline = Baseline(tmp_path, ran=True)
    runner = _Runner(tmp_path, "subject", path, OWN, 1.0)
    plans = _planned(
        chosen, TIERS, {"tier": tier}, {"tier": set()}, _LineTests(baseline.coverage_of(path)), runner,
        "key", path, SuiteKills(),
    )  # fmt: skip
    assert parsed.count(TIERS) == 1
    assert {p.mutant: p.text for p in plans} == {m: text for m, (text, _) in expected.items()}
    assert all(p.selection is None for p in plans)  # no test runs them: nothing is run


def test_the_modules_coverage_is_asked_of_the_baseline_once(tmp_path: Path) -> None:
    """Each unit's tests and each line's come from one answer of the baseline for the module
    (issue 25: it was asked again for every unit, and once more for the lines)."""
    asked: list[Path] = []

    class Counted(Baseline):
        def coverage_of(self, path: Path) -> FileCoverage:
            asked.append(path)
            return super().coverage_of(path)

    path = tmp_path / "subject.py"
    path.write_text(SUBJECT, "utf-8")
    model = analyze_file(path, "subject")
    assert len(model.units) == 2
    mutants = {(unit.name, m.index) for unit in model.units for m in list_mutants(SUBJECT, unit)}
    found = judged(Counted(tmp_path, ran=True), path, "subject", SUBJECT, model.units, mutants)
    assert found.alive == mutants and found.runs == 0  # no test of the suite runs them
    assert asked == [path]


def tiers_project(write_project) -> tuple[Path, Baseline, Unit]:
    """``tier`` with a suite of ``tier(50)`` alone: of line 2's and 3's mutants it kills 2
    (``x == 10``), 6 and 7 (a condition negated), and leaves 0, 1, 3, 4 and 5 alive."""
    root = write_project(
        {"pkg/__init__.py": "", "pkg/subject.py": TIERS, "tests/test_subject.py": BIG_ONLY}
    )
    tier = analyze_file(root / "pkg" / "subject.py", "pkg.subject").unit("tier")
    baseline = project_baseline(root)
    assert baseline.ran and not baseline.error
    return root, baseline, tier


def test_a_kill_that_decides_is_judged_first_and_keeps_its_test(write_project, monkeypatch):
    """``covers`` adds a target, so it is kept whatever it kills: its kill 2, which ``kills``
    kills too, decides nothing and costs no run. ``kills`` adds no target: its kill 5, alive,
    decides that it is kept, and the cap's one run goes to it; ``left``'s 7 would decide too,
    but no run is left: it is not judged, and ``left`` not kept. (A sample spread over the
    mutants ran 2, the first: 5 was not judged and ``kills`` was dropped.)"""
    root, baseline, tier = tiers_project(write_project)
    path = root / "pkg" / "subject.py"
    kills = {
        "covers": {("tier", 2), ("tier", 6)},
        "kills": {("tier", 2), ("tier", 5)},
        "left": {("tier", 7)},
    }
    covers = {"covers": [7], "kills": [1], "left": [1]}
    keeping = Keeping(["covers", "kills", "left"], covers, [1], kills)
    ran = spied(monkeypatch)
    mutants = {m for each in kills.values() for m in each}
    found = judged(baseline, path, "pkg.subject", TIERS, [tier], mutants, limit=1, keeping=keeping)
    assert [text for _, text in ran if text is not None] == [mutant_source(TIERS, tier, 5)]
    assert found.alive == {("tier", 5)} and not found.killed
    assert found.unjudged == {("tier", 2), ("tier", 6), ("tier", 7)}
    assert found.notes == [
        "3 of the 4 mutants the suite runs not judged (a cap of 1 runs; 1 of them killed by "
        "no test kept)"
    ]
    suite_killed = found.killed | found.unjudged
    kept = keep_what_adds(keeping.order, covers, keeping.suite, kills, suite_killed)
    assert kept == ["covers", "kills"]


def test_a_tests_kills_are_judged_until_one_is_alive_then_the_runs_left_count(
    write_project, monkeypatch
):
    """``second`` adds a target: its kills (0, 2, 6) wait. ``first`` adds none: its kills are
    judged in turn until one is alive (1: the decision; 5 is not needed for it). The runs left
    go to what the kept tests kill, a sample spread over it (0 and 5, for "+M mutants
    killed"); 2 and 6 are not judged, said so."""
    root, baseline, tier = tiers_project(write_project)
    path = root / "pkg" / "subject.py"
    kills = {"second": {("tier", 0), ("tier", 2), ("tier", 6)}, "first": {("tier", 1), ("tier", 5)}}
    covers = {"second": [2], "first": [1]}
    keeping = Keeping(["second", "first"], covers, [1], kills)
    ran = spied(monkeypatch)
    mutants = {m for each in kills.values() for m in each}
    found = judged(baseline, path, "pkg.subject", TIERS, [tier], mutants, limit=3, keeping=keeping)
    texts = [text for _, text in ran if text is not None]
    assert texts == [mutant_source(TIERS, tier, i) for i in (1, 0, 5)]
    assert found.alive == {("tier", 0), ("tier", 1), ("tier", 5)} and not found.killed
    assert found.unjudged == {("tier", 2), ("tier", 6)}
    assert found.notes == ["2 of the 5 mutants the suite runs not judged (a cap of 3 runs)"]
    suite_killed = found.killed | found.unjudged
    kept = keep_what_adds(keeping.order, covers, keeping.suite, kills, suite_killed)
    assert kept == ["second", "first"]
