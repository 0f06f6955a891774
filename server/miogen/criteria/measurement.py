"""A fully counted copy of the unit, for reporting every criterion on the emitted tests.

The search only counts and probes what it aims at (probes cost time on every run). The report
measures every criterion's full goal set on the few emitted tests, so it runs them once more in
a copy of the unit with all statement counters and all infection probes, as the mutation phase
runs mutants: the unit's own statements re-executed, instrumented, in a copy of the loaded
module's namespace (the whole module for modules with module-level state).
"""

from __future__ import annotations

import ast
import types

from miogen.analysis.model import Unit
from miogen.assertions.mutants import future_flags, overlaps
from miogen.criteria.unit import probe_finder
from miogen.instrument import runtime, tally
from miogen.instrument.counting import TALLY, CounterMap, Counting
from miogen.instrument.rewrite import PROBE, instrument_tree


def measured_copy(
    source: str,
    path: str,
    unit: Unit,
    module_name: str,
    base: types.ModuleType | None,
    probe_base: int = 0,
) -> tuple[types.ModuleType, CounterMap]:
    """The unit in a fresh module object (not in ``sys.modules``), counted and fully probed.

    Its mutants keep their numbers in the job's tally (``probe_base``, see
    ``criteria.unit.probe_finder``): code of other units it calls keeps theirs.
    """
    counting = Counting(probe_finder([unit], first=probe_base))
    tree = ast.parse(source, filename=path)
    flags = future_flags(tree)
    if base is not None:
        tree.body = [statement for statement in tree.body if overlaps(statement, unit)]
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
