"""Build a UnitProblem for a module file in this process (tests only: the product uses workers)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from miogen import engine
from miogen.analysis.module import analyze_file
from miogen.execution.job import JobSpec


def problem_for(path: Path, unit: str, trace: bool = False):
    name = path.stem
    spec = JobSpec(
        path=str(path), module_name=name, import_root=str(path.parent), unit=unit,
        scratch=tempfile.mkdtemp(), trace=trace,
    )  # fmt: skip
    sys.modules.pop(name, None)
    model = analyze_file(path, name)
    module = engine._load(spec)
    return engine._problem(spec, model, model.unit(unit), module, None)
