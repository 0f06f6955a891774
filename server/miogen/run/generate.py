"""``miogen generate``: one module's run, its steps in order, each a call into the module that does it.

    path -> the module's location (``common.project``; the front end's, when it located it)
         -> the output, checked to resolve inside its root (``common.confine.confine``): the
            check is carried to the write, which does not make it again
         -> the project's suite measured first, and the units' shares of the budget by what it
            misses (``run.shares.by_suite``)
         -> the job run and its tests verified (``run.job.run_and_verify``), those the
            project's mypy and ruff refuse left out first (``run.gate``)
         -> the kept tests written (``run.write.write_module``)

Each step takes the records of the steps before it; none calls back into this module.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from miogen.analysis.module import analyze_file
from miogen.common.confine import confine
from miogen.common.project import ModuleLocation, locate
from miogen.common.records import UnitJob
from miogen.host.config import DEFAULTS, Options
from miogen.host.interpreter import OWN, Interpreter
from miogen.host.spare import SpareSource
from miogen.host.supervisor import OnEvent
from miogen.run.gate import project_gate
from miogen.run.job import ModuleJob, run_and_verify
from miogen.run.result import ModuleRun
from miogen.run.shares import by_suite
from miogen.run.verify import MeasuredFirst
from miogen.run.write import Output, write_module


def generate_module(
    path: str | Path | ModuleLocation,
    unit_names: Sequence[str] | None,
    output: Path | Output | None,
    options: Options = DEFAULTS,
    *,
    project_root: str | None = None,
    on_event: OnEvent | None = None,
    raw: bool = False,
    spares: SpareSource | None = None,
    interpreter: Interpreter = OWN,
    baseline: bool = True,
) -> ModuleRun:
    """``miogen generate``: one job for the module's units (sharing the budget), verified, the
    kept tests merged into ``output`` (see ``run.write.Output``; a bare path: the project root
    is the folder it must resolve into), the worker and the verification in ``interpreter``.
    ``path``: the module's file, or its location when the caller located it already (the
    front end: ``project_root`` is then not used).

    ``raw``: the search's tests as found (no shrinking, no mutants). ``baseline``: the
    project's own suite's coverage (``host.baseline``: cached, else measured once before the
    search) shares the budget by what it misses (``run.shares``), and only the tests that add
    to it are kept.
    """
    started = time.monotonic()
    location = path if isinstance(path, ModuleLocation) else locate(path, project_root)
    if isinstance(output, Path):
        output = Output(output, location.project_root)
    # refused before anything runs; written as checked
    confined = confine(output.root, output.path, output.setting) if output is not None else None
    names = list(unit_names or [])
    suite = MeasuredFirst(location.project_root, interpreter) if baseline else None
    shared = by_suite(location, names, options.mutation_share > 0 and not raw, raw, suite)
    before_search = time.monotonic() - started  # the suite's run when not cached
    if shared is not None:
        job = ModuleJob(
            location, options, shared.shares.units, interpreter, shared.model,
            tuple(shared.units), shared.shares.covered,
        )  # fmt: skip
    else:
        if (raw or options.evaluations) and not names:
            # Careful units must be named, and an evaluation budget's deadlines and limits
            # count the units from the start: then the analysis comes first.
            model = analyze_file(location.path, location.module_name)
            names = [u.name for u in model.select(None)]
        units = tuple(UnitJob(name, careful=raw, raw=raw) for name in names)
        job = ModuleJob(location, options, units, interpreter)
    written = output.path if output is not None else None
    # the project's mypy and ruff on the tests before they are verified (``run.gate``)
    gate = (
        project_gate(output.path, output.root, location.module_name) if output is not None else None
    )
    result = run_and_verify(job, on_event, spares=spares, suite=suite, test_file=written, gate=gate)
    if shared is not None and shared.note:
        result.notes.insert(0, shared.note)
    if output is not None:
        write_module(result, output, interpreter, confined)
    result.seconds["before_search"] = before_search
    result.seconds["total"] = time.monotonic() - started
    return result
