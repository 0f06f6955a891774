"""A job's objectives: one import for all units, so their mutants share one tally without clashes."""

from __future__ import annotations

import ast
import sys
import tempfile

from miogen.analysis.module import analyze_file
from miogen.assertions.mutants import mutation_points
from miogen.common.records import Algorithm, CriterionCoverage, JobSpec, UnitJob
from miogen.criteria import Criterion, Goal
from miogen.criteria.unit import probe_bases
from miogen.testcase.model import Statement, to_json
from miogen.worker import phases
from miogen.worker.objectives import Objectives, criteria_report

WM = Criterion.WEAK_MUTATION
TWO_UNITS = """
LIMIT = 1000


def ordered(a: int, b: int) -> bool:
    return a < b


def after(a: int, b: int) -> bool:
    if a > LIMIT:
        return b > a
    return ordered(a, b)
"""


def job(path, criteria: str = "all", **options) -> tuple[JobSpec, object]:
    units = (UnitJob("ordered"), UnitJob("after"))
    spec = JobSpec(
        path=str(path), module_name=path.stem, import_root=str(path.parent), units=units,
        scratch=tempfile.mkdtemp(), criteria=criteria, **options,
    )  # fmt: skip
    sys.modules.pop(path.stem, None)
    return spec, analyze_file(path, path.stem)


def test_each_units_mutants_are_numbered_after_the_previous_units(write_module):
    spec, model = job(write_module("twounits", TWO_UNITS))
    units = [model.unit("ordered"), model.unit("after")]
    bases = probe_bases(model.source, units)
    assert bases["ordered"] == 0 and bases["after"] > 0
    assert Objectives.of(spec, model).bases == bases


def test_a_unit_calling_another_units_code_does_not_cover_its_own_mutants(write_module):
    """``after(5, 5)`` runs ``ordered``'s ``5 < 5``, which weakly kills ``ordered``'s first
    mutant (< to <=). ``after``'s own first mutant (``a > LIMIT`` to ``>=``), which has the
    same number within its unit, stays far from infected."""
    spec, model = job(write_module("twounits2", TWO_UNITS))
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    problems = {
        name: phases.prepare(spec, spec.unit(name), model, model.unit(name), module, None, objectives)
        for name in ("ordered", "after")
    }  # fmt: skip
    test = (
        Statement("value", value=5),
        Statement("value", value=5),
        Statement("call", "after", (("a", 0), ("b", 1))),
    )
    evaluated = problems["after"].evaluate(test)
    points = mutation_points(ast.parse(model.source), model.unit("after"))
    index = next(p.mutant.index for p in points if p.mutant.description == "Gt -> GtE")
    assert index == 0  # numbered as ``ordered``'s < to <= within its unit
    own = Goal(WM, "after", 9, str(index))
    assert own in problems["after"].criteria.goals()
    assert 0.0 < evaluated.h[own] < 1.0  # reached, 995 away from infecting


def test_branch_only_jobs_without_performance_are_not_counted(write_module):
    spec, model = job(write_module("twounits3", TWO_UNITS), criteria="branch")
    assert Objectives.of(spec, model).counting is None
    spec, model = job(write_module("twounits4", TWO_UNITS), "branch", algorithm=Algorithm.ADYNAMOSA)
    objectives = Objectives.of(spec, model)
    assert objectives.performance and objectives.counting is not None


def test_a_unit_without_tests_still_counts_its_goals_in_the_report(write_module):
    spec, model = job(write_module("twounits5", TWO_UNITS))
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    unit = model.unit("ordered")
    problem = phases.prepare(spec, spec.unit("ordered"), model, unit, module, None, objectives)
    report = criteria_report(problem, [], spec, model, module)
    assert report["method"] == CriterionCoverage(0, 1)
    assert report["weak-mutation"].covered == 0 and report["weak-mutation"].total >= 2


