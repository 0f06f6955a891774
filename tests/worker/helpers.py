"""Build a UnitProblem for a module file in this process (tests only: the product uses workers)."""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.common.records import JobSpec, UnitJob
from miogen.worker import phases
from miogen.worker.problem import UnitProblem
from miogen.worker.search import Budget, run_mio


def problem_for(path: Path, unit: str, trace: bool = False) -> UnitProblem:
    name = path.stem
    job = UnitJob(unit)
    spec = JobSpec(
        path=str(path), module_name=name, import_root=str(path.parent), units=(job,),
        scratch=tempfile.mkdtemp(), trace=trace,
    )  # fmt: skip
    sys.modules.pop(name, None)
    model = analyze_file(path, name)
    module = phases.load(spec)
    return phases.prepare(spec, job, model, model.unit(unit), module, None)


def spec_for(path: Path, unit: str | list[str], **options: object) -> JobSpec:
    """A job for one unit (or several) of the module at ``path``, importable from its folder."""
    seeds = tuple(options.pop("seeds", ()))  # type: ignore[call-overload]
    blocked = tuple(options.pop("blocked", ()))  # type: ignore[call-overload]
    names = [unit] if isinstance(unit, str) else unit
    return JobSpec(
        path=str(path), module_name=path.stem, import_root=str(path.parent),
        units=tuple(UnitJob(name, seeds=seeds, blocked=blocked) for name in names),
        **options,  # type: ignore[arg-type]
    )  # fmt: skip


def missed_by_mio(path: Path, unit: str, evaluations: int, seed: int = 0) -> list[int]:
    """The targets of ``unit`` (module at ``path``) that MIO leaves uncovered after
    ``evaluations`` fitness evaluations at ``seed``."""
    problem = problem_for(path, unit)
    archive = run_mio(problem, Budget(evaluations=evaluations), random.Random(seed))
    return [t for t in problem.targets() if not archive.is_covered(t)]
