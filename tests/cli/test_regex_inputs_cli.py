"""`miogen generate` on a module whose inputs its regular expressions shape (issue 23, part 6):
a string that must match a pattern built from the module's constants, and a match object of the
module's compiled pattern. At a fixed seed and evaluation budget every branch is covered, and the
file passes mypy and ruff under bench smells' strict settings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from emit.strict_checks import strict_mypy, strict_ruff
from running import miogen

SUBJECT = r'''
import re

NUMBER = r"\d+"
VERSION = "v" + NUMBER + r"(\.\d+)+(-(alpha|beta)\d*)?"
VERSION_RE = re.compile(VERSION)


def kind(text: str) -> str:
    """What sort of release ``text`` names."""
    if not re.fullmatch(VERSION, text):
        return "invalid"
    if "-" in text:
        return "pre-release"
    return "final"


def numbers(m: re.Match[str]) -> tuple[int, int]:
    """The first two numbers of a version that VERSION_RE matched."""
    parts = m.group(0)[1:].split("-")[0].split(".")
    if m.group(2) is not None:
        raise ValueError("pre-release")
    return int(parts[0]), int(parts[1])
'''


def test_regex_shaped_strings_and_match_objects_cover_every_branch(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "subject"\n')
    (project / "releases.py").write_text(SUBJECT)
    output = project / "tests" / "test_releases.py"
    done = miogen(
        "generate", "releases.py", "--evaluations", "300", "--seed", "1", "--json",
        "--output", str(output), cwd=project,
    )  # fmt: skip
    summary = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    coverage = {unit["name"]: unit["coverage"] for unit in summary["units"]}
    assert coverage["kind"]["covered"] == coverage["kind"]["total"] == 4, coverage
    assert coverage["numbers"]["covered"] == coverage["numbers"]["total"] == 2, coverage
    source = output.read_text()
    assert "re.fullmatch(" in source and "assert match is not None" in source, source
    shutil.copyfile(project / "releases.py", output.with_name("releases.py"))
    assert strict_mypy(output) == [], source
    assert strict_ruff(output) == [], source
