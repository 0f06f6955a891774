"""coverage.py's data file read as the module's covered targets: one reader for the runs of the
project's suite (``host.baseline``) and of the verification (``host.measure``).

coverage.py records raw arcs per file and per dynamic context (a test function) in its SQLite
data file; these turn them into what miogen counts: each unit's target ids, per run and per test.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from miogen.analysis.model import Unit
from miogen.analysis.targets import CodeMap

Arc = tuple[int, int]


def covered_targets(
    raw_arcs: Iterable[Arc], code: CodeMap, units: Sequence[Unit]
) -> dict[str, list[int]]:
    """coverage.py's raw arcs of a module (``code``: its parse) as each unit's covered target
    ids."""
    return unit_targets(set(code.parser.translate_arcs(sorted(raw_arcs))), units)


def unit_targets(arcs: set[Arc], units: Sequence[Unit]) -> dict[str, list[int]]:
    """Each unit's target ids that the (translated) ``arcs`` cover."""
    lines = {a for a, _ in arcs if a > 0} | {b for _, b in arcs if b > 0}
    return {
        unit.name: [
            t.id for t in unit.targets if (t.arc in arcs if t.kind == "branch" else t.line in lines)
        ]
        for unit in units
    }


def module_coverage(
    data_file: str, module_path: Path, units: Sequence[Unit], code: CodeMap
) -> tuple[set[Arc], dict[str, list[int]], dict[str, list[int]]]:
    """What one run covered of the module at ``module_path`` (``code``: its parse), in one read
    of coverage.py's data: the arcs run (translated), each unit's covered target ids, and per
    test (context) the target ids it covers."""
    wanted = str(module_path.resolve())
    raw: set[Arc] = set()
    per_context: dict[str, set[Arc]] = {}
    for path, context, start, end in arc_rows(data_file):
        if path == wanted:
            arc = (int(start), int(end))
            raw.add(arc)
            if context:
                per_context.setdefault(str(context), set()).add(arc)
    per_test = {
        test: sorted(i for ids in covered_targets(found, code, units).values() for i in ids)
        for test, found in per_context.items()
    }
    arcs = set(code.parser.translate_arcs(sorted(raw)))
    return arcs, unit_targets(arcs, units), per_test


def arc_rows(data_file: str) -> list[tuple[str, str, int, int]]:
    """(file, context, from, to) of every arc coverage.py recorded (its SQLite data file)."""
    connection = sqlite3.connect(data_file)
    try:
        return connection.execute(
            "SELECT file.path, context.context, arc.fromno, arc.tono FROM arc "
            "JOIN file ON file.id = arc.file_id JOIN context ON context.id = arc.context_id"
        ).fetchall()
    except sqlite3.DatabaseError:
        return []  # no arc table: nothing was measured
    finally:
        connection.close()
