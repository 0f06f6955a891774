"""A module long enough to be outlined: the unit that ran gets its coverage marks, and they
follow the code when the text changes (its targets are found again on the new outline)."""

from __future__ import annotations

from lsp_support import E2E, SHAPES, WAIT, line_of
from miogen.lsp.analyser import DETAIL_CHARACTERS

from bench.big_file import module_text

pytestmark = E2E

SIGN = SHAPES[SHAPES.index("def sign") :]
# The unit last: its target ids count the targets of every unit before it.
LONG = module_text(1_200) + "\n\n" + SIGN


def _sign(coverage: dict | None) -> dict:
    units = {u["name"]: u for u in coverage["units"]} if coverage else {}
    return units.get("sign", {})


async def test_the_unit_that_ran_in_a_long_module_gets_its_coverage_marks(editor):
    assert len(LONG) > DETAIL_CHARACTERS
    # A long module to import: seconds enough for it, the search itself bounded by evaluations.
    editor.configure(generateOnSave="changed", budgetSeconds=15, evaluations=2000, seed=1)
    path = editor.write("long.py", LONG)
    editor.open(path)
    edited = LONG.replace("    return 1\n", "    return 2\n")
    assert edited.count("return 2\n") == LONG.count("return 2\n") + 1  # sign's only
    editor.save(path, edited)

    # The verification runs the project's pytest on a module of 1,200 functions, under coverage:
    # 30 s and more on a loaded two-core machine.
    done = await editor.wait_job("sign", timeout=2 * WAIT)
    assert (done["covered"], done["total"]) == (3, 4)
    assert len(editor.statuses) == len(editor.jobs("sign"))  # no other unit ran
    coverage = await editor.wait(
        lambda: (c := editor.last_coverage(path)) and _sign(c).get("state") == "done" and c,
        "the coverage of sign",
    )
    assert (_sign(coverage)["covered"], _sign(coverage)["total"]) == (3, 4)
    assert len(coverage["units"]) > 600  # every unit, outlined
    condition = line_of(edited, "x * x == -1")
    assert condition in coverage["lines"]["partial"]
    assert line_of(edited, "return -1") in coverage["lines"]["covered"]
    assert line_of(edited, "return 99") in coverage["lines"]["uncovered"]
    assert [m["line"] for m in coverage["missing"]] == [condition]

    moved = "# a line above everything\n" + edited  # a new outline: sign's targets found again
    editor.type(path, moved)
    shifted = await editor.wait(
        lambda: (c := editor.last_coverage(path)) and condition + 1 in c["lines"]["partial"] and c,
        "the marks to follow the code",
    )
    assert _sign(shifted)["state"] == "done"
    assert (_sign(shifted)["covered"], _sign(shifted)["total"]) == (3, 4)
    assert [m["line"] for m in shifted["missing"]] == [condition + 1]
