"""A spare given a module's text analyses it while it waits; its job then finds the analysis done."""

from __future__ import annotations

import os
import sys
import textwrap
import time

import pytest
from miogen.analysis.module import _analyze, analyze_source
from miogen.common.preparation import Preparation
from miogen.common.records import JobSpec
from miogen.host.spare import Spares
from miogen.host.supervisor import run_job
from miogen.worker import main as worker
from worker.helpers import spec_for as module_spec

SIGN = "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    return 0\n"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="spares are POSIX")


def spec_for(path, unit, **options) -> JobSpec:
    return module_spec(path, unit, **{"budget_seconds": 0.5, "test_timeout": 0.3, **options})


@pytest.fixture
def spares():
    pool = Spares()
    yield pool
    pool.close()


def test_a_spare_given_the_saved_text_runs_its_job_past_the_analysis(spares, write_module):
    path = write_module("signed", SIGN)
    spares.refill("settings")
    spares.prepare(str(path), "signed", SIGN)
    outcome = run_job(spec_for(path, "sign"), spares=spares.keyed("settings"))
    assert outcome.status == "ok" and outcome.units[0].result is not None
    assert outcome.workers[0].spare and outcome.workers[0].analysed_ahead


def test_a_text_given_before_the_spare_started_goes_to_the_next_spare(spares, write_module):
    path = write_module("later", SIGN)
    spares.prepare(str(path), "later", SIGN)
    spares.refill("settings")
    outcome = run_job(spec_for(path, "sign"), spares=spares.keyed("settings"))
    assert outcome.workers[0].analysed_ahead


def test_a_text_other_than_the_saved_one_is_not_used(spares, write_module):
    path = write_module("edited", SIGN)
    spares.refill("settings")
    spares.prepare(str(path), "edited", SIGN.replace("return 1", "return 2"))
    outcome = run_job(spec_for(path, "sign"), spares=spares.keyed("settings"))
    assert outcome.status == "ok" and not outcome.workers[0].analysed_ahead
    sources = [test.source for test in outcome.units[0].result.tests]
    assert any("== 1" in source for source in sources)  # the module as saved ran
    assert not any("== 2" in source for source in sources)


def test_a_package_module_changed_since_the_analysis_makes_the_job_analyse_again(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "shapes.py").write_text("class Box:\n    def __init__(self, n: int):\n"
                                       "        self.n = n\n", "utf-8")  # fmt: skip
    source = "from .shapes import Box\n\n\ndef size(box: Box) -> int:\n    return box.n\n"
    (package / "use.py").write_text(source, "utf-8")
    text = tmp_path / "text.txt"
    text.write_text(source, "utf-8")
    spec = JobSpec(path=str(package / "use.py"), module_name="pkg.use", import_root="", units=())
    ahead = worker.Ahead()
    ahead.prepare(Preparation(spec.path, spec.module_name, str(text)), lambda: False)
    ahead.keep_if_current()
    assert ahead.done_for(spec)
    later = time.time() + 5
    os.utime(package / "shapes.py", (later, later))
    ahead.keep_if_current()
    assert not ahead.done_for(spec)


def pipe_with(*lines: bytes) -> worker._StdinLines:
    read, write = os.pipe()
    os.write(write, b"".join(lines))
    os.close(write)
    return worker._StdinLines(read)


def preparation(tmp_path, name: str, source: str) -> Preparation:
    text = tmp_path / f"{name}.txt"
    text.write_text(source, "utf-8")
    return Preparation(str(tmp_path / f"{name}.py"), name, str(text))


def test_the_spare_analyses_only_the_newest_text_before_its_spec(tmp_path):
    older = preparation(tmp_path, "older", SIGN)
    newer = preparation(
        tmp_path, "newer", SIGN + "\n\ndef twice(x: int) -> int:\n    return 2 * x\n"
    )
    spec = b'{"path": "x"}'
    ahead = worker.Ahead()
    analyses = _analyze.cache_info().misses
    assert ahead.wait_for_spec(pipe_with(older.line(), newer.line(), spec)) == spec.decode()
    assert _analyze.cache_info().misses == analyses + 1
    assert ahead.prepared is not None and ahead.prepared[1:] == (newer.path, "newer")
    model = analyze_source(ahead.prepared[0], newer.path, "newer")
    assert [u.name for u in model.units] == ["sign", "twice"]


def test_the_end_of_input_before_a_spec_means_no_job(tmp_path):
    ahead = worker.Ahead()
    assert ahead.wait_for_spec(pipe_with(preparation(tmp_path, "gone", SIGN).line())) == ""


def test_a_text_that_does_not_parse_is_left_to_the_job(tmp_path):
    broken = preparation(tmp_path, "broken", "def f(:\n")
    ahead = worker.Ahead()
    assert ahead.wait_for_spec(pipe_with(broken.line(), b"{}")) == "{}"
    assert ahead.prepared is None


def test_a_spec_on_several_lines_is_read_whole():
    spec = textwrap.dedent("""\
        {"path": "x",
         "units": []}""").encode()  # fmt: skip
    assert worker.Ahead().wait_for_spec(pipe_with(spec)) == spec.decode()
