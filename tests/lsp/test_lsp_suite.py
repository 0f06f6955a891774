"""The editor's insert keeps only what adds to the project's own suite, and says so."""

from __future__ import annotations

from lsp_support import E2E

pytestmark = E2E

SIGN = """\
def sign(x: int) -> int:
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0
"""

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


async def test_the_insert_adds_to_the_suite_and_tells_by_how_much(editor):
    editor.configure(evaluations=2000, seed=1)
    path = editor.write("signs.py", SIGN)
    editor.write("tests/test_signs_by_us.py", POSITIVE)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "sign")
    assert answer["applied"], answer
    assert editor.logs("sign: +3 branches over your suite (25.0% → 100.0%)"), editor.logs("sign")
    assert (editor.project / "tests" / "test_signs_by_us.py").read_text() == POSITIVE


async def test_a_complete_suite_gets_no_tests_and_it_is_said(editor):
    editor.configure(evaluations=2000, seed=1)
    path = editor.write("signs.py", SIGN)
    editor.write("tests/test_signs_by_us.py", EVERY)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "sign")
    assert answer["tests"] == 0 and not answer["applied"], answer
    assert editor.logs("your suite already covers every branch of sign"), editor.logs("sign")
