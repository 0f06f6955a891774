"""A fully counted copy of the job's units, for reporting every criterion on the emitted tests.

The search only counts and probes what it aims at (probes cost time on every run). The report
measures every criterion's full goal set on the few emitted tests, so it runs them once more in
a copy of the units with all statement counters and all infection probes, as the mutation phase
runs mutants: the units' own statements re-executed, instrumented, in a copy of the loaded
module's namespace (the whole module for modules with module-level state). One copy serves all
the units of a job: instrumenting and compiling it is most of the report's cost.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Sequence

from miogen.analysis.model import Unit
from miogen.assertions.mutants import future_flags, overlaps
from miogen.criteria.unit import probe_finder
from miogen.instrument import runtime, tally
from miogen.instrument.counting import TALLY, CounterMap, Counting
from miogen.instrument.rewrite import PROBE, instrument_tree


def measured_copy(
    source: str,
    path: str,
    units: Sequence[Unit],
    module_name: str,
    base: types.ModuleType | None,
    probe_base: int = 0,
) -> tuple[types.ModuleType, CounterMap]:
    """The units in a fresh module object (not in ``sys.modules``), counted and fully probed.

    Their mutants keep their numbers in the job's tally (``probe_base`` plus each unit's
    ``criteria.unit.probe_bases`` entry among ``units``, see ``criteria.unit.probe_finder``).
    """
    counting = Counting(probe_finder(units, first=probe_base))
    tree = ast.parse(source, filename=path)
    flags = future_flags(tree)
    if base is not None:
        tree.body = [
            statement for statement in tree.body if any(overlaps(statement, unit) for unit in units)
        ]
    tree = counting(tree)
    code = compile(instrument_tree(tree), path, "exec", flags=flags, dont_inherit=True)
    module = types.ModuleType(module_name)
    if base is not None:
        module.__dict__.update(vars(base))
    module.__file__ = path
    module.__package__ = module_name.rpartition(".")[0]
    setattr(module, PROBE, runtime)
    setattr(module, TALLY, tally)
    exec(code, module.__dict__)
    assert counting.map is not None
    return module, counting.map
