"""What an open file shows: its diagnostics, its ``miogen/coverage`` notification, its hovers."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from miogen.lsp import convert
from miogen.lsp.documents import Document, UnitRecord
from miogen.lsp.protocol import CoverageParams, CoverageUnit, MissingBranch
from miogen.lsp.settings import Settings
from miogen.lsp.snapshot import Snapshot, UnitShape
from miogen.lsp.views import Rendered, render

_RANK = {"uncovered": 0, "partial": 1, "covered": 2}  # a line shared by two units shows the best
MAX_HOVER_MISSES = 8


def present(
    doc: Document, settings: Settings, codec: PositionCodec, version: int | None
) -> tuple[list[types.Diagnostic], CoverageParams]:
    """The document's diagnostics and its ``miogen/coverage`` payload, on its current text."""
    snapshot = None if doc.broken else doc.snapshot
    diagnostics: list[types.Diagnostic] = []
    lines: dict[int, str] = {}
    missing: list[MissingBranch] = []
    units: list[CoverageUnit] = []
    if snapshot is not None and doc.import_error:
        diagnostics.append(convert.import_error_diagnostic(doc.import_error, snapshot, codec))
    for shape in doc.shapes() if snapshot is not None else []:
        assert snapshot is not None
        record = doc.units.get(shape.name) or UnitRecord()
        view = record.view
        rendered = render(view, shape) if view is not None else None
        counts = (len(view.covered), view.total) if view and rendered else (0, len(shape.targets))
        unit = convert.unit_json(snapshot, shape, codec)
        state = record.state(shape.fingerprint)
        units.append({**unit, "covered": counts[0], "total": counts[1], "state": state})
        diagnostics += _problems(record, shape, snapshot, codec)
        if rendered is not None:
            _add_lines(lines, rendered)
            diagnostics += _branches(rendered, shape, snapshot, settings, codec, missing)
    coverage: CoverageParams = {
        "uri": doc.uri,
        "version": version,
        "lines": {
            "covered": _kind(lines, "covered"),
            "partial": _kind(lines, "partial"),
            "uncovered": _kind(lines, "uncovered"),
        },
        "missing": missing,
        "units": units,
    }
    return diagnostics, coverage


def _kind(lines: dict[int, str], kind: str) -> list[int]:
    return sorted(n - 1 for n, k in lines.items() if k == kind)


def _problems(
    record: UnitRecord, shape: UnitShape, snapshot: Snapshot, codec: PositionCodec
) -> list[types.Diagnostic]:
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
    missing: list[MissingBranch],
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


def unit_summary(doc: Document, shape: UnitShape) -> str:
    """What the hover on a unit's first line says (Markdown)."""
    record = doc.units.get(shape.name) or UnitRecord()
    head = f"**miogen** · `{shape.name}`: "
    state = record.state(shape.fingerprint)
    view = record.view
    rendered = render(view, shape) if view is not None else None
    if state in ("queued", "running"):
        so_far = f", {len(view.covered)}/{view.total} branches so far" if view and rendered else ""
        return head + f"generating ({state}{so_far})"
    if state == "failed" and record.failure is not None:
        return head + record.failure[1]
    if record.outdated is not None:
        return (
            head
            + f"the last result may no longer hold ({record.outdated}); the next save generates again"
        )
    if view is None or rendered is None:
        if record.final is not None:
            return head + "the code changed since the last result; save to generate again"
        return head + "no tests generated yet; save, or run “Generate tests”"
    tests = len(view.tests)
    text = (
        head
        + f"{len(view.covered)}/{view.total} branches covered by {tests} generated tests (coverage.py)"
    )
    missing = [b for b in rendered.branches if not b.covered]
    for branch in missing[:MAX_HOVER_MISSES]:
        closest = f" (closest: {branch.closest})" if branch.closest else ""
        text += f"\n- line {branch.target.line}: {branch.target.short}{closest}"
    if len(missing) > MAX_HOVER_MISSES:
        text += f"\n- and {len(missing) - MAX_HOVER_MISSES} more"
    others = convert.criteria_tooltip(view)  # issue 15: the criteria besides branches
    return text + f"\n\n{others}" if others is not None else text
