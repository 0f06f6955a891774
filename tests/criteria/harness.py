"""Load a small unit in this process with its criteria, and run hand-written tests against it."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Hashable
from pathlib import Path

from miogen.analysis.model import Target
from miogen.analysis.module import analyze_file
from miogen.common.records import JobSpec, UnitJob
from miogen.criteria import Criterion, Goal
from miogen.testcase.model import Statement, TestCase
from miogen.worker import phases
from miogen.worker.objectives import Objectives
from miogen.worker.problem import UnitProblem
from miogen.worker.search import Evaluated


def unit_problem(path: Path, unit: str, criteria: str = "all", performance: bool = False):
    """The engine's UnitProblem for ``unit``, counted and probed as ``criteria`` asks."""
    name = path.stem
    job = UnitJob(unit)
    spec = JobSpec(
        path=str(path), module_name=name, import_root=str(path.parent), units=(job,),
        scratch=tempfile.mkdtemp(), criteria=criteria, performance=performance,
    )  # fmt: skip
    sys.modules.pop(name, None)
    model = analyze_file(path, name)
    objectives = Objectives.of(spec, model)
    module = phases.load(spec, objectives)
    return phases.prepare(spec, job, model, model.unit(unit), module, None, objectives)


def value(v: object) -> Statement:
    return Statement("value", value=v)


def call(name: str, *args: tuple[str, int]) -> Statement:
    return Statement("call", name, tuple(args))


def construct(name: str, *args: tuple[str, int]) -> Statement:
    return Statement("construct", name, tuple(args))


def method(name: str, receiver: int, *args: tuple[str, int]) -> Statement:
    return Statement("method", name, tuple(args), receiver=receiver)


def calling(function: str, *values: object, names: str = "abc") -> TestCase:
    """A test that passes ``values`` (as parameters a, b, c ...) to ``function`` once."""
    statements = [value(v) for v in values]
    statements.append(call(function, *((names[i], i) for i in range(len(values)))))
    return tuple(statements)


def goals_of(evaluated: Evaluated, criterion: Criterion, covered: bool = True) -> set[Goal]:
    return {
        goal
        for goal, h in evaluated.h.items()
        if isinstance(goal, Goal) and goal.criterion is criterion and (h >= 1.0 or not covered)
    }


def h_of(evaluated: Evaluated, goal: Hashable) -> float:
    return evaluated.h.get(goal, 0.0)


def branch(problem: UnitProblem, line: int, positive: bool) -> Target:
    return next(t for t in problem.unit.targets if t.line == line and t.positive is positive)
