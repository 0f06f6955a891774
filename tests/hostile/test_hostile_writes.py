"""A hostile repository's settings and symlinks never make miogen write outside the project.

The repository chooses ``[tool.miogen]`` and may hold symlinks: ``tests-directory = "../outside"``,
a ``tests`` folder or a test file linking elsewhere, a ``.miogen`` history folder linking
elsewhere. Through the CLI (``generate``, ``ctg``) and the language server, nothing is written
outside; the refusal names the setting.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_world import tree
from pytest_lsp import ClientServerConfig

sys.path.insert(0, str(Path(__file__).parents[1] / "lsp"))
from lsp_support import SERVER, Editor, start  # noqa: E402 - beside the LSP tests, not a package

CALC = """\
def sign(x: int) -> int:
    if x > 0:
        return 1
    return 0
"""


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    """A project (a cloned repository) and a folder beside it that must stay as it is."""
    project, outside = tmp_path / "proj", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "test_calc.py").write_text("# the user's own file elsewhere\n")
    (project / "calc.py").write_text(CALC)
    (project / ".git").mkdir()
    return project, outside


def settings(project: Path, **values: str) -> None:
    lines = "".join(f'{key} = "{value}"\n' for key, value in values.items())
    (project / "pyproject.toml").write_text(f'[project]\nname = "p"\n\n[tool.miogen]\n{lines}')


def miogen(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "miogen", *args], cwd=project, capture_output=True, text=True,
        timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_tests_directory_climbing_out_of_the_project_is_refused_by_name(repo):
    project, outside = repo
    before = tree(outside)
    settings(project, **{"tests-directory": "../outside"})
    done = miogen(project, "generate", "calc.py", "--evaluations", "50")
    assert done.returncode == 2, done.stdout
    assert "tests-directory" in done.stderr and "inside the project" in done.stderr, done.stderr
    assert tree(outside) == before


@pytest.mark.parametrize("link", ["folder", "file"])
def test_a_tests_folder_or_file_linking_outward_gets_nothing_written(repo, link):
    project, outside = repo
    before = tree(outside)
    settings(project)
    if link == "folder":
        (project / "tests").symlink_to(outside, target_is_directory=True)
    else:
        (project / "tests").mkdir()
        (project / "tests" / "test_calc_miogen.py").symlink_to(outside / "test_calc.py")
    done = miogen(project, "generate", "calc.py", "--evaluations", "50")
    assert done.returncode == 2, done.stdout
    assert "refusing to write" in done.stderr and "tests-directory" in done.stderr, done.stderr
    assert str(outside) in done.stderr
    assert tree(outside) == before


def test_an_output_inside_the_project_may_not_be_led_out_by_a_symlink(repo):
    project, outside = repo
    before = tree(outside)
    settings(project)
    (project / "tests").symlink_to(outside, target_is_directory=True)
    done = miogen(project, "generate", "calc.py", "--evaluations", "50",
                  "--output", "tests/test_mine.py")  # fmt: skip
    assert done.returncode == 2 and "check --output" in done.stderr, done.stderr
    assert tree(outside) == before


def test_ctg_writes_no_test_file_and_no_history_outside(repo):
    project, outside = repo
    before = tree(outside)
    settings(project)
    (project / "tests").symlink_to(outside, target_is_directory=True)
    done = miogen(project, "ctg", ".", "--budget", "0.5", "--strategy", "simple")
    assert "refusing to write" in done.stderr, done.stderr  # a warning: the other modules go on
    assert tree(outside) == before

    (project / "tests").unlink()
    (project / ".miogen").symlink_to(outside, target_is_directory=True)
    done = miogen(project, "ctg", ".", "--budget", "0.5")
    assert done.returncode == 2, done.stdout
    assert "the history folder .miogen" in done.stderr, done.stderr
    assert tree(outside) == before


async def test_the_server_sends_no_edit_and_creates_nothing_outside(repo):
    project, outside = repo
    before = tree(outside)
    config = ClientServerConfig(
        server_command=SERVER.server_command, client_factory=SERVER.client_factory
    )
    client = await config.start()
    try:
        await start(client, "visual-studio-code", [project])
        editor = Editor(client, project)
        editor.configure(evaluations=50, testsDirectory="../outside/evil")
        path = project / "calc.py"
        editor.open(path)
        # The project file's value is refused (and reported): the default folder is used.
        answer = await editor.command("miogen.generateTests", path, "sign")
        assert answer["applied"], answer
        assert Path(answer["testFile"]) == project / "tests" / "test_calc_miogen.py"
        assert editor.logs("inside the project root"), client.log_messages

        shutil.rmtree(project / "tests")
        (project / "tests").symlink_to(outside, target_is_directory=True)
        applied = len(editor.recorder.applied)
        with pytest.raises(Exception, match="refusing to write .*testsDirectory"):
            await editor.command("miogen.generateTests", path, "sign")
        assert len(editor.recorder.applied) == applied, "no edit was sent"
        assert tree(outside) == before
    finally:
        await client.shutdown_session()
        await client.stop()
