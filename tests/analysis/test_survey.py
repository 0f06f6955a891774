"""The walks of analysis.survey give what ``ast.walk`` gives, in its order, on real modules."""

from __future__ import annotations

import ast
from pathlib import Path

from miogen.analysis.survey import FUNCTIONS, statement_walk, survey

ROOT = Path(__file__).resolve().parents[2]
STATEMENTS = (ast.Module, ast.stmt, ast.excepthandler, ast.match_case)


def trees() -> list[ast.Module]:
    paths = sorted((ROOT / "server" / "miogen").rglob("*.py"))
    paths += sorted((ROOT / "examples").rglob("*.py"))
    return [ast.parse(path.read_text(encoding="utf-8")) for path in paths]


def test_statement_walk_is_ast_walks_statements_in_its_order():
    for tree in trees():
        expected = [node for node in ast.walk(tree) if isinstance(node, STATEMENTS)]
        found = statement_walk(tree)
        assert len(found) == len(expected)
        assert all(a is b for a, b in zip(found, expected, strict=True))


def _inside_functions(tree: ast.Module) -> list[ast.AST]:
    inside = []
    for node in ast.walk(tree):
        if isinstance(node, FUNCTIONS):
            inside += [n for n in ast.walk(node) if n is not node]
    return inside


def test_survey_has_every_node_those_inside_functions_and_the_names():
    for tree in trees():
        walked = survey(tree)
        assert sorted(map(id, walked.nodes)) == sorted(map(id, ast.walk(tree)))
        assert {id(n) for n in walked.in_functions} == {id(n) for n in _inside_functions(tree)}
        for index, statement in enumerate(tree.body):
            loaded = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
            assert walked.names[index] == loaded
