"""Conversions from miogen's records to LSP types and the protocol's JSON (docs/lsp-protocol.md).

Lines inside miogen are 1-based and characters are str indices; LSP positions are 0-based lines
and characters in the client's encoding (UTF-16 unless negotiated), converted here only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from miogen.analysis.model import Target
from miogen.criteria.summary import describe
from miogen.emit.merge import TextEdit as MergeEdit
from miogen.lsp.protocol import (
    COVERED_BRANCH,
    GENERATE,
    IMPORT_ERROR,
    SOURCE,
    UNCOVERED_BRANCH,
    WORKER_FAILED,
    JobState,
    JobStatusParams,
    UnitInfo,
    UnitRef,
)
from miogen.lsp.protocol import Range as RangeJson
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import Outline, Snapshot, Span, UnitShape, line_span
from miogen.lsp.views import Branch, UnitView

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


# --- positions ------------------------------------------------------------------------------


def position(
    lines: Sequence[str], line: int, character: int, codec: PositionCodec
) -> types.Position:
    """A 0-based line and str index as a client position."""
    return codec.position_to_client_units(lines, types.Position(line=line, character=character))


def span_range(lines: Sequence[str], span: Span, codec: PositionCodec) -> types.Range:
    start_line, start, end_line, end = span
    return types.Range(
        start=position(lines, start_line, start, codec), end=position(lines, end_line, end, codec)
    )


def unit_range(snapshot: Snapshot, shape: UnitShape, codec: PositionCodec) -> types.Range:
    """From the unit's first line (decorators included) to the end of its last line."""
    last = snapshot.lines[shape.unit.end_line - 1] if snapshot.lines else ""
    span = (shape.unit.line - 1, 0, shape.unit.end_line - 1, len(last.rstrip("\r\n")))
    return span_range(snapshot.lines, span, codec)


def header_range(snapshot: Snapshot, shape: UnitShape, codec: PositionCodec) -> types.Range:
    """The unit's first line: where lenses and unit-wide diagnostics go."""
    return span_range(snapshot.lines, snapshot.statement_span(shape.unit.line), codec)


def range_json(value: types.Range) -> RangeJson:
    return {
        "start": {"line": value.start.line, "character": value.start.character},
        "end": {"line": value.end.line, "character": value.end.character},
    }


# --- diagnostics ----------------------------------------------------------------------------


def covered_label(target: Target) -> str:
    """Like "`x > 10` true" or "loop `for x in xs` entered": the taken side of a branch."""
    if target.kind == "line":
        return f"line {target.line}"
    if target.condition.startswith("for "):
        return f"loop `{target.condition}` " + ("entered" if target.positive else "completed")
    if target.condition:
        return f"`{target.condition}` " + ("true" if target.positive else "false")
    return target.description


def branch_diagnostic(
    branch: Branch, unit: str, snapshot: Snapshot, settings: Settings, codec: PositionCodec
) -> types.Diagnostic | None:
    """Uncovered targets at the configured severity; covered ones as Hints (if shown)."""
    target = branch.target
    data: dict[str, object] = {"unit": unit, "line": target.line - 1}
    if target.arc:
        data["arc"] = list(target.arc)
    span = snapshot.span_of(target.line) if target.arc else snapshot.statement_span(target.line)
    text_range = span_range(snapshot.lines, span, codec)
    if not branch.covered:
        closest = f" — closest: {branch.closest}" if branch.closest else ""
        return types.Diagnostic(
            range=text_range,
            message=f"{target.short}{closest}",
            severity=SEVERITY[settings.diagnostic_severity],
            source=SOURCE,
            code=UNCOVERED_BRANCH,
            data=data,
        )
    if not settings.show_covered_branches:
        return None
    test = f"covered by {branch.test}" if branch.test else "covered (the search is still running)"
    return types.Diagnostic(
        range=text_range,
        message=f"{covered_label(target)}: {test}",
        severity=types.DiagnosticSeverity.Hint,
        source=SOURCE,
        code=COVERED_BRANCH,
        data=data,
    )


