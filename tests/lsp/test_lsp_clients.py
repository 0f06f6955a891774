"""Per-client setup on a server of the test's own: settings from three places, position encodings."""

from __future__ import annotations

import pytest
from lsp_support import E2E, SHAPES, Editor, edited_sign, line_of, start
from lsprotocol import types

pytestmark = E2E

BAD_OPTIONS = {
    "budgetSeconds": "fast",
    "maxParallelJobs": 0,
    "diagnosticSeverity": "loud",
    "onSave": "yes",
    "testFilePattern": "tests_for_everything.py",
    "interpreter": "/usr/bin/python3",  # client-only: ignored without a word
}


def _configure(client, values: dict) -> None:
    """What an editor does when the user changes settings: store, then push (and be pulled)."""
    client.set_configuration(values, section="miogen")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"miogen": values})
    )


async def test_settings_come_from_three_places_and_bad_values_fall_back(fresh, tmp_path):
    root = tmp_path / "ws"
    editor = Editor(fresh, root / "project")
    await start(fresh, fresh.profile, [root], options=BAD_OPTIONS)
    ignored = await editor.wait(lambda: len(editor.logs("ignoring")) == 5, "five complaints")
    assert ignored and not editor.logs("interpreter")
    assert editor.logs("budgetSeconds=5.0") and editor.logs("maxParallelJobs=1")

    editor.configure(**{"budget-seconds": 1, "diagnostic_severity": "warning"})
    (editor.project / "pyproject.toml").write_text(
        (editor.project / "pyproject.toml").read_text() + 'tests-directory = "checks"\n'
    )
    _configure(fresh, {"showCoveredBranches": False, "diagnosticSeverity": "hint"})
    await editor.wait(lambda: editor.logs("showCoveredBranches=False"), "the new settings")

    path = editor.write("shapes.py")
    editor.open(path)
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign")
    [miss] = await editor.wait(lambda: editor.diagnostics(path), "diagnostics")
    assert miss.code == "uncovered-branch", "covered branches are hidden by the editor setting"
    assert miss.severity == types.DiagnosticSeverity.Hint, "editorFirst: the editor's value wins"
    [action] = await editor.actions(path, line_of(SHAPES, "x < 0"), only=["source"])
    assert action.title.endswith("for sign into checks/test_shapes_miogen.py"), (
        "the file's, unset there"
    )

    # configurationPreference (ruff's model): the project file first, then the editor alone.
    editor_values = {"showCoveredBranches": False, "diagnosticSeverity": "hint"}
    _configure(fresh, {**editor_values, "configurationPreference": "filesystemFirst"})
    await editor.wait(lambda: _severity(editor, path) == "Warning", "the project file's severity")
    _configure(fresh, {**editor_values, "configurationPreference": "editorOnly"})
    await editor.wait(lambda: _severity(editor, path) == "Hint", "the editor's severity")
    [action] = await editor.actions(path, line_of(SHAPES, "x < 0"), only=["source"])
    assert action.title.endswith("for sign into tests/test_shapes_miogen.py"), "the file is ignored"

    _configure(fresh, {"onSave": False})
    await editor.wait(lambda: editor.logs("onSave=False"), "onSave off")
    editor.save(path, edited_sign("return 3"))
    await editor.wait(lambda: editor.logs("saved; onSave is off"), "the save to be handled")
    assert editor.times_queued("sign") == 1
    editor.close_all()


def _severity(editor: Editor, path) -> str | None:
    found = editor.diagnostics(path)
    return types.DiagnosticSeverity(found[0].severity).name if len(found) == 1 else None


UNICODE = """\
def greet(name: str) -> int:
    if name == "héllo wörld 😀" and len(name) > 3:
        return 1
    return 0
"""


@pytest.mark.parametrize("fresh", ["visual-studio-code", "neovim@v0.11.0"], indirect=True)
async def test_positions_are_in_the_encoding_the_client_chose(fresh, tmp_path):
    root = tmp_path / "ws"
    editor = Editor(fresh, root / "project")
    await start(fresh, fresh.profile, [root])
    path = editor.write("greet.py", UNICODE)
    editor.open(path)
    editor.save(path, UNICODE.replace("return 0", "return -1"))
    await editor.wait_job("greet")
    diagnostics = await editor.wait(lambda: editor.diagnostics(path), "diagnostics")
    condition = 'name == "héllo wörld 😀" and len(name) > 3'
    encoding = "utf-8" if "neovim" in fresh.profile else "utf-16-le"
    width = len(condition.encode(encoding)) // (1 if encoding == "utf-8" else 2)
    ranges = {(d.range.start.character, d.range.end.character) for d in diagnostics}
    assert ranges == {(7, 7 + width)}
    editor.close_all()


async def test_each_workspace_folder_gets_its_own_settings(fresh, tmp_path):
    """A multi-root workspace: the server asks per folder (scopeUri) and each folder's answer wins."""
    first, second = Editor(fresh, tmp_path / "first"), Editor(fresh, tmp_path / "second")
    everywhere = {"diagnosticSeverity": "information", "showCoveredBranches": False}
    fresh.set_configuration(everywhere, section="miogen")
    fresh.set_configuration(
        {**everywhere, "diagnosticSeverity": "warning", "testsDirectory": "checks"},
        section="miogen",
        scope_uri=second.project.as_uri(),
    )
    await start(fresh, fresh.profile, [first.project, second.project])
    if fresh.profile.startswith("neovim"):  # Neovim 0.7 answers every scope alike
        pytest.skip("the client ignores scopeUri")
    await first.wait(lambda: first.logs(f"settings for {second.project}"), "the folder's settings")

    found = {}
    for editor, severity in ((first, "Information"), (second, "Warning")):
        path = editor.write("shapes.py")
        editor.open(path)
        editor.save(path, edited_sign("return 2"))
        await editor.wait_job("sign")
        [miss] = await editor.wait(lambda: editor.diagnostics(path), "diagnostics")  # noqa: B023
        assert miss.severity == types.DiagnosticSeverity[severity]
        [action] = await editor.actions(path, line_of(SHAPES, "x < 0"), only=["source"])
        found[editor.project.name] = action.title
    assert found["first"].endswith("for sign into tests/test_shapes_miogen.py")
    assert found["second"].endswith("for sign into checks/test_shapes_miogen.py")
    first.close_all()
    second.close_all()
