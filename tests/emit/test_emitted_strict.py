"""The tests miogen writes for a subject that takes functions and collections pass mypy and
ruff under the strict configuration of ``python -m bench smells``: the functions passed for
``Callable[[float], str]`` and ``Optional[Callable[[str], None]]`` fit those annotations (no
``lambda x: x`` for a str result, no ``abs`` for a logger), and what the file keeps in
variables has a type mypy can tell."""

from __future__ import annotations

from pathlib import Path

from emit.strict_checks import strict_mypy, strict_ruff
from emit.test_emitted_lint import emitted_tests

SUBJECT = '''
from dataclasses import dataclass
from typing import Callable, List, Optional, Union


class TimerError(Exception):
    """Used the wrong way round."""


@dataclass
class Timer:
    text: Union[str, Callable[[float], str]] = "took {:0.2f} s"
    logger: Optional[Callable[[str], None]] = None
    running: bool = False

    def start(self) -> None:
        if self.running:
            raise TimerError("already running")
        self.running = True

    def stop(self, elapsed: float) -> str:
        if not self.running:
            raise TimerError("not running")
        self.running = False
        if callable(self.text):
            message = self.text(elapsed)
        else:
            message = self.text.format(elapsed)
        if self.logger:
            self.logger(message)
        return message


def record(laps: List[float], lap: float) -> int:
    laps.append(lap)
    return len(laps)
'''


def test_emitted_tests_pass_strict_mypy_and_ruff(tmp_path: Path):
    subject = tmp_path / "timing.py"
    subject.write_text(SUBJECT)
    test_file = emitted_tests(subject, tmp_path / "project")
    source = test_file.read_text()
    assert "def test_" in source
    test_file.with_name("timing.py").write_text(SUBJECT)  # next to it, as mypy reads it
    assert strict_mypy(test_file) == [], source
    assert strict_ruff(test_file) == [], source


BUILTIN_NAMED = """
def format(value: int, width: int = 0) -> str:
    if value < 0:
        return "negative"
    return str(value).rjust(width)
"""


def test_a_unit_named_like_a_builtin_is_imported_under_an_alias(tmp_path: Path):
    subject = tmp_path / "units.py"
    subject.write_text(BUILTIN_NAMED)
    test_file = emitted_tests(subject, tmp_path / "project")
    source = test_file.read_text()
    assert "from units import format as units_format" in source, source
    assert "units_format(" in source and " format(" not in source, source
    test_file.with_name("units.py").write_text(BUILTIN_NAMED)
    assert strict_ruff(test_file) == [], source  # no A004: the builtin is not shadowed
    assert strict_mypy(test_file) == [], source