def import_error_diagnostic(
    message: str, snapshot: Snapshot | None, codec: PositionCodec
) -> types.Diagnostic:
    lines = snapshot.lines if snapshot else []
    first = lines[0].rstrip("\r\n") if lines else ""
    return types.Diagnostic(
        range=span_range(lines, (0, 0, 0, len(first)), codec),
        message=f"miogen cannot import this module: {message}",
        severity=types.DiagnosticSeverity.Error,
        source=SOURCE,
        code=IMPORT_ERROR,
    )


def worker_failed_diagnostic(
    shape: UnitShape, snapshot: Snapshot, message: str, codec: PositionCodec
) -> types.Diagnostic:
    return types.Diagnostic(
        range=header_range(snapshot, shape, codec),
        message=message,
        severity=types.DiagnosticSeverity.Warning,
        source=SOURCE,
        code=WORKER_FAILED,
        data={"unit": shape.name},
    )


# --- custom notifications and commands ------------------------------------------------------


def unit_json(snapshot: Snapshot, shape: UnitShape, codec: PositionCodec) -> UnitInfo:
    return {
        "name": shape.name,
        "kind": "class" if shape.unit.kind == "class" else "function",
        "range": range_json(unit_range(snapshot, shape, codec)),
    }


def counts_label(covered: int, total: int) -> str:
    return f"{covered}/{total} branches"


def job_status(
    uri: str, unit: str, state: JobState, percent: float, covered: int, total: int, message: str
) -> JobStatusParams:
    return {
        "uri": uri,
        "unit": unit,
        "state": state,
        "percent": round(percent, 1),
        "covered": covered,
        "total": total,
        "message": message,
    }


def unit_ref(uri: str, unit: str) -> UnitRef:
    """The commands' single argument."""
    return {"uri": uri, "unit": unit}


def code_lens(
    snapshot: Snapshot,
    shape: UnitShape,
    uri: str,
    counts: tuple[int, int] | None,
    codec: PositionCodec,
    tooltip: str | None = None,
) -> types.CodeLens:
    """The unit's lens: branches in the title (what diagnostics show), ``tooltip`` on hover."""
    title = "miogen: Generate tests"
    if counts is not None:
        title = f"miogen: {counts_label(*counts)} · Generate tests"
    arguments: list[Any] = [unit_ref(uri, shape.name)]
    return types.CodeLens(
        range=header_range(snapshot, shape, codec),
        command=types.Command(title, GENERATE, tooltip=tooltip, arguments=arguments),
    )


def outline_lenses(found: Outline, uri: str, codec: PositionCodec) -> list[types.CodeLens]:
    """The lenses of a text not analysed yet: one per unit, without counts (none are known)."""
    return [
        types.CodeLens(
            range=span_range(found.lines, line_span(found.lines, line), codec),
            command=types.Command(
                "miogen: Generate tests", GENERATE, arguments=[unit_ref(uri, name)]
            ),
        )
        for name, line in found.units
    ]


def criteria_tooltip(view: UnitView) -> str | None:
    """The other criteria on a verified result, for the lens's hover: lines as coverage.py ran
    them, the rest as the worker measured them on the emitted tests.

    "Other criteria: line 20/24, weak-mutation 31/40, ..., exception 2 found, output 5/6"
    """
    if not view.final or not view.criteria:
        return None
    statements = view.shape.statements
    numbers: dict[str, dict[str, object]] = {
        "line": {"covered": len(view.executed & set(statements)), "total": len(statements)}
    }
    for name, coverage in view.criteria.items():
        if name not in ("branch", "line"):
            numbers[name] = {"covered": coverage.covered, "total": coverage.total}
    return f"Other criteria: {describe(numbers)}"


