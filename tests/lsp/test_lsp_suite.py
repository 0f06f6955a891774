"""The editor's insert keeps only what adds to the project's own suite, and says so."""

from __future__ import annotations

import asyncio
import time

from lsp_support import E2E
from miogen.host.baseline import BASELINE_PATH, project_baseline
from subjects import SIGN

pytestmark = E2E

POSITIVE = """\
from signs import sign


def test_positive():
    assert sign(5) == 1
"""

EVERY = (
    POSITIVE
    + """

def test_others():
    assert sign(-5) == -1
    assert sign(0) == 0
"""
)


async def test_a_save_never_waits_for_the_suite_which_is_measured_meanwhile(editor):
    """Without a current measurement of the suite the job keeps its tests (as with no suite) and
    the suite is measured in the background, for the jobs after it."""
    editor.configure(evaluations=2000, seed=1)
    path = editor.write("signs.py", SIGN)
    editor.write("tests/test_signs_by_us.py", EVERY)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "sign")
    assert answer["tests"] > 0, answer  # the complete suite was not known yet
    cache = editor.project / BASELINE_PATH
    deadline = time.monotonic() + 240
    while not cache.exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    assert cache.exists(), "the suite was not measured in the background"
    assert project_baseline(editor.project, run=False).cached


async def test_the_insert_adds_to_the_suite_and_tells_by_how_much(editor):
    editor.configure(evaluations=2000, seed=1)
    path = editor.write("signs.py", SIGN)
    editor.write("tests/test_signs_by_us.py", POSITIVE)
    project_baseline(editor.project)  # measured before, as the editor does in the background
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "sign")
    assert answer["applied"], answer
    assert editor.logs("sign: +3 branches over your suite (25.0% → 100.0%)"), editor.logs("sign")
    assert (editor.project / "tests" / "test_signs_by_us.py").read_text() == POSITIVE


async def test_a_complete_suite_gets_no_tests_and_it_is_said(editor):
    editor.configure(evaluations=2000, seed=1)
    path = editor.write("signs.py", SIGN)
    editor.write("tests/test_signs_by_us.py", EVERY)
    project_baseline(editor.project)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "sign")
    assert answer["tests"] == 0 and not answer["applied"], answer
    assert editor.logs("your suite already covers every branch of sign"), editor.logs("sign")


async def test_the_search_aims_at_what_the_suite_misses(editor):
    """With the suite's measurement current, the job's search treats the branches the suite
    covers as covered (``UnitJob.suite_covered``): it keeps no test for them, so none is left
    out for adding nothing; the progress counts them from the start."""
    editor.configure(evaluations=2000, seed=1, criteria="branch", mutationShare=0.0)
    path = editor.write("signs.py", SIGN)
    editor.write("tests/test_signs_by_us.py", POSITIVE)
    project_baseline(editor.project)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "sign")
    assert answer["tests"] == 2, answer  # sign(-x) and sign(0): sign(5) is the suite's
    assert editor.logs("sign: +3 branches over your suite"), editor.logs("sign")
    assert not editor.logs("sign: left out tests"), editor.logs("sign")
    assert not editor.logs("the search claimed"), editor.logs("sign")
