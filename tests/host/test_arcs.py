"""coverage.py's data read in one module below both of its readers (issue 25): a verification
run (``host.measure``) reads what it covered through ``host.arcs``, not through the project's
suite's module (``host.baseline``), so a job's flow enters the baseline only for the suite."""

from __future__ import annotations

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[2] / "server" / "miogen" / "host"


def _imported(module: str) -> set[str]:
    tree = ast.parse((HOST / f"{module}.py").read_text("utf-8"))
    return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


def test_the_verification_reads_coverage_data_without_the_suites_module():
    assert "miogen.host.baseline" not in _imported("measure")
    assert "miogen.host.arcs" in _imported("measure")


def test_the_reader_of_coverage_data_knows_neither_of_its_readers():
    assert {"miogen.host.baseline", "miogen.host.measure"}.isdisjoint(_imported("arcs"))
    assert "miogen.host.arcs" in _imported("baseline")