def hover(
    text: str, snapshot: Snapshot, shape: UnitShape, codec: PositionCodec, markdown: bool
) -> types.Hover:
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    shown = text if markdown else text.replace("**", "").replace("`", "")
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=shown),
        range=header_range(snapshot, shape, codec),
    )


def generate_action(uri: str, unit: str, kind: str) -> types.CodeAction:
    title = f"Generate tests for {unit}"
    return types.CodeAction(
        title=title,
        kind=kind,
        command=types.Command(title=title, command=GENERATE, arguments=[unit_ref(uri, unit)]),
    )


def insert_action(
    title: str,
    kind: str,
    edit: types.WorkspaceEdit | None,
    diagnostic: types.Diagnostic | None = None,
    *,
    command: types.Command | None = None,
    data: object = None,
) -> types.CodeAction:
    """Carries the edit, or ``data`` to resolve it later, or the command that inserts."""
    return types.CodeAction(
        title=title,
        kind=kind,
        edit=edit,
        command=command,
        data=data,
        diagnostics=[diagnostic] if diagnostic else None,
        is_preferred=True if diagnostic else None,
    )


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """``context.only`` asks for kinds and their sub-kinds ("source" covers "source.x")."""
    if not only:
        return True
    return any(kind == item or kind.startswith(f"{item}.") for item in only)


# --- edits ----------------------------------------------------------------------------------


def text_edits(
    edits: Sequence[MergeEdit], existing: str, codec: PositionCodec
) -> list[types.TextEdit]:
    lines = existing.splitlines(keepends=True)
    return [
        types.TextEdit(
            range=span_range(
                lines, (e.start_line, e.start_character, e.end_line, e.end_character), codec
            ),
            new_text=e.new_text,
        )
        for e in edits
    ]


def workspace_edit(
    uri: str,
    edits: list[types.TextEdit],
    *,
    create: bool,
    version: int | None,
    document_changes: bool,
) -> types.WorkspaceEdit:
    """Creates the file only when it does not exist, then inserts; ``changes`` for old clients.

    The ``CreateFile`` carries no options: the server has just seen that the file is absent, and
    clients differ on ``ignoreIfExists`` (Neovim then only adds a buffer, without the file or its
    folder on disk, so the inserted tests could not be written).
    """
    if not document_changes:
        return types.WorkspaceEdit(changes={uri: edits})
    operations: list[types.TextDocumentEdit | types.CreateFile] = []
    if create:
        operations.append(types.CreateFile(uri=uri))
    operations.append(
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=edits,
        )
    )
    return types.WorkspaceEdit(document_changes=operations)


PREVIEW_ANNOTATION = "miogen.generatedTests"


def needing_confirmation(edit: types.WorkspaceEdit, label: str) -> types.WorkspaceEdit:
    """``edit`` with every operation under one change annotation that needs confirmation: VS
    Code shows it in its Refactor Preview and applies it only when the user accepts.

    Annotations exist only inside ``documentChanges``: an edit in ``changes`` is returned as is.
    """
    if edit.document_changes is None:
        return edit
    operations: list[Any] = []
    for operation in edit.document_changes:
        if isinstance(operation, types.TextDocumentEdit):
            annotated: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = [
                types.AnnotatedTextEdit(
                    range=e.range, new_text=e.new_text, annotation_id=PREVIEW_ANNOTATION
                )
                for e in operation.edits
                if isinstance(e, types.TextEdit)
            ]
            operations.append(
                types.TextDocumentEdit(text_document=operation.text_document, edits=annotated)
            )
        elif isinstance(operation, types.CreateFile):
            operations.append(
                types.CreateFile(
                    uri=operation.uri,
                    options=operation.options,
                    annotation_id=PREVIEW_ANNOTATION,
                )
            )
        else:
            operations.append(operation)
    annotation = types.ChangeAnnotation(
        label=label,
        needs_confirmation=True,
        description="miogen writes them when you apply the preview",
    )
    return types.WorkspaceEdit(
        document_changes=operations, change_annotations={PREVIEW_ANNOTATION: annotation}
    )
