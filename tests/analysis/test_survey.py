"""The walks of analysis.survey give what ``ast.walk`` gives, in its order, on real modules."""

from __future__ import annotations

import ast
from pathlib import Path

from miogen.analysis import module
from miogen.analysis import survey as survey_module
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


def test_the_surveys_constants_calls_and_statements_are_those_of_every_node():
    """What the passes read without the list of every node (constants, the calls and
    subscripts in function bodies, statements by kind) is what that list gives."""
    for tree in trees():
        walked = survey(tree)
        constants, calls = list(walked.constants), list(walked.in_function_calls)
        assert constants == [n for n in walked.nodes if isinstance(n, ast.Constant)]
        assert calls == [n for n in walked.in_functions if isinstance(n, ast.Call | ast.Subscript)]
        assert walked.of_type(ast.Constant) == constants
        for kinds in [(ast.If, ast.While, ast.For, ast.AsyncFor), (ast.Global,),
                      (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)]:  # fmt: skip
            expected = [n for n in ast.walk(tree) if isinstance(n, kinds)]
            assert walked.of_type(*kinds) == expected
        assert walked.of_type(ast.Name) == [n for n in walked.nodes if isinstance(n, ast.Name)]


def test_the_analysis_does_not_list_every_node(monkeypatch):
    """Listing each of a long module's nodes was a third of the survey: the analysis (module
    state, constants, conditions) reads what the walk kept."""

    def refuse(tree: ast.Module) -> None:
        raise AssertionError("every node was listed")

    monkeypatch.setattr(survey_module, "_walk_all", refuse)
    source = (
        "SEEN = []\n\ndef f(x: int) -> int:\n    if x > 3:\n        SEEN.append(x)\n    return 7\n"
    )
    model = module.analyze_source(source, "state.py", "state")
    assert model.has_module_state and 7 in model.literals.ints
    assert [t.condition for t in model.unit("f").targets if t.kind == "branch"][0] == "x > 3"


def test_a_trees_statements_are_walked_once():
    """The coverage.py parse, the survey, the docstrings and the server's snapshot each walked
    a long module's statements again: the walk is kept while the tree lives."""
    tree = ast.parse("def f():\n    if x:\n        return 1\n")
    first = statement_walk(tree)
    assert statement_walk(tree) is first
    other = ast.parse("def f():\n    if x:\n        return 1\n")
    assert statement_walk(other) is not first and len(statement_walk(other)) == len(first)
