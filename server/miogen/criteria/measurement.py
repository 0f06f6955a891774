"""A fully counted copy of the job's units, for reporting every criterion on the emitted tests.

The search only counts and probes what it aims at (probes cost time on every run). The report
measures every criterion's full goal set on the few emitted tests, so it runs them once more in
a copy of the units with all statement counters and all infection probes, as the mutation phase
runs mutants: the units' own statements re-executed, instrumented, in a copy of the loaded
module's namespace (the whole module for modules with module-level state). One compiled copy
serves all the units of a job: instrumenting and compiling it is most of the report's cost.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from dataclasses import dataclass

from miogen.analysis.model import Unit
from miogen.assertions.mutants import future_flags, overlaps
from miogen.common.syntax import parse
from miogen.criteria.unit import probe_finder
from miogen.instrument import runtime, tally
from miogen.instrument.counting import TALLY, CounterMap, Counting
from miogen.instrument.rewrite import PROBE, instrument_tree


@dataclass(frozen=True)
class CountedCode:
    """The units' code, counted, fully probed and compiled: each ``copy()`` runs it afresh."""

    code: types.CodeType
    counters: CounterMap
    path: str
    module_name: str
    base: types.ModuleType | None  # whose namespace a copy starts from; None: the whole module

    def copy(self) -> types.ModuleType:
        """A fresh module object (not in ``sys.modules``) with the counted units in it."""
        module = types.ModuleType(self.module_name)
        if self.base is not None:
            module.__dict__.update(vars(self.base))
        module.__file__ = self.path
        module.__package__ = self.module_name.rpartition(".")[0]
        setattr(module, PROBE, runtime)
        setattr(module, TALLY, tally)
        exec(self.code, module.__dict__)
        return module


def counted_code(
    source: str,
    path: str,
    units: Sequence[Unit],
    module_name: str,
    base: types.ModuleType | None,
    probe_base: int = 0,
) -> CountedCode:
    """The units' statements (all the module's where ``base`` is None), counted and fully probed.

    Their mutants keep their numbers in the job's tally (``probe_base`` plus each unit's
    ``criteria.unit.probe_bases`` entry among ``units``, see ``criteria.unit.probe_finder``).
    """
    counting = Counting(probe_finder(units, first=probe_base))
    tree = parse(source, path)
    flags = future_flags(tree)
    if base is not None:
        tree.body = [
            statement for statement in tree.body if any(overlaps(statement, unit) for unit in units)
        ]
    tree = counting(tree)
    code = compile(instrument_tree(tree), path, "exec", flags=flags, dont_inherit=True)
    assert counting.map is not None
    return CountedCode(code, counting.map, path, module_name, base)
