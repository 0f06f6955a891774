"""The editor's jobs run the project's checkers' gate as ``miogen generate`` does (issue 24
part 3): in the job (on the host, beside the verification), a test the project's mypy rejects
is left out and said so, and the tests inserted pass the project's mypy and ruff."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsp_support import E2E

pytestmark = E2E

ANSWER = """\
def answer(flag: bool) -> int:
    if flag:
        return "yes"  # type: ignore[return-value]
    return 0
"""
CHECKERS = '\n[tool.mypy]\nstrict = true\n\n[tool.ruff.lint]\nselect = ["E", "F", "PT"]\n'


async def test_the_inserted_tests_pass_the_projects_mypy_and_ruff(editor):
    editor.configure(evaluations=300, seed=0)
    configuration = editor.project / "pyproject.toml"
    configuration.write_text(configuration.read_text("utf-8") + CHECKERS, "utf-8")
    path = editor.write("codes.py", ANSWER)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "answer")
    assert answer["applied"], answer
    written = Path(answer["testFile"])
    text = written.read_text("utf-8")
    assert "answer(flag=False) == 0" in text, text
    assert '"yes"' not in text, text  # answer(True) == "yes": mypy's comparison-overlap
    assert editor.logs("1 test left out: mypy errors under your configuration"), text
    for checker in (["mypy"], ["ruff", "check", "--no-fix"]):
        done = subprocess.run(
            [sys.executable, "-m", *checker, str(written)],
            cwd=editor.project, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + text