REGISTERING = """
class Registry:
    def __init__(self):
        self.known = {}

    def register(self, name):
        def add(function):
            if name in self.known:
                raise TypeError(f"{name} is already registered")
            self.known[name] = function
            return function

        return add


CONVENTIONS = Registry()


@CONVENTIONS.register("double")
def double(x: int) -> int:
    if x > 10:
        return 2 * x
    return x
"""


def test_a_unit_whose_definition_refuses_to_run_twice_keeps_its_tests(tmp_path):
    """The criteria report runs the unit's top-level statements again in a copy: a decorator
    that registers it refuses there. The report is left out; the unit's tests stay."""
    from miogen.host.config import Options
    from miogen.run.generate import generate_module

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    module = tmp_path / "conventions.py"
    module.write_text(REGISTERING)
    output = tmp_path / "tests" / "test_conventions.py"
    report = generate_module(
        module, ["double"], output, Options(0, evaluations=200, seed=1, criteria="smart")
    )
    [unit] = report.units
    assert unit.outcome.status == "ok" and unit.tests, unit.outcome.message
    assert "double(" in output.read_text()


def test_one_counted_copy_serves_every_unit_and_reports_as_a_copy_of_each_unit_would(
    write_module,
):
    """Instrumenting and compiling a copy per unit cost more than the search of small units
    (urllib.parse, 34 units: 8.8 s of a 19 s job at a 5 s budget): the job makes one."""
    spec, model = job(write_module("twounits6", TWO_UNITS))
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    tests = {
        "ordered": [(Statement("value", value=1), Statement("value", value=2),
                     Statement("call", "ordered", (("a", 0), ("b", 1))))],
        "after": [(Statement("value", value=2000), Statement("value", value=3),
                   Statement("call", "after", (("a", 0), ("b", 1))))],
    }  # fmt: skip
    copies = set()
    for name, cases in tests.items():
        unit = model.unit(name)
        problem = phases.prepare(spec, spec.unit(name), model, unit, module, None, objectives)
        data = [to_json(case) for case in cases]
        shared = criteria_report(problem, data, spec, model, module, objectives)
        own = criteria_report(problem, data, spec, model, module)  # a copy of the unit alone
        assert shared == own and shared["line"].covered > 0
        copies.add(id(objectives.measured_copy(model, unit, module, spec)[0]))
    assert len(copies) == 1


COUNTED = """
import collections

SEEN = collections.Counter()


def note(word: str) -> int:
    SEEN[word] += 1
    return SEEN[word]


def known(word: str) -> str:
    kind = "new"
    if SEEN[word] > 0:
        kind = "seen"
        kind += " before"
    return kind
"""


def test_a_unit_of_a_module_with_state_reports_as_a_fresh_run_of_its_tests_would(write_module):
    """``note``'s tests fill ``SEEN`` (a Counter: the executor only restores plain lists, dicts
    and sets); ``known``'s report must not see them, as its tests run alone would not."""
    path = write_module("counted", COUNTED)
    spec = JobSpec(
        path=str(path), module_name=path.stem, import_root=str(path.parent),
        units=(UnitJob("note"), UnitJob("known")), scratch=tempfile.mkdtemp(), criteria="all",
    )  # fmt: skip
    sys.modules.pop(path.stem, None)
    model = analyze_file(path, path.stem)
    assert model.has_module_state
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    word = Statement("value", value="a")
    tests = {
        "note": [to_json((word, Statement("call", "note", (("word", 0),))))],
        "known": [to_json((word, Statement("call", "known", (("word", 0),))))],
    }
    reports = {}
    for name in ("note", "known"):
        unit = model.unit(name)
        problem = phases.prepare(spec, spec.unit(name), model, unit, module, None, objectives)
        shared = criteria_report(problem, tests[name], spec, model, module, objectives)
        reports[name] = (shared, criteria_report(problem, tests[name], spec, model, module))
    for name, (shared, own) in reports.items():
        assert shared == own, name
    assert reports["known"][0]["line"] == CriterionCoverage(3, 5)  # not the two "seen" lines
