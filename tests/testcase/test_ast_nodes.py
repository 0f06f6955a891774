"""Values built as the annotations ask: syntax tree nodes for the ``ast`` module's classes
(testcase.ast_nodes) and class objects for ``type[C]`` (analysis.typespec, testcase.sampling).
Without them such parameters were never given a value (types24b: apimd.parser's
``const_type(node: expr)`` lost 4 of its branches, sty's ``set_eightbit_call`` all its tests)."""

from __future__ import annotations

import ast
import json
import random

from miogen.analysis.module import analyze_source
from miogen.host.config import Options
from miogen.run.generate import generate_module
from miogen.testcase import ast_nodes, sampling
from miogen.testcase.model import from_json, to_json
from miogen.testcase.sampling import TestFactory

KINDS = """
import ast
import json
from ast import Constant, Import, ImportFrom, Name, expr, stmt
from collections.abc import Sequence
from typing import Type, Union

_I = Union[Import, ImportFrom]


class Shape:
    pass


class Square(Shape):
    pass


def const_type(node: expr) -> str:
    if isinstance(node, Constant):
        return type(node.value).__qualname__
    if isinstance(node, Name):
        return node.id
    return "Any"


def imported(node: _I) -> int:
    return len(node.names)


def count_defs(body: Sequence[stmt], owner: "ast.ClassDef") -> int:
    return sum(1 for item in body if isinstance(item, ast.FunctionDef)) + len(owner.body)


def sides(kind: Type[Shape]) -> str:
    return kind.__name__
"""


def test_annotations_of_ast_classes_and_class_objects_read_as_buildable_types():
    model = analyze_source(KINDS, "kinds.py", "kinds")
    types = {n: [str(p.type) for p in f.params] for n, f in model.functions.items()}
    assert types == {
        "const_type": ["ast.expr"],
        "imported": ["union[ast.Import, ast.ImportFrom]"],  # through the module's alias
        "count_defs": ["list[ast.stmt]", "ast.ClassDef"],
        "sides": ["type[Shape]"],
    }
    assert not any(p.opaque for f in model.functions.values() for p in f.params)


def test_sampled_values_are_nodes_of_the_annotated_class_and_the_class_itself(monkeypatch):
    # not the value of another type a parameter the code type-checks gets now and then
    monkeypatch.setattr(sampling, "OTHER_TYPE_PROBABILITY", 0.0)
    model = analyze_source(KINDS, "kinds.py", "kinds")
    rng = random.Random(3)
    wanted = {
        "const_type": (ast.expr,),
        "imported": (ast.Import, ast.ImportFrom),
        "count_defs": (ast.stmt, ast.ClassDef),
    }
    for name, classes in wanted.items():
        factory = TestFactory(model, model.unit(name))
        for _ in range(30):
            test = factory.sample(rng)
            values = [s.value for s in test if s.kind == "value"]
            assert values and all(isinstance(v, classes) for v in values), (name, test)
            assert from_json(json.loads(json.dumps(to_json(test)))) == test  # kept in JSON
    factory = TestFactory(model, model.unit("sides"))
    for _ in range(10):
        test = factory.sample(rng)
        assert {(s.kind, s.name) for s in test} == {("class", "Shape"), ("call", "sides")}


def test_a_node_is_written_as_its_constructor_that_builds_the_same_node():
    rng = random.Random(0)
    for name in ("ast.expr", "ast.stmt", "ast.arg", "ast.arguments", "ast.ImportFrom"):
        for _ in range(10):
            node = ast_nodes.sample(name, rng)
            assert node is not None
            built = eval(ast_nodes.literal(node), {"ast": ast})  # noqa: S307 - our literal
            assert ast.dump(built, include_attributes=True) == ast.dump(
                node, include_attributes=True
            )
    assert ast_nodes.sample("ast.Nonlocal", rng) is None  # no source has one


def test_generated_tests_pass_nodes_and_classes_and_cover_the_branches(write_project):
    root = write_project({"kinds.py": KINDS})
    output = root / "tests" / "test_kinds.py"
    summary = generate_module(
        root / "kinds.py", None, output, Options(0, evaluations=300, seed=1), baseline=False
    )
    written = output.read_text()
    assert "import ast\n" in written
    assert "const_type(ast.Constant(value=" in written
    assert "sides(Shape)" in written or "sides(Square)" in written
    assert summary.numbers.covered == summary.numbers.total
