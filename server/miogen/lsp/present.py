"""What an open file shows: its diagnostics and its ``miogen/coverage`` notification."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from miogen.lsp import convert
from miogen.lsp.documents import Document, UnitRecord
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.lsp.views import Rendered, render

_RANK = {"uncovered": 0, "partial": 1, "covered": 2}  # a line shared by two units shows the best


def present(
    doc: Document, settings: Settings, codec: PositionCodec, version: int | None
) -> tuple[list[types.Diagnostic], dict]:
    snapshot = None if doc.broken else doc.snapshot
    diagnostics: list[types.Diagnostic] = []
    lines: dict[int, str] = {}
    missing: list[dict] = []
    units: list[dict] = []
    if snapshot is not None and doc.import_error:
        diagnostics.append(convert.import_error_diagnostic(doc.import_error, snapshot, codec))
    for shape in doc.shapes():
        record = doc.units.get(shape.name) or UnitRecord()
        state = record.state(shape.fingerprint)
        view = record.view
        rendered = render(view, shape) if view is not None else None
        covered, total = (len(view.covered), view.total) if rendered else (0, len(shape.targets))
        unit = convert.unit_json(snapshot, shape, codec)
        units.append({**unit, "covered": covered, "total": total, "state": state})
        diagnostics += _problems(record, shape, snapshot, codec)
        if rendered is not None:
            _add_lines(lines, rendered)
            diagnostics += _branches(rendered, shape, snapshot, settings, codec, missing)
    coverage = {
        "uri": doc.uri,
        "version": version,
        "lines": {
            kind: sorted(n - 1 for n, k in lines.items() if k == kind)
            for kind in ("covered", "partial", "uncovered")
        },
        "missing": missing,
        "units": units,
    }
    return diagnostics, coverage


def _problems(record: UnitRecord, shape: UnitShape, snapshot: Snapshot, codec) -> list:
    found = []
    if record.failure is not None and record.failure[0] == shape.fingerprint:
        found.append(convert.worker_failed_diagnostic(shape, snapshot, record.failure[1], codec))
    if record.warnings is not None and record.warnings[0] == shape.fingerprint:
        reasons = "; ".join(dict.fromkeys(record.warnings[1]))
        message = f"miogen: a test crashed or hung the worker ({reasons}); it was left out"
        found.append(convert.worker_failed_diagnostic(shape, snapshot, message, codec))
    return found


def _add_lines(lines: dict[int, str], rendered: Rendered) -> None:
    for kind, found in (
        ("covered", rendered.covered),
        ("partial", rendered.partial),
        ("uncovered", rendered.uncovered),
    ):
        for line in found:
            if line not in lines or _RANK[kind] > _RANK[lines[line]]:
                lines[line] = kind


def _branches(
    rendered: Rendered,
    shape: UnitShape,
    snapshot: Snapshot,
    settings: Settings,
    codec: PositionCodec,
    missing: list[dict],
) -> list[types.Diagnostic]:
    found = []
    for branch in rendered.branches:
        diagnostic = convert.branch_diagnostic(branch, shape.name, snapshot, settings, codec)
        if diagnostic is not None:
            found.append(diagnostic)
        if not branch.covered:
            missing.append(
                {
                    "line": branch.target.line - 1,
                    "description": branch.target.description,
                    "closestMiss": branch.closest or None,
                }
            )
    return found
