"""The test module as written: module text and merges into the file of earlier runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from miogen.common import project
from miogen.common.project import locate
from miogen.common.records import TestRecord
from miogen.emit.module import module_text
from miogen.emit.state import FIXTURE_NAME as FIXTURE
from miogen.host.config import Options
from miogen.run.write import merge_into, output_for


def record(name: str, body: str) -> TestRecord:
    source = f"def {name}():\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return TestRecord(name, source, ("letters",), (), (), 0, [])


def test_a_module_with_state_gets_the_fixture_once():
    tests = [record("test_one", "assert letters()")]
    imports, generated = module_text(tests, "words", module_state=True)
    assert generated[0].name == FIXTURE and "import words as _miogen_module" in imports
    assert FIXTURE not in [t.name for t in module_text(tests, "words", False)[1]]
    first = merge_into(None, tests, "words", module_state=True).text
    again = merge_into(first, [record("test_two", "assert not letters() == 1")], "words", True)
    assert again.text.count(f"def {FIXTURE}") == 1
    assert "def test_two" in again.text


def test_the_output_is_decided_once_with_the_projects_test_folder_found_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """``miogen generate``'s front end decides the output in one call (issue 25): the test file
    and the test folder it mirrors the packages under come from one look at pytest's
    ``testpaths`` (the path and the folder asked for apart read the configuration twice)."""
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'p'\n[tool.pytest.ini_options]\ntestpaths = ['checks']\n"
    )
    (tmp_path / "checks").mkdir()
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "prices.py").write_text("def f():\n    return 1\n")
    location = locate(tmp_path / "shop" / "prices.py", tmp_path)
    read = []
    original = project.pytest_ini_values

    def counted(root: Path, key: str) -> tuple[str, ...] | None:
        read.append(key)
        return original(root, key)

    monkeypatch.setattr(project, "pytest_ini_values", counted)
    output = output_for(location, Options(), None)
    assert read == ["testpaths"]
    assert output.path == Options().test_path(location)
    assert output.tests_root == tmp_path / "checks" == Options().tests_root(location)
    assert (output.root, output.own_only) == (tmp_path, True)
    assert "tests-directory" in output.setting


def test_an_output_named_outside_the_project_resolves_into_its_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "mod.py").write_text("def f():\n    return 1\n")
    location = locate(root / "mod.py", root)
    monkeypatch.chdir(root)
    inside = output_for(location, Options(), Path("tests/test_mine.py"))
    assert (inside.path, inside.root, inside.own_only) == (Path("tests/test_mine.py"), root, False)
    assert inside.setting == "--output" and inside.tests_root is None
    elsewhere = output_for(location, Options(), Path("../out/test_mod.py"))
    assert elsewhere.root == tmp_path / "out"
