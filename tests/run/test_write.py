"""The test module as written: module text and merges into the file of earlier runs."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from miogen.analysis.module import analyze_file
from miogen.common import confine as confine_module
from miogen.common import project, syntax
from miogen.common.confine import OutsideRoot, confine
from miogen.common.project import locate
from miogen.common.records import TestRecord, UnitOutcome
from miogen.emit import style
from miogen.emit.module import module_text
from miogen.emit.state import FIXTURE_NAME as FIXTURE
from miogen.emit.style import Style
from miogen.host.config import Options
from miogen.run.result import ModuleRun, UnitRun
from miogen.run.write import Output, merge_into, output_for, write_module


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


WORDS = "def letters():\n    return 'ab'\n"
PROJECT = (
    "[project]\nname = 'words'\nrequires-python = '>=3.10'\n[tool.ruff]\nline-length = 100\n"
    "[tool.ruff.lint.isort]\nrequired-imports = ['from __future__ import annotations']\n"
)


def run_of(tmp_path: Path, tests: list[TestRecord]) -> ModuleRun:
    (tmp_path / "words.py").write_text(WORDS)
    location = locate(tmp_path / "words.py", tmp_path)
    model = analyze_file(location.path, location.module_name)
    unit = model.select(None)[0]
    return ModuleRun(location, model, [UnitRun(unit, UnitOutcome(unit.name), tests)])


def second_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Output, list[Path], Counter[str], Counter[str]]:
    """Two tests written into the file of an earlier run: the paths the project's style was
    read for, how many times each text was parsed on the way into the file (the tests'
    grouping, ``emit.module``, reads them before the style rewrites them: not counted), and
    how many times each of the project's tools was looked up."""
    (tmp_path / "pyproject.toml").write_text(PROJECT)
    output = Output(tmp_path / "tests" / "test_words_miogen.py", tmp_path)
    write_module(run_of(tmp_path, [record("test_one", "assert letters() == 'ab'")]), output)
    styles: list[Path] = []
    parsed: Counter[str] = Counter()

    def read_style(test_path: Path, current: Path | None = None) -> Style:
        styles.append(test_path)
        return style.project_style(test_path, current)

    def counted(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
        parsed[str(source)] += 1
        return syntax.parse(source, filename)

    for name in ("run.write", "emit.writer", "emit.checks"):
        monkeypatch.setattr(f"miogen.{name}.project_style", read_style, raising=False)
    looked_up: Counter[str] = Counter()
    for module in ("miogen.emit.tools", "miogen.emit.formatting", "miogen.emit.checks"):
        if importlib.util.find_spec(module) is None:
            continue  # (the tools' lookups were the formatter's before they had a module)
        for tool in ("ruff_executable", "mypy_executable"):
            found = getattr(importlib.import_module(module), tool, None)
            if found is not None:
                monkeypatch.setattr(f"{module}.{tool}", counting(looked_up, tool, found))
    for name in ("source", "imports", "placement", "layout", "formatting", "style"):
        monkeypatch.setattr(f"miogen.emit.{name}.parse", counted, raising=False)
    tests = [
        record("test_two", "assert letters() != 'b'"),
        record("test_three", "assert letters()"),
    ]
    run = run_of(tmp_path, tests)
    write_module(run, output)
    assert run.merge is not None and run.merge.added == ["test_two", "test_three"]
    return output, styles, parsed, looked_up


def counting(
    counter: Counter[str], name: str, lookup: Callable[[Path | None], str | None]
) -> Callable[[Path | None], str | None]:
    def counted(root: Path | None) -> str | None:
        counter[name] += 1
        return lookup(root)

    return counted


def test_a_write_reads_the_projects_style_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The writer's caller reads the style and hands it down; the written file is checked in
    the style it was made in (issue 25: not read again by the writer or for the checks)."""
    output, styles, _, _ = second_write(tmp_path, monkeypatch)
    assert styles == [output.path]


def test_a_write_parses_each_text_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Each test placed, the required imports and the formatter's output are parsed once on
    the way into the file, their trees handed on (issue 25)."""
    _, _, parsed, _ = second_write(tmp_path, monkeypatch)
    assert "from __future__ import annotations" in parsed
    assert [text for text, times in parsed.items() if times > 1] == []


def test_a_write_looks_the_projects_tools_up_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The project's ruff is looked up once per write and handed to the formatter, its safe fixes and the checks of the written file (issue 25: the
    formatter, the fixes and the checks each looked it up again)."""
    _, _, _, looked_up = second_write(tmp_path, monkeypatch)
    assert looked_up == Counter({"ruff_executable": 1})


def test_an_output_confined_before_the_run_is_checked_again_at_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """``run.generate`` confines the output before the run (a refused output costs no search)
    and the write checks it again: the run takes minutes, and a folder on the path may have
    become a link out of the project meanwhile. Nothing is written there."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "pyproject.toml").write_text(PROJECT)
    path = project / "tests" / "test_words_miogen.py"
    path.parent.mkdir()
    output = Output(path, project)
    checked: list[Path] = []

    def counted(root: str | Path, candidate: str | Path, setting: str) -> Path:
        checked.append(Path(candidate))
        return confine_module.inside(root, candidate, setting)

    confined = confine(output.root, output.path, output.setting)
    monkeypatch.setattr("miogen.emit.targets.inside", counted)
    run = run_of(project, [record("test_one", "assert letters() == 'ab'")])
    write_module(run, output, confined=confined)
    assert (run.output, checked) == (path, [path]) and "def test_one" in path.read_text()
    (project / "tests").rename(project / "tests-before")
    (project / "tests").symlink_to(outside, target_is_directory=True)
    run = run_of(project, [record("test_two", "assert letters() != 'b'")])
    with pytest.raises(OutsideRoot):
        write_module(run, output, confined=confined)
    assert list(outside.iterdir()) == []
