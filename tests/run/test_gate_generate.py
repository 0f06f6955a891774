"""``miogen generate`` in a project with its own mypy configuration (issue 24 part 3): what is
written passes it with no new error, a deliberate wrong call keeps a narrow ``type: ignore``,
the test mypy rejects is left out, and the figures are coverage.py's on what is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from miogen.common.project import locate
from miogen.emit import writer
from miogen.emit.gate import Finding
from miogen.host.config import Options
from miogen.run import gate
from miogen.run.gate import project_gate
from miogen.run.generate import generate_module
from miogen.run.write import Output

CODES = """\
def scale(value: int, factor: int = 2) -> int:
    if not isinstance(value, int):
        raise TypeError("value must be an int")
    return value * factor


def answer(flag: bool) -> int:
    if flag:
        return "yes"  # type: ignore[return-value]
    return 0
"""
HUMAN = b"def test_mine():\n    assert True\n"  # the user's file, at the intended path


def _project(root: Path, mypy: str) -> Path:
    (root / "pyproject.toml").write_text(f'[project]\nname = "codes"\n{mypy}')
    (root / "codes.py").write_text(CODES)
    (root / "tests").mkdir()
    (root / "tests" / "test_codes_miogen.py").write_bytes(HUMAN)
    return root / "codes.py"


def test_the_written_file_passes_the_projects_strict_mypy(tmp_path: Path) -> None:
    path = _project(tmp_path, "\n[tool.mypy]\nstrict = true\n")
    output = Output(tmp_path / "tests" / "test_codes_miogen.py", tmp_path)
    result = generate_module(path, None, output, Options(0, evaluations=500, seed=0))
    written = result.output
    assert written is not None and written.name == "test_codes_miogen_2.py"
    assert (tmp_path / "tests" / "test_codes_miogen.py").read_bytes() == HUMAN
    assert sorted(p.name for p in (tmp_path / "tests").iterdir()) == [
        "test_codes_miogen.py",
        "test_codes_miogen_2.py",
    ]  # fmt: skip  (no scratch file left)
    text = written.read_text()
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", str(written)], cwd=tmp_path, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + text
    # the wrong call the code raises on, kept with mypy's own code
    assert "scale([])  # type: ignore[arg-type]" in text, text
    # the assertion on the value the annotation denies is left out, and said so
    assert '"yes"' not in text, text
    assert "1 test left out: mypy errors under your configuration (comparison-overlap)" in (
        result.notes
    )
    # coverage.py's figures are those of the tests written
    answer = next(unit for unit in result.units if unit.name == "answer")
    assert (answer.numbers.covered, answer.numbers.total) == (1, 2)
    assert result.measurement is not None
    assert result.measurement.passed == len(result.tests) == text.count("\ndef test_")


def test_without_a_configuration_there_is_no_gate(tmp_path: Path) -> None:
    path = _project(tmp_path, "")
    location = locate(path)
    assert project_gate(tmp_path / "tests" / "test_codes_miogen.py", tmp_path, "codes") is None
    assert location.module_name == "codes"


ANSWER = """\
def answer(flag: bool) -> int:
    if flag:
        return "yes"  # type: ignore[return-value]
    return 0
"""


def test_the_written_file_is_the_text_the_gate_checked_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "codes"\n\n[tool.mypy]\nstrict = true\n'
    )
    (tmp_path / "codes.py").write_text(ANSWER)
    checked: list[str] = []
    formatted: list[int] = []

    def candidate_findings(text: str, *args: Any) -> list[Finding] | None:
        checked.append(text)
        return real_findings(text, *args)

    def format_tests(tests: Any, *args: Any) -> Any:
        formatted.append(len(tests))
        return real_format(tests, *args)

    real_findings, real_format = gate.candidate_findings, writer.format_tests
    monkeypatch.setattr(gate, "candidate_findings", candidate_findings)
    monkeypatch.setattr(writer, "format_tests", format_tests)
    output = Output(tmp_path / "tests" / "test_codes_miogen.py", tmp_path)
    result = generate_module(
        tmp_path / "codes.py", None, output, Options(0, evaluations=300, seed=0)
    )
    assert result.output is not None and result.gated is not None
    assert result.gated.left_out and not result.gated.rewrites  # one left out, no line fixed
    # the file written is the text the gate checked last, and it was formatted only for the
    # gate (each text checked made once; the write made none)
    assert result.output.read_text() == checked[-1]
    assert len(formatted) == len(checked)
