"""The generate command's edit goes to the editor's preview (change annotations that need
confirmation), and is written only when the user accepts it; ``previewTests`` turns that off."""

from __future__ import annotations

from lsp_support import E2E, SHAPES
from lsprotocol import types
from miogen.emit.files import HEADER

pytestmark = E2E


def _annotations(edit: types.WorkspaceEdit) -> tuple[dict, list[str | None]]:
    """The edit's annotations, and the annotation id of each of its operations and text edits."""
    ids: list[str | None] = []
    for operation in edit.document_changes or []:
        if isinstance(operation, types.TextDocumentEdit):
            ids += [getattr(e, "annotation_id", None) for e in operation.edits]
        else:
            ids.append(getattr(operation, "annotation_id", None))
    return dict(edit.change_annotations or {}), ids


async def test_the_generated_tests_come_as_an_edit_to_confirm(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    applied = len(editor.recorder.applied)
    result = await editor.command("miogen.generateTests", path, "Stack")
    assert result["applied"] and result["message"] == ""
    [params] = editor.recorder.applied[applied:]
    annotations, ids = _annotations(params.edit)
    if editor.profile == "visual-studio-code":  # it declares changeAnnotationSupport
        [(key, annotation)] = annotations.items()
        assert annotation.needs_confirmation and "Stack" in annotation.label
        assert ids and set(ids) == {key}, "every change waits for the user"
        assert any(isinstance(o, types.CreateFile) for o in params.edit.document_changes)
    else:  # Neovim 0.7 cannot show a preview: the edit is a plain one
        assert annotations == {} and set(ids) <= {None}
    test_file = editor.project / "tests" / "test_shapes_miogen.py"
    assert test_file.read_text("utf-8").startswith(HEADER)


async def test_preview_tests_off_sends_a_plain_edit(editor):
    editor.configure(previewTests=False)
    path = editor.write("shapes.py")
    editor.open(path)
    applied = len(editor.recorder.applied)
    result = await editor.command("miogen.generateTests", path, "sign")
    assert result["applied"]
    [params] = editor.recorder.applied[applied:]
    annotations, ids = _annotations(params.edit)
    assert annotations == {} and set(ids) <= {None}


async def test_a_discarded_preview_writes_nothing(editor):
    if editor.profile != "visual-studio-code":
        return  # no preview there
    editor.write("tests/__init__.py", "")
    editor.write("geometry/__init__.py", "")
    path = editor.write("geometry/shapes.py", SHAPES)
    editor.open(path)
    recorder = editor.recorder
    recorder._apply_edit = lambda params: (  # the user discards the preview
        recorder.applied.append(params) or types.ApplyWorkspaceEditResult(applied=False)
    )
    try:
        result = await editor.command("miogen.generateTests", path, "Stack")
    finally:
        del recorder._apply_edit
    assert not result["applied"] and "discarded" in result["message"]
    folder = editor.project / "tests" / "geometry"
    assert not folder.exists(), "nothing is written before the user accepts"

    result = await editor.command("miogen.insertTests", path, "Stack")  # accepted this time
    assert result["applied"]
    assert (folder / "__init__.py").exists() and (folder / "test_shapes_miogen.py").exists()
