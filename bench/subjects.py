"""The benchmark subjects: the classic corpus and pure-Python stdlib copies, laid out per run."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CLASSIC = REPO / "corpus" / "classic"  # copied in from the team's shared folder
STDLIB = BENCH / "subjects"


@dataclass(frozen=True)
class Subject:
    """One module under test; every tool gets the whole module and is measured on all of it."""

    name: str
    source: Path
    origin: str  # where the code comes from, for the results page

    @property
    def module(self) -> str:
        return self.source.stem

    def install(self, folder: Path) -> Path:
        """Copy the module into ``folder`` (the run's import root); return the copy's path."""
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / self.source.name
        shutil.copyfile(self.source, target)
        return target


SUBJECTS: dict[str, Subject] = {
    subject.name: subject
    for subject in (
        Subject("triangle", CLASSIC / "triangle.py", "corpus/classic (Myers' triangle)"),
        Subject("expint", CLASSIC / "expint.py", "corpus/classic (Numerical Recipes 6.3)"),
        Subject("gammq", CLASSIC / "gammq.py", "corpus/classic (Numerical Recipes 6.2)"),
        Subject(
            "normaldist",
            STDLIB / "stdlib_normaldist.py",
            "CPython 3.11.7 statistics.NormalDist + pure-Python inverse CDF",
        ),
        Subject("textwrap", STDLIB / "stdlib_textwrap.py", "CPython 3.11.7 textwrap (whole)"),
        Subject("pprint", STDLIB / "stdlib_pprint.py", "CPython 3.11.7 pprint (whole)"),
    )
}
CLASSIC_SUBJECTS = ["triangle", "expint", "gammq"]


def select(names: list[str] | None) -> list[Subject]:
    """Subjects by name, in the canonical order; unknown names are an error listing the known."""
    if not names:
        return list(SUBJECTS.values())
    unknown = [name for name in names if name not in SUBJECTS]
    if unknown:
        raise SystemExit(f"unknown subjects {unknown}; known: {', '.join(SUBJECTS)}")
    return [subject for name, subject in SUBJECTS.items() if name in names]
