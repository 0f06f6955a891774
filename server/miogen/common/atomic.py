"""Writes that never leave a half-written file, and files set aside rather than trusted or deleted.

For the CTG history (and the folder sync of emit's merge into test files): a reader sees the old
content or the new, never a mixture, even if the writer is killed at any instruction or the
machine loses power after ``write_atomically`` returned.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "history.json"
    >>> write_atomically(path, '{"runs": 1}')
    True
    >>> path.read_text()
    '{"runs": 1}'
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from miogen.common.errors import MiogenError

logger = logging.getLogger(__name__)

CHUNK = 1 << 16
T = TypeVar("T")


class ReadOnlyFile(MiogenError, PermissionError):
    """The file to replace may not be written: the rename would replace it all the same."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            errno.EACCES, "the file is read-only; miogen does not replace it", str(path)
        )

    def __str__(self) -> str:
        return f"{self.filename}: the file is read-only; miogen does not replace it"


def write_atomically(
    path: str | Path,
    data: bytes | str,
    encoding: str = "utf-8",
    only_if: Callable[[], bool] | None = None,
) -> bool:
    """Replace ``path`` with ``data``: temporary file beside it, fsync, rename, fsync the folder.

    A file that already exists keeps its permission bits. On any error the temporary file is
    removed and ``path`` is as it was. ``only_if`` is asked last, just before the rename: when it
    says False (the file changed since the caller read it, say), nothing is written and the
    result is False. A file that exists but may not be written (no write permission for
    anyone, or none for this process) is refused with ``ReadOnlyFile``, as an append would be:
    the rename only needs the folder's permission, and would replace it regardless.
    """
    path = Path(path)
    refuse_read_only(path)
    payload = data.encode(encoding) if isinstance(data, str) else data
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(descriptor, view[:CHUNK]) :]
            if path.exists():
                os.fchmod(descriptor, path.stat().st_mode & 0o7777)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if only_if is not None and not only_if():
            temporary.unlink()
            return False
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)
    return True


def replace_if_unchanged(path: str | Path, data: bytes, expected: bytes | None) -> bool:
    """``write_atomically``, only when ``path`` still holds ``expected`` (None: absent) just
    before the rename: False, writing nothing, when someone changed it since it was read."""
    path = Path(path)
    return write_atomically(path, data, only_if=lambda: _bytes(path) == expected)


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def refuse_read_only(path: Path) -> None:
    """``ReadOnlyFile`` when ``path`` exists and may not be written (also by root: no ``w`` bit)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_IMODE(mode) & 0o222 or not os.access(path, os.W_OK):
        raise ReadOnlyFile(path)


def set_aside(
    path: str | Path, reason: str = "", label: str = "corrupt", companions: tuple[str, ...] = ()
) -> Path:
    """Rename an untrusted file to ``<name>.<label>-<timestamp>`` (never deleted); warn; return it.

    ``companions`` are suffixes of files that belong to it (a database's ``-journal``): they
    move along, under the new name.
    """
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{label}-{stamp}")
    counter = 1
    while aside.exists():  # never replace an earlier one
        counter += 1
        aside = path.with_name(f"{path.name}.{label}-{stamp}-{counter}")
    os.rename(path, aside)
    for suffix in companions:
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            os.rename(companion, aside.with_name(aside.name + suffix))
    sync_folder(path.parent)
    logger.warning(
        "miogen: %s %s; it was set aside as %s", path, reason or "cannot be trusted", aside.name
    )
    return aside


def read_or_set_aside(path: str | Path, parse: Callable[[bytes], T]) -> T | None:
    """``parse`` of the file's bytes; None if it does not exist, or (set aside) if parse fails."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return parse(data)
    except Exception as error:  # noqa: BLE001 - whatever parse rejects is not ours to trust
        set_aside(path, f"could not be read ({type(error).__name__}: {error})")
        return None


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable where the platform can sync a folder."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
