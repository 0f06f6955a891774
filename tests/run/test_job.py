"""One module's job (``run.job``): the verification's processes started during the search."""

from __future__ import annotations

from pathlib import Path

import pytest
from miogen.common import project
from miogen.host import measure
from miogen.host.config import Options
from miogen.run import job as running
from miogen.run.generate import generate_module

SIGN = """
def sign(x: int) -> int:
    if x > 0:
        return 1
    return 0
"""


def _started_ahead(monkeypatch: pytest.MonkeyPatch) -> list[Path | None]:
    """The ``project`` each start of the verification's processes ahead was given."""
    projects: list[Path | None] = []

    def recorded(import_root, seeds, interpreter=running.OWN, project=None):
        projects.append(project)
        return measure.start_ahead(import_root, seeds, interpreter, project)

    monkeypatch.setattr(running, "start_ahead", recorded)
    return projects


@pytest.mark.parametrize("in_project", [True, False])
def test_generates_processes_started_ahead_load_the_projects_plugins_for_its_runs(
    write_project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_project: bool
):
    """As the editor's (``lsp.jobs``): tests verified in the project (its own pytest at its
    root) run in processes that imported its installed pytest plugins while they waited;
    tests of a folder that is no project are verified as before, without them."""
    if in_project:
        root = write_project({"signs.py": SIGN})
    else:  # no pyproject.toml, setup.cfg, setup.py or .git: no project's pytest to run
        root = tmp_path
        (root / "signs.py").write_text(SIGN.lstrip())
    output = root / "tests" / "test_signs.py"
    started = _started_ahead(monkeypatch)
    found = []  # where the tests are verified: found once for the job, and handed down
    original = project.project_folder

    def counted(location, test_file):
        found.append(test_file)
        return original(location, test_file)

    monkeypatch.setattr(running, "project_folder", counted)
    monkeypatch.setattr(project, "project_folder", counted)
    options = Options(0, evaluations=200, seed=1)
    report = generate_module(root / "signs.py", None, output, options, baseline=False)
    assert started == [root if in_project else None]
    assert found == [output]
    assert report.verification is not None and report.verification.in_project == in_project


LEGACY = """
import warnings

def legacy(x: int) -> int:
    if x > 3:
        warnings.warn("use modern()", DeprecationWarning, stacklevel=2)
    return x
"""


def test_the_projects_warning_filters_are_read_once_per_job_and_apply_to_the_verification(
    write_project, monkeypatch: pytest.MonkeyPatch
):
    """The job's spec reads the project's pytest ``filterwarnings`` (the worker applies them);
    the verification takes them from it rather than reading the configuration again per run
    (issue 25: no module entered twice for the same job), and applies them: tests of the file
    verified outside the project (no output) that expect the warning raised pass."""
    root = write_project(
        {"legacy.py": LEGACY},
        pytest_options='filterwarnings = ["error::DeprecationWarning"]\n'
        'asyncio_default_fixture_loop_scope = "function"',
    )
    read = []
    original = project.pytest_ini_values

    def counted(project_root: Path, key: str) -> tuple[str, ...] | None:
        if key == "filterwarnings":
            read.append(project_root)
        return original(project_root, key)

    monkeypatch.setattr(project, "pytest_ini_values", counted)
    report = generate_module(
        root / "legacy.py", None, None, Options(0, evaluations=400, seed=1), baseline=False
    )
    assert read == [root]
    verification = report.verification
    assert verification is not None and not verification.dropped.failing, verification.dropped
    kept = [test.name for test in verification.tests]
    assert any("DeprecationWarning" in test.source for test in verification.tests), kept
