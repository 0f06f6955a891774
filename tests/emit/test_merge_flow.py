"""Making a test file goes down through emit/'s parts once (issue 25).

``merge.merged`` makes the merged text: it calls each part in order, each in a module of its
own, handing each what the parts before found, and no part calls a function of another.
``writer.write_merged`` and ``writer.merge_text`` make the tests in the project's style
first (its Python's spellings, its import conventions, its formatter: each once), then merge:
neither comes back into its own module once a part has been called.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

EMIT = Path(__file__).resolve().parents[2] / "server" / "miogen" / "emit"
# The parts of the merge, in their order in ``merged``: the module of each, and its function.
PARTS = [
    ("source", "parse_merge"),
    ("imports", "plan_imports"),
    ("placement", "place_tests"),
    ("layout", "merged_text"),
]
# The project's style, in order, on the way to the file (``writer.prepare``); the style
# itself is read by the writer's caller, once (``run.write``).
PREPARED = ["spelled", "conventional", "format_tests"]


@functools.cache
def tree_of(module: str) -> ast.Module:
    return ast.parse((EMIT / f"{module}.py").read_text("utf-8"))


def function(tree: ast.Module, name: str) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


def calls(node: ast.AST) -> list[str]:
    """The functions ``node`` calls by name (``f(...)``, ``module.f(...)``), in written order."""
    found = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
    found.sort(key=lambda call: (call.lineno, call.col_offset))
    names = []
    for call in found:
        if isinstance(call.func, ast.Name):
            names.append(call.func.id)
        elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
            names.append(call.func.attr)
    return names


def own_functions(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def imported_functions(tree: ast.Module, modules: set[str]) -> set[str]:
    """The names ``tree`` imports from the emit ``modules`` that are functions there."""
    names: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("miogen.emit.")
        ):
            module = node.module.removeprefix("miogen.emit.")
            if module in modules:
                defined = own_functions(tree_of(module))
                names |= {alias.name for alias in node.names if alias.name in defined}
    return names


def back_into_own_module(tree: ast.Module, flow: str) -> list[str]:
    """Calls of ``flow``'s own module's functions after it called a function of another
    emit module (each would bring the flow back into its module after a part left it)."""
    own = own_functions(tree) - {flow}
    others = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("miogen.emit")
        for alias in node.names
    }
    called = calls(function(tree, flow))
    first_out = next((i for i, name in enumerate(called) if name in others), len(called))
    return [name for name in called[first_out:] if name in own]


def test_the_merge_calls_its_parts_in_order():
    steps = {name for _, name in PARTS}
    called = [name for name in calls(function(tree_of("merge"), "merged")) if name in steps]
    assert called == [name for _, name in PARTS]


def test_no_part_of_the_merge_calls_another():
    modules = {module for module, _ in PARTS} | {"merge", "writer"}
    for module, _ in PARTS:
        used = imported_functions(tree_of(module), modules - {module})
        assert used == set(), (module, used)


def test_the_merge_never_comes_back_into_its_own_module():
    tree = tree_of("merge")
    assert own_functions(tree) & set(calls(function(tree, "merged"))) == set()


def test_the_project_style_is_applied_once_in_order_before_the_merge():
    tree = tree_of("writer")
    assert [n for n in calls(function(tree, "prepare")) if n in PREPARED] == PREPARED
    for flow in ("write_merged", "merge_text"):
        called = calls(function(tree, flow))
        assert called.count("prepare") == 1 and called.count("merged") == 1, flow
        assert called.index("prepare") < called.index("merged"), flow
        # the gate's text, when it is of these tests, instead (``writer._reused``)
        assert called.count("_reused") == 1 and called.index("_reused") < called.index("prepare")
        assert set(called).isdisjoint({*PREPARED, "merge_tests"}), flow  # not a second time
        assert back_into_own_module(tree, flow) == [], flow
    # the style and the tools are the caller's, read once and handed down (``run.write``),
    # never read or looked up again here (issue 25: the tools were, with the style handed in)
    assert {"project_style", "project_tools"}.isdisjoint(calls(tree))


def test_the_checks_find_parts_out_of_order_and_a_way_back():
    tree = ast.parse(
        """
from miogen.emit.files import read
from miogen.emit.merge import merged


def _prepared(tests):
    return tests


def write_merged(path, tests):
    original = read(path)
    tests = _prepared(tests)
    return merged(original, tests)
"""
    )
    assert back_into_own_module(tree, "write_merged") == ["_prepared"]
    assert calls(function(tree, "write_merged")) == ["read", "_prepared", "merged"]
    part = ast.parse("from miogen.emit.imports import section_of, Sorted\n")
    assert imported_functions(part, {"imports"}) == {"section_of"}


def test_the_writer_places_the_file_then_enters_the_file_layer_once():
    """``write_merged`` places the file first (``emit.targets``: each candidate named, confined
    and given its package files) and hands each placed candidate to ``files.merge_into`` with
    the merge to make: the read, the ownership check, the decoding, the encoding of the
    insertions and the compare-and-replace, retried while the file changes, are one call into
    ``emit.files``. The file layer is not asked for the names first and for the write after
    the confinement (issue 25: files -> confine -> project -> files)."""
    flow = function(tree_of("writer"), "write_merged")
    files_calls = [
        node.func.attr
        for node in ast.walk(flow)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "files"
    ]
    assert files_calls == ["merge_into"]
    called = calls(flow)
    assert called.index("targets") < called.index("merge_into")
    assert {"inside", "package_files", "fallback_candidates"}.isdisjoint(called)
    # ... and the file layer hands the compare to the atomic write as bytes, not a callback
    # into itself: the atomic write reads the file, and nothing comes back into emit.files.
    replace = function(tree_of("files"), "replace_if_unchanged")
    assert not any(isinstance(node, ast.Lambda) for node in ast.walk(replace))
