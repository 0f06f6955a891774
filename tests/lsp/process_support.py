"""The server's child processes, read from /proc (Linux)."""

from __future__ import annotations

import os
from pathlib import Path


def _stat(pid: int) -> list[str] | None:
    """Fields after the command name in /proc/PID/stat (state first, then the parent's pid)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def children(pid: int) -> dict[int, str]:
    """The live child processes of ``pid``, with their command lines."""
    found = {}
    for entry in os.listdir("/proc"):
        fields = _stat(int(entry)) if entry.isdigit() else None
        if fields and fields[1] == str(pid) and fields[0] not in ("Z", "X"):
            try:
                found[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
    return {child: command.decode(errors="replace") for child, command in found.items()}


def spares(pid: int) -> set[int]:
    return {
        child for child, command in children(pid).items() if "miogen.worker.main --spare" in command
    }


def gone(pid: int) -> bool:
    fields = _stat(pid)
    return fields is None or fields[0] in ("Z", "X")
