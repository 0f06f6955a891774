"""Where a module's tests are written: the intended file, then the fallbacks beside it.

One step places the file before it is written (``emit.files``): each candidate is named
(``fallback_candidates``), confined to the folder it must resolve into (``common.confine``:
checked as it is reached, before it is read) and given the ``__init__.py`` files its folders
need where the test folder is a package (``common.project``). The writer takes the first
candidate that can be merged into; nothing here reads or writes a test file.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from miogen.common.confine import inside
from miogen.common.project import package_files


@dataclass(frozen=True)
class Target:
    """One candidate for the tests: its path as named, the file written (confined, a symlink's
    target rather than the link) and the package files made before the write."""

    path: Path
    written: Path
    packages: tuple[Path, ...] = ()


def fallback_candidates(test_path: Path) -> Iterator[Path]:
    """``test_x_miogen.py``, then ``test_x_miogen_2.py``, ``_3``... beside ``test_path``
    (``test_x_miogen.py`` itself: ``test_x_miogen_2.py``...)."""
    stem, suffix = test_path.stem, test_path.suffix
    if not stem.endswith("_miogen"):
        yield test_path.with_name(f"{stem}_miogen{suffix}")
        stem = f"{stem}_miogen"
    for counter in itertools.count(2):
        yield test_path.with_name(f"{stem}_{counter}{suffix}")


def targets(
    path: Path,
    root: Path | None,
    setting: str,
    tests_root: Path | None = None,
) -> Iterator[Target]:
    """``path``, then its fallbacks, each confined to ``root`` as it is reached (OutsideRoot
    naming ``setting``; None: not confined) with the package files it needs under
    ``tests_root`` (None: none)."""
    for candidate in itertools.chain([path], fallback_candidates(path)):
        target = inside(root, candidate, setting) if root is not None else candidate
        packages = package_files(tests_root, candidate) if tests_root is not None else []
        yield Target(candidate, Path(os.path.realpath(target)), tuple(packages))
