"""A worker launched as the command starts, before its imports: taken by the job, else stopped."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from host.test_spare import SIGN, gone
from miogen.cli import main
from miogen.host.config import Options
from miogen.host.early import EarlyWorker, early_worker
from miogen.run.generate import generate_module

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def test_only_a_command_that_runs_a_job_launches_one():
    assert early_worker(["serve"]) is None
    assert early_worker([]) is None
    assert early_worker(["generate", "--help"]) is None
    worker = early_worker(["generate", "m.py"])
    assert worker is not None and worker.pid is not None
    pid = worker.pid
    worker.close()
    assert gone(pid)


def test_the_launch_comes_before_the_engine_is_imported():
    # What `python -m miogen` and the `miogen` command import before the worker is launched.
    code = (
        "import sys, miogen.host.early; "
        "print(sorted(m for m in sys.modules if m.startswith('miogen')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(eval(done.stdout))  # noqa: S307 - our own print of a list of names
    assert loaded == {"miogen", "miogen.host", "miogen.host.early",
                      "miogen.host.spare", "miogen.host.interpreter", "miogen.common",
                      "miogen.common.errors", "miogen.common.platform_support", "miogen.common.environment",
                      "miogen.common.preparation"}  # fmt: skip


def test_the_job_runs_in_the_worker_started_first(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'subject'\n")
    module = tmp_path / "signs.py"
    module.write_text(SIGN)
    worker = EarlyWorker()
    pid = worker.pid
    try:
        report = generate_module(
            module, None, None, Options(0.5), project_root=str(tmp_path), spares=worker
        )
    finally:
        worker.close()
    assert report.job is not None
    first = report.job.workers[0]
    assert first.spare and first.pid == pid
    assert report.units[0].tests


def test_miogen_generate_starts_its_worker_before_its_imports(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'subject'\n")
    (tmp_path / "signs.py").write_text(SIGN)
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", "signs.py", "--budget", "0.5", "--json",
         "--output", str(tmp_path / "tests" / "test_signs.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    workers = json.loads(done.stdout)["workers"]
    assert workers and workers[0]["spare"] is True


def test_a_command_that_fails_before_its_job_stops_the_worker(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    worker = EarlyWorker()
    pid = worker.pid
    assert pid is not None
    assert main(["generate", str(broken), "--json"], worker) == 2
    assert "broken.py" in capsys.readouterr().err
    assert gone(pid)
