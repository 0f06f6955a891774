"""What a save generates: the units whose code changed, then untested units near the last edit.

Pure planning for the save flow (``onsave.Saves``), which calls it once per save with what the
steps before it found: the file's place, its analysis and the units' records.

A unit is untested when it has no result in this session (no job was ever started for it) and the
continuous-generation history (``.miogen/history.sqlite``, common/history.py) has nothing for it.
Untested units fill the job limit left after the changed ones, nearest to the last edit first, so
that the first save of a file that never had tests starts generating where the user works.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from miogen.common.history import DEFAULT_PATH, recorded_units
from miogen.host.config import SaveMode
from miogen.lsp.documents import UnitRecord
from miogen.lsp.locator import Place
from miogen.lsp.snapshot import Snapshot, UnitShape, quick_fingerprints


@dataclass(frozen=True)
class SavePlan:
    changed: list[UnitShape] = field(default_factory=list)
    untested: list[UnitShape] = field(default_factory=list)
    waiting: int = 0  # untested units beyond the job limit: a later save takes them

    @property
    def units(self) -> list[UnitShape]:
        return self.changed + self.untested

    def describe(self, mode: SaveMode) -> str:
        """The log's account: what runs and why, or why nothing does."""
        names = [f"{s.name} (changed)" for s in self.changed]
        names += [f"{s.name} (untested)" for s in self.untested]
        wait = f"; {self.waiting} more untested units wait for a later save" if self.waiting else ""
        if names:
            return "generating " + ", ".join(names) + wait
        if mode == "changed":
            return "nothing to generate: no unit changed (generateOnSave is changed)"
        if self.waiting:
            return "nothing to generate now: no unit changed and the job limit is reached" + wait
        return "nothing to generate: no unit changed, and every unit has a result or a history"


def untested(record: UnitRecord | None) -> bool:
    """No job ever ran for the unit in this session (results, failures, cancels all count)."""
    return record is None or (record.job is None and record.final is None and not record.failure)


def distance(shape: UnitShape, line: int | None) -> int:
    """Lines between the unit and ``line`` (0 inside it); without an edit, the file's order."""
    if line is None:
        return shape.unit.line
    return max(shape.unit.line - line, line - shape.unit.end_line, 0)


def plan_save(
    snapshot: Snapshot,
    records: Mapping[str, UnitRecord],
    mode: SaveMode,
    recorded: set[str],
    last_edit: int | None,
    limit: int,
    busy: set[str],
) -> SavePlan:
    """``recorded``: units with a history; ``limit``: the parallel job limit, which untested
    units fill after the changed ones and the units ``busy`` with a job already."""
    if mode == "off":
        return SavePlan()
    unseen = [  # untested, nearest to the last edit first
        shape
        for name, shape in snapshot.units.items()
        if untested(records.get(name)) and name not in recorded
    ]
    unseen.sort(key=lambda shape: (distance(shape, last_edit), shape.unit.line))
    changed = [  # a unit added since the file was opened has no record: it changed
        shape
        for name, shape in snapshot.units.items()
        if records.get(name, UnitRecord()).needs_job(shape.fingerprint)
    ]
    if mode == "changed":
        return SavePlan(changed)
    taken = {shape.name for shape in changed}
    candidates = [shape for shape in unseen if shape.name not in taken]
    room = max(0, limit - len(taken | busy))
    return SavePlan(changed, candidates[:room], max(0, len(candidates) - room))


def changed_at_a_glance(
    previous: Snapshot, source: str, records: Mapping[str, UnitRecord]
) -> list[str]:
    """The units of ``previous`` whose code changed in ``source``, from a parse and a few hashes
    (a fraction of an analysis): what a save can show as queued before its analysis is done.
    Reads no file; run it off the event loop."""
    helpers = {name: shape.helpers for name, shape in previous.units.items()}
    found = quick_fingerprints(source, helpers) or {}
    return [
        name for name, value in found.items() if records.get(name, UnitRecord()).needs_job(value)
    ]


def history_of(project_root: Path, path: Path) -> set[str]:
    """The units of the module at ``path`` that the project's history knows (reads a file)."""
    try:
        module = path.resolve().relative_to(project_root.resolve()).as_posix()
    except ValueError:
        return set()
    return recorded_units(project_root / DEFAULT_PATH, module)


def skipped(place: Place) -> tuple[str, bool] | None:
    """Why a save of the file at ``place`` generates nothing, and whether that is a warning;
    None when it generates."""
    name, settings = place.path.name, place.settings
    if settings.save_mode == "off":
        switch = "generateOnSave" if settings.on_save else "onSave"
        return f"miogen: {name} saved; {switch} is off", False
    if place.test_file:
        return f"miogen: {name} is a test file; nothing to generate", False
    if place.folder is None:
        where = f"{place.path} is outside the workspace folders"
        return f"miogen: {name} saved; not generating: {where}", True
    return None
