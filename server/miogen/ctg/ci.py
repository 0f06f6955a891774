"""`miogen ctg` in a CI service: the units changed since a git ref, and the JUnit and coverage
XML files of the tests it wrote.

Changed units come from git: one diff from the merge base of REF and HEAD to the working tree
(so REF...HEAD plus what is not committed yet, in the working tree's line numbers), plus the
files git does not track yet (every line of them). A unit is changed when a changed line falls
in its lines or in those of the private helpers it calls (``Unit.ranges``); a deleted line
counts as a change of the line after which it was.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from miogen.analysis.model import Unit
from miogen.common.errors import MiogenError
from miogen.host.interpreter import OWN, Interpreter

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Changes:
    """What changed since ``ref``: absolute path -> changed lines (None: the whole file)."""

    ref: str
    files: dict[Path, frozenset[int] | None]

    def touches_file(self, path: Path) -> bool:
        return path.resolve() in self.files

    def touches(self, path: Path, unit: Unit) -> bool:
        if not self.touches_file(path):
            return False
        lines = self.files[path.resolve()]
        if lines is None:
            return True
        spans = unit.ranges or ((unit.line, unit.end_line),)
        return any(start <= line <= end for line in lines for start, end in spans)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except FileNotFoundError as error:
        raise MiogenError("--changed-since needs git, which is not installed") from error


def changed_since(root: Path, ref: str) -> Changes:
    """The lines changed between the merge base of ``ref`` and HEAD and the working tree."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise MiogenError(f"--changed-since needs a git repository: {root} is not in one")
    toplevel = Path(top.stdout.strip()).resolve()
    known = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if known.returncode != 0:
        raise MiogenError(f"--changed-since: unknown git ref {ref!r} (is the branch fetched?)")
    base = _git(root, "merge-base", known.stdout.strip(), "HEAD")
    if base.returncode != 0:
        raise MiogenError(f"--changed-since: {ref!r} and HEAD have no common ancestor")
    diff = _git(
        root, "diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-renames",
        base.stdout.strip(), "--", ".",
    )  # fmt: skip
    if diff.returncode != 0:
        raise MiogenError(f"git diff failed: {diff.stderr.strip()}")
    files: dict[Path, frozenset[int] | None] = {
        toplevel / name: lines for name, lines in parse_diff(diff.stdout).items()
    }
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "--full-name", "--", ".")
    for name in untracked.stdout.splitlines():
        files[toplevel / name] = None
    return Changes(ref, {path.resolve(): lines for path, lines in files.items()})


def parse_diff(text: str) -> dict[str, frozenset[int]]:
    """``git diff --unified=0`` -> new-side path -> its changed lines (new-side numbers).

    >>> sorted(parse_diff("+++ b/a.py\\n@@ -3,0 +4,2 @@\\n@@ -9 +10,0 @@\\n")["a.py"])
    [4, 5, 10, 11]
    """
    found: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            name = line[4:].strip()
            current = (
                None if name == "/dev/null" else found.setdefault(name.removeprefix("b/"), set())
            )
        elif current is not None and (match := _HUNK.match(line)):
            start, count = int(match.group(1)), int(match.group(2) or "1")
            if count:
                current.update(range(start, start + count))
            else:  # lines deleted after line ``start``: the lines on either side changed
                current.update((start, start + 1))
    return {name: frozenset(lines) for name, lines in found.items()}


@dataclass(frozen=True)
class XmlReports:
    junit: Path | None
    coverage: Path | None
    exit_code: int  # pytest's
    output: str


def run_written_tests(
    tests: Sequence[Path],
    root: Path,
    junit: Path | None,
    coverage_xml: Path | None,
    interpreter: Interpreter = OWN,
    timeout: float = 600.0,
) -> XmlReports:
    """Run the test files ctg wrote once more, with pytest's JUnit XML and coverage.py's
    branch coverage of the project's files (the written tests only, not the project's suite),
    from the project's root in its interpreter."""
    with tempfile.TemporaryDirectory(prefix="miogen-ci-") as scratch:
        data_file = os.path.join(scratch, "coverage.dat")
        pytest_args = ["-q", "-p", "no:cacheprovider", "--rootdir", str(root)]
        if junit is not None:
            junit.parent.mkdir(parents=True, exist_ok=True)
            pytest_args.append(f"--junit-xml={junit.resolve()}")
        pytest_args += [str(path) for path in tests]
        if coverage_xml is not None:
            command = interpreter.command(
                "coverage", "run", "--branch", f"--data-file={data_file}",
                f"--source={root}", "-m", "pytest", *pytest_args,
            )  # fmt: skip
        else:
            command = interpreter.command("pytest", *pytest_args)
        environment = interpreter.environment(
            dict(
                os.environ,
                PYTHONPATH=os.pathsep.join(
                    filter(None, [str(root), os.environ.get("PYTHONPATH", "")])
                ),
            )
        )
        try:
            ran = subprocess.run(
                command, cwd=root, env=environment, capture_output=True, text=True,
                timeout=timeout, check=False, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired as error:
            raise MiogenError(f"the written tests did not finish in {timeout:g} s") from error
        output = ran.stdout + ran.stderr
        if coverage_xml is not None:
            coverage_xml.parent.mkdir(parents=True, exist_ok=True)
            xml = subprocess.run(
                interpreter.command(
                    "coverage", "xml", f"--data-file={data_file}", "-o", str(coverage_xml.resolve())
                ),
                cwd=root, env=environment, capture_output=True, text=True, check=False,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
            if xml.returncode != 0:
                raise MiogenError(f"coverage xml failed: {(xml.stdout + xml.stderr).strip()}")
        if junit is not None and not junit.is_file():
            raise MiogenError(f"pytest wrote no JUnit XML (exit {ran.returncode}): {output[-500:]}")
        return XmlReports(junit, coverage_xml, ran.returncode, output)
