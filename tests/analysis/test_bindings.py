"""The record of a module's top-level bindings, and string annotations resolved through aliases."""

from __future__ import annotations

import ast
import textwrap

from miogen.analysis.bindings import (
    ANNOTATED,
    ASSIGN,
    FROM,
    IMPORT,
    bound_once,
    module_bindings,
    resolve,
    resolved,
    top_level,
)

SOURCE = textwrap.dedent(
    """
    import os.path
    import collections.abc as cabc
    from datetime import date as Date, time
    from .sibling import Thing as Other
    from . import helpers
    Amount = Decimal
    first = second = int
    left, right = 1, 2
    Alias: TypeAlias = "list[int]"
    declared: int
    if PY3:
        text_type = str
    else:
        text_type = unicode
    try:
        import json
    except ImportError:
        json = None
    else:
        loaded = True
    finally:
        done = True
    def function():
        inside = 1
    class Class:
        attribute = 1
    """
)


def _tree(source: str = SOURCE) -> ast.Module:
    return ast.parse(source)


def _described(tree: ast.Module) -> list[tuple[object, ...]]:
    return [
        (b.name, b.kind, b.sole, b.module, b.original, b.level, b.nested)
        for b in module_bindings(tree)
    ]


def test_each_kind_of_binding_in_order_with_its_parts() -> None:
    assert _described(_tree()) == [
        ("os", IMPORT, True, "os.path", "", 0, False),
        ("cabc", IMPORT, True, "collections.abc", "", 0, False),
        ("Date", FROM, True, "datetime", "date", 0, False),
        ("time", FROM, True, "datetime", "time", 0, False),
        ("Other", FROM, True, "sibling", "Thing", 1, False),
        ("helpers", FROM, True, "", "helpers", 1, False),
        ("Amount", ASSIGN, True, "", "", 0, False),
        ("first", ASSIGN, False, "", "", 0, False),
        ("second", ASSIGN, False, "", "", 0, False),
        ("Alias", ANNOTATED, True, "", "", 0, False),
        ("declared", ANNOTATED, True, "", "", 0, False),
        # an if's body, then its else; a try's body, else, finally, then its handlers
        ("text_type", ASSIGN, True, "", "", 0, True),
        ("text_type", ASSIGN, True, "", "", 0, True),
        ("json", IMPORT, True, "json", "", 0, True),
        ("loaded", ASSIGN, True, "", "", 0, True),
        ("done", ASSIGN, True, "", "", 0, True),
        ("json", ASSIGN, True, "", "", 0, True),
    ]


def test_values_annotations_and_statements_are_the_trees_own() -> None:
    tree = _tree()
    by_name = {b.name: b for b in top_level(tree, ASSIGN, ANNOTATED)}
    assert ast.unparse(by_name["Amount"].value) == "Decimal"  # type: ignore[arg-type]
    alias = by_name["Alias"]
    assert ast.unparse(alias.annotation) == "TypeAlias"  # type: ignore[arg-type]
    assert isinstance(alias.value, ast.Constant) and alias.value.value == "list[int]"
    assert by_name["declared"].value is None
    assert by_name["Amount"].statement is tree.body[5]


def test_top_level_leaves_out_the_blocks_and_other_kinds() -> None:
    names = [b.name for b in top_level(_tree(), ASSIGN)]
    assert names == ["Amount", "first", "second"]


def test_the_record_is_read_once_per_tree() -> None:
    tree = _tree()
    assert module_bindings(tree) is module_bindings(tree)
    assert module_bindings(_tree()) is not module_bindings(tree)


def test_bound_once_drops_every_binding_of_a_rebound_name() -> None:
    tree = _tree("A = int\nB = str\nA = bytes\nC = A\n")
    assert [b.name for b in bound_once(top_level(tree, ASSIGN))] == ["B", "C"]


def _aliases(source: str) -> dict[str, ast.expr]:
    return {b.name: b.value for b in top_level(_tree(source), ASSIGN) if b.value is not None}


def test_resolve_parses_strings_and_follows_aliases() -> None:
    aliases = _aliases("A = 'B'\nB = list[int]\n")
    found = resolve(ast.Constant("A"), aliases)
    assert found is not None
    node, followed = found
    assert (ast.unparse(node), followed) == ("list[int]", 2)
    assert ast.unparse(resolved(ast.Name("B"), aliases)) == "list[int]"  # type: ignore[arg-type]


def test_resolve_gives_none_for_bad_strings_cycles_and_long_chains() -> None:
    cycle = _aliases("A = B\nB = A\n")
    assert resolve(ast.Name("A"), cycle) is None
    assert resolve(ast.Constant("list["), {}) is None
    assert resolve(None, {}) is None
    chain = _aliases("A = B\nB = C\nC = int\n")
    assert resolve(ast.Name("A"), chain, follows=2) is None
    found = resolve(ast.Name("A"), chain, follows=3)
    assert found is not None and (ast.unparse(found[0]), found[1]) == ("int", 3)


def test_the_completions_generic_aliases_are_a_filter_on_the_record() -> None:
    """``enrich._generic_aliases`` reads the module's record, not its body once more: the sole
    targets of plain assignments in the body whose value is a subscript or an ``|``."""
    from miogen.analysis.enrich import _generic_aliases

    tree = _tree(
        "Pair = Union[int, str]\nBoth = int | str\nA = B = Union[int, str]\nPlain = int\n"
        "if X:\n    Nested = Union[int, str]\nAnn: TypeAlias = Union[int, str]\n"
    )
    assert list(_generic_aliases(tree)) == ["Pair", "Both"]
    tree.body.clear()  # (a tree never changes once read: here, to tell a second walk apart)
    assert list(_generic_aliases(tree)) == ["Pair", "Both"]
