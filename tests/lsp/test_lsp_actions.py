"""Code actions, commands and requests: putting the generated tests into the test file."""

from __future__ import annotations

import ast

import pytest
from lsp_support import E2E, SHAPES, edited_sign, line_of
from lsprotocol import types
from miogen.emit.files import HEADER, PACKAGE_HEADER
from pygls.exceptions import JsonRpcException

pytestmark = E2E

USER_TESTS = '''\
"""My own tests."""

from shapes import sign


def test_sign_of_seven():
    assert sign(7) == 1
'''


async def _generated(editor, text: str = SHAPES):
    path = editor.write("shapes.py", text)
    editor.open(path)
    editor.save(path, edited_sign("return 2", text))
    await editor.wait_job("sign")
    await editor.wait(lambda: editor.diagnostics(path, "uncovered-branch"), "results")
    return path


async def test_code_actions_honour_context_only(editor):
    path = await _generated(editor)
    [miss] = editor.diagnostics(path, "uncovered-branch")
    line = line_of(SHAPES, "x * x == -1")

    every = await editor.actions(path, line, diagnostics=[miss])
    assert sorted(a.kind for a in every) == ["quickfix", "source.miogen.insertTests"]
    [fix] = await editor.actions(path, line, only=["quickfix"], diagnostics=[miss])
    assert fix.kind == "quickfix" and fix.diagnostics[0].message == miss.message
    assert fix.title.startswith("Insert ") and fix.title.endswith(
        " generated tests for sign into tests/test_shapes_miogen.py"
    )
    [source] = await editor.actions(path, line, only=["source"], diagnostics=[miss])
    assert source.kind == "source.miogen.insertTests" and source.title == fix.title
    [own] = await editor.actions(path, line, only=["source.miogen.insertTests"])
    assert own.title == fix.title
    assert await editor.actions(path, line, only=["refactor"], diagnostics=[miss]) == []
    assert await editor.actions(path, line, only=["quickfix"]) == [], "no diagnostic, no fix"

    [generate] = await editor.actions(path, line_of(SHAPES, "def pop"))
    assert generate.title == "Generate tests for Stack" and generate.kind == "source"
    assert generate.command.command == "miogen.generateTests"
    assert list(generate.command.arguments) == [{"uri": editor.uri(path), "unit": "Stack"}]


async def test_insert_creates_the_test_file_only_when_it_does_not_exist(editor):
    path = await _generated(editor)
    [action] = await editor.actions(path, line_of(SHAPES, "x < 0"), only=["source"])
    edit = action.edit
    test_file = editor.project / "tests" / "test_shapes_miogen.py"
    if editor.profile.startswith("visual"):
        create, insert = edit.document_changes
        assert isinstance(create, types.CreateFile) and create.uri == test_file.as_uri()
        assert create.options is None, "no ignoreIfExists: the server saw the file was absent"
        assert insert.text_document.uri == test_file.as_uri()
    else:  # Neovim 0.7 announces resourceOperations without documentChanges: still "create"
        assert isinstance(edit.document_changes[0], types.CreateFile)

    result = await editor.command("miogen.insertTests", path, "sign")
    assert result["applied"] and result["testFile"] == str(test_file)
    # Test functions: cases that differ only in literals are one parametrized test.
    assert result["testUri"] == test_file.as_uri() and result["tests"] >= 1
    assert (result["covered"], result["total"]) == (3, 4)
    written = test_file.read_text("utf-8")
    names = [n.name for n in ast.parse(written).body if isinstance(n, ast.FunctionDef)]
    assert len(names) == result["tests"] and all(n.startswith("test_sign") for n in names)

    again = await editor.command("miogen.insertTests", path, "sign")
    assert not again["applied"] and again["tests"] == 0
    assert len(editor.recorder.applied) >= 1


async def test_insert_never_touches_a_human_file_and_merges_into_its_own(editor):
    human = editor.write("tests/test_shapes_miogen.py", USER_TESTS)  # not marked: not miogen's
    own = editor.project / "tests" / "test_shapes_miogen_2.py"
    path = await _generated(editor)
    [action] = await editor.actions(path, line_of(SHAPES, "x < 0"), only=["source"])
    assert action.title.endswith(" into tests/test_shapes_miogen_2.py")
    result = await editor.command("miogen.insertTests", path, "sign")
    assert result["applied"] and result["testFile"] == str(own)
    assert human.read_text("utf-8") == USER_TESTS
    assert own.read_text("utf-8").startswith(HEADER + "\n")

    own.write_text(f"{HEADER}\n\n{USER_TESTS}", "utf-8")  # miogen's file, edited by its user
    [action] = await editor.actions(path, line_of(SHAPES, "x < 0"), only=["source"])
    changes = action.edit.document_changes or []
    assert not any(isinstance(c, types.CreateFile) for c in changes)
    result = await editor.command("miogen.insertTests", path, "sign")
    assert result["applied"] and result["testFile"] == str(own)
    merged = own.read_text("utf-8")
    assert "def test_sign_of_seven():" in merged and human.read_text("utf-8") == USER_TESTS
    assert merged.count("def test_") == 1 + result["tests"]


async def test_generate_command_runs_a_job_and_applies_its_tests(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    result = await editor.command("miogen.generateTests", path, "Stack")
    assert result["applied"] and result["unit"] == "Stack" and result["tests"] >= 1
    assert result["covered"] == result["total"] > 0
    assert (editor.project / "tests" / "test_shapes_miogen.py").exists()
    [reports] = editor.progress("miogen: Stack")
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    lenses = {lens.command.title: lens.command for lens in await editor.lenses(path)}
    title = f"miogen: {result['covered']}/{result['total']} branches · Generate tests"
    assert title in lenses
    # The hover lists the other criteria (the server searches smart selection's goals).
    assert "exception" in lenses[title].tooltip and "line" in lenses[title].tooltip
    test_file = editor.project / "tests" / "test_shapes_miogen.py"
    editor.open(test_file)
    assert not await editor.lenses(test_file)  # tests are not units to generate tests for

    with pytest.raises(JsonRpcException, match="no class or function named 'Queue'"):
        await editor.command("miogen.generateTests", path, "Queue")


async def test_units_request_lists_classes_and_functions(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    units = await editor.units(path)
    assert [(u["name"], u["kind"]) for u in units] == [("Stack", "class"), ("sign", "function")]
    stack = units[0]["range"]
    assert stack["start"] == {"line": line_of(SHAPES, "class Stack"), "character": 0}
    assert stack["end"]["line"] == line_of(SHAPES, "return self.items.pop()")
    editor.type(path, SHAPES + "\ndef broken(:\n")
    assert await editor.units(path) == []


async def test_a_packaged_tests_folder_gets_marked_packages_from_the_editor(editor):
    editor.write("tests/__init__.py", "")
    editor.write("geometry/__init__.py", "")
    path = editor.write("geometry/shapes.py")
    editor.open(path)
    result = await editor.command("miogen.generateTests", path, "Stack")
    own = editor.project / "tests" / "geometry" / "test_shapes_miogen.py"
    assert result["applied"] and result["testFile"] == str(own), result
    init = editor.project / "tests" / "geometry" / "__init__.py"
    assert init.read_text("utf-8") == PACKAGE_HEADER
    assert own.read_text("utf-8").startswith(HEADER)
