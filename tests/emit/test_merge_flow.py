"""Writing a merged file goes through each part of emit/ once (issue 25): ``write_merged``
applies the project's import conventions and formats the tests, then merges them into each
candidate file without applying the conventions again (``merge_tests`` does, for its callers
that bring the tests as generated)."""

from __future__ import annotations

import ast
from pathlib import Path

MERGE = Path(__file__).resolve().parents[2] / "server" / "miogen" / "emit" / "merge.py"


def called(source: str, function: str) -> set[str]:
    """The names ``function`` of ``source`` calls."""
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    return {
        call.func.id
        for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    }


def test_the_conventions_are_applied_once_on_the_way_to_a_file():
    source = MERGE.read_text("utf-8")
    assert "conventional" in called(source, "write_merged")
    assert called(source, "_merge_into").isdisjoint({"conventional", "merge_tests"})
    assert "conventional" not in called(source, "_merged")


def test_the_check_finds_a_second_pass():
    source = """
def _merge_into(path, imports, tests):
    return merge_tests(path.read_text(), imports, tests)
"""
    assert called(source, "_merge_into") == {"merge_tests"}
