"""docs/ci.md's GitHub Actions workflow, its `run:` commands as written, in a git repository.

The steps run in order as GitHub runs them (``bash --noprofile --norc -eo pipefail``), with
the step's ``env`` and the files of GITHUB_OUTPUT and GITHUB_STEP_SUMMARY; ``${{ github.base_ref }}``
is ``main``, and ``origin/main`` is the commit before HEAD (what a pull request's checkout with
``fetch-depth: 0`` has). The step named Install is not run: miogen is installed already here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from ctg_projects import BANK, make_project

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"
UPLOADED = ["miogen-summary.md", "miogen-junit.xml", "miogen-coverage.xml"]
PYPROJECT = "[project]\nname = 'subject'\n\n[tool.miogen.ctg]\nbudget = 0.5\nverifyRuns = 1\n"


def workflow_steps() -> list[dict]:
    """The steps of the YAML block in docs/ci.md: name, env and run (PyYAML is not a
    dependency: the block's two-space layout is read as written)."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block, "docs/ci.md has no yaml block"
    steps: list[dict] = []
    lines = block.group(1).splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if re.match(r"^ {6}- ", line):
            steps.append({"env": {}})
        stripped = line.strip().removeprefix("- ")
        if steps and stripped.startswith("name:"):
            steps[-1]["name"] = stripped.partition(":")[2].strip()
        if steps and stripped == "env:":
            while lines[index + 1].startswith(" " * 10):
                index += 1
                key, _, value = lines[index].strip().partition(":")
                steps[-1]["env"][key] = value.strip()
        if steps and stripped.startswith("run:"):
            body = stripped.partition(":")[2].strip()
            if body == "|":
                run = []
                while index + 1 < len(lines) and lines[index + 1].startswith(" " * 10):
                    index += 1
                    run.append(lines[index][10:])
                body = "\n".join(run) + "\n"
            steps[-1]["run"] = body
        index += 1
    return [s for s in steps if "run" in s]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)  # fmt: skip


def run_workflow(root: Path, scratch: Path) -> tuple[int, dict[str, str]]:
    """The run: steps in order until one fails: its status (0: none failed), and GITHUB_OUTPUT."""
    output, summary = scratch / "output", scratch / "summary"
    output.write_text("", encoding="utf-8")
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    for step in workflow_steps():
        if step.get("name") == "Install":
            continue
        env = {k: v.replace("${{ github.base_ref }}", "main") for k, v in step["env"].items()}
        environment = dict(os.environ, PATH=path, GITHUB_OUTPUT=str(output),
                           GITHUB_STEP_SUMMARY=str(summary), **env)  # fmt: skip
        script = scratch / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=root, env=environment, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if done.returncode:
            break
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return done.returncode, outputs


def test_the_workflow_runs_as_written(tmp_path):
    steps = workflow_steps()
    assert [s.get("name") for s in steps] == ["Install", "Generate tests for the changed units"]
    root = make_project(tmp_path / "project", {"bank.py": BANK})
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "bank.py").write_text(BANK.replace('"less"', '"smaller"').lstrip("\n"), "utf-8")
    git(root, "commit", "-q", "-am", "second")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD~1")

    # A changed unit: tests added (status 0), every uploaded file is there.
    status, outputs = run_workflow(root, tmp_path)
    assert (status, outputs) == (0, {"status": "0"})
    for name in UPLOADED:
        assert (root / name).is_file(), name
    assert list(root.glob("tests/**/test_*_miogen.py")) == [root / "tests" / "test_bank_miogen.py"]
    assert "Branch coverage of the changed units" in (tmp_path / "summary").read_text("utf-8")

    # A commit that changes no unit: nothing to do (status 3), the step still passes.
    for name in UPLOADED:
        (root / name).unlink()
    (root / "notes.txt").write_text("no code\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "third")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD~1")
    status, outputs = run_workflow(root, tmp_path)
    assert (status, outputs) == (0, {"status": "3"})
    assert (root / "miogen-summary.md").is_file()
    assert not (root / "miogen-junit.xml").exists()  # no test file written: no XML

    # A base branch that was not fetched: bad input (2) fails the step.
    git(root, "update-ref", "-d", "refs/remotes/origin/main")
    status, outputs = run_workflow(root, tmp_path)
    assert status != 0 and outputs == {"status": "2"}
