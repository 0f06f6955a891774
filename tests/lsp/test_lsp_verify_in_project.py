"""The editor's jobs verify their tests as the project's own pytest runs them (issue 23, part 5):
from the project's root, with its conftest.py, where the tests will be inserted."""

from __future__ import annotations

from pathlib import Path

from lsp_support import E2E

pytestmark = E2E

MODES = """\
import os


def mode(x: int) -> str:
    if x > 0:
        return os.environ.get("APP_MODE", "plain")
    return "none"
"""

# The project's tests run with this conftest.py; the worker that searched did not load it.
CONFTEST = 'import os\n\nos.environ["APP_MODE"] = "test"\n'


async def test_a_test_that_fails_under_the_projects_conftest_is_not_inserted(editor):
    editor.configure(evaluations=2000, seed=1)
    editor.write("conftest.py", CONFTEST)
    path = editor.write("modes.py", MODES)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "mode")
    assert answer["applied"], answer
    written = Path(answer["testFile"]).read_text("utf-8")
    assert "none" in written, written  # mode(0): the same with the project's conftest
    assert "plain" not in written, written  # mode(1) is "test" under the project's pytest
    assert not list(editor.project.rglob("miogen_verifying_*")), "the verified copy is gone"
