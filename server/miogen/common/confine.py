"""Every file miogen writes stays inside its root: the one check each writer calls.

A cloned repository chooses its ``[tool.miogen]`` settings and may hold symlinks; neither may
make miogen write anywhere but inside the project (the editor adds: inside a workspace folder).
``inside`` resolves the path as the operating system will when it is opened: every symlink of
the file and of each folder above it, and ``..`` after the symlink before it (``os.path.realpath``);
a path whose resolution leaves the root is refused with a message naming the setting that chose
it. Writers then write to the resolved path, not to the link.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> inside(root, root / "tests" / "test_m.py", "tests-directory") == root.resolve() / "tests" / "test_m.py"
    True
    >>> inside(root, root / ".." / "outside" / "test_m.py", "tests-directory")
    Traceback (most recent call last):
    ...
    miogen.common.confine.OutsideRoot: refusing to write ...: it is outside the project ... (check tests-directory)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from miogen.common.errors import MiogenError


class OutsideRoot(MiogenError):
    """A file miogen would write resolves to a place outside the root it may write in."""

    def __init__(
        self, path: Path, resolved: Path, root: Path, setting: str, what: str = "the project"
    ) -> None:
        where = f"{path}" if path == resolved else f"{path} (resolved: {resolved})"
        super().__init__(
            f"refusing to write {where}: it is outside {what} {root} (check {setting})"
        )
        self.path, self.resolved, self.root, self.setting = path, resolved, root, setting


def resolved(path: str | Path) -> Path:
    """``path`` absolute, with every symlink (of it and its folders) and ``..`` resolved."""
    return Path(os.path.realpath(path))


def inside(root: str | Path, path: str | Path, setting: str) -> Path:
    """The resolved ``path``, or OutsideRoot (naming ``setting``) when it is not under ``root``.

    ``root`` is resolved too (a project reached through a symlink is still itself).
    """
    base, target = resolved(root), resolved(path)
    if not target.is_relative_to(base) or target == base:
        raise OutsideRoot(Path(path), target, base, setting)
    return target


@dataclass(frozen=True)
class Confined:
    """A path ``confine`` checked before a run: it resolved to ``target``, under ``root``. It
    carries the root and the setting to the writer, which checks it (and any fallback beside
    it) again with ``inside(root, ..., setting)`` when it writes: a run takes minutes."""

    path: Path  # as the setting chose it
    target: Path  # where it resolves: the file to write
    root: Path
    setting: str  # named when a path beside it is refused


def confine(root: str | Path, path: str | Path, setting: str) -> Confined:
    """``path`` checked to resolve inside ``root`` (``inside``: OutsideRoot when it does not)."""
    return Confined(Path(path), inside(root, path, setting), Path(root), setting)


def is_inside(root: str | Path, path: str | Path) -> bool:
    """Whether ``path`` resolves to a place under ``root`` (no exception)."""
    base, target = resolved(root), resolved(path)
    return target.is_relative_to(base) and target != base


def escapes(relative: str) -> bool:
    """Whether a folder setting, taken relative to a root, climbs out of it by its ``..``.

    >>> escapes("tests"), escapes("a/../tests"), escapes("../outside"), escapes("a/../../x")
    (False, False, True, True)
    """
    depth = 0
    for part in Path(relative).parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in (".", ""):
            depth += 1
    return False
