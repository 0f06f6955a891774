"""A watched world for hostile code: canary files, a HOME, a listening port, and a project copy.

Everything a corpus module could damage is a folder or a port this fixture owns, so a test can
check afterwards that nothing changed: ``world.damage()`` lists every difference.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"
UNITS = {
    "spin_python": "spin",
    "sleep_forever": "doze",
    "hash_in_c": "digest",
    "catastrophic_regex": "matches",
    "sys_exit": "quit_with",
    "os_exit": "vanish",
    "segfault": "crash",
    "memory_bomb": "hoard",
    "deep_recursion": "descend",
    "fork_child": "split",
    "run_subprocess": "touch",
    "write_outside": "save",
    "delete_outside": "clean",
    "network": "call_home",
    "flood_output": "shout",
    "read_stdin": "ask",
    "leftover_thread": "start",
    "module_state": "record",
    "nondeterminism": "roll",
    "kill_parent": "betray",
    "raise_limits": "unlimit",
    "fill_disk": "fill",
}


class Listener:
    """A TCP port on 127.0.0.1 that counts the connections that reach it."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.socket.close()


def tree(root: Path) -> dict[str, str]:
    """Relative path -> content hash (or "dir") of everything under ``root``."""
    found = {}
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        found[relative] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@dataclass
class World:
    root: Path
    canary: Path  # the folder corpus modules aim at (HOSTILE_CANARY)
    home: Path  # HOME of the processes under test: the worker must not write here
    project: Path  # a copy of the corpus: the module files, nothing else
    output: Path  # where the emitted tests go
    listener: Listener
    before: dict[str, dict[str, str]] = field(default_factory=dict)

    def env(self, **extra: str) -> dict[str, str]:
        return dict(
            os.environ,
            HOSTILE_CANARY=str(self.canary),
            HOSTILE_PORT=str(self.listener.port),
            HOME=str(self.home),
            PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",  # seconds per pytest run, for the verify step too
            **extra,
        )

    def watched(self) -> dict[str, dict[str, str]]:
        return {"canary": tree(self.canary), "home": tree(self.home), "project": tree(self.project)}

    def damage(self, ignore: str = "") -> list[str]:
        """What changed in the watched folders since the start, and connections that arrived.

        ``ignore``: a prefix of changes that are expected (e.g. "project: created tests").
        """
        found = []
        for name, now in self.watched().items():
            was = self.before[name]
            found += [f"{name}: created {p}" for p in sorted(set(now) - set(was))]
            found += [f"{name}: deleted {p}" for p in sorted(set(was) - set(now))]
            found += [
                f"{name}: changed {p}" for p in sorted(set(now) & set(was)) if now[p] != was[p]
            ]
        if self.listener.connections:
            found.append(
                f"{self.listener.connections} connection(s) reached port {self.listener.port}"
            )
        return [change for change in found if not (ignore and change.startswith(ignore))]

    def run_emitted(self, test_file: Path, seed: int) -> subprocess.CompletedProcess:
        """The emitted file under pytest in a fresh process, with its own hash seed."""
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
             "-p", "no:timeout", str(test_file)],
            cwd=self.output, env=self.env(PYTHONPATH=str(self.project), PYTHONHASHSEED=str(seed)),
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip


@pytest.fixture
def world(tmp_path: Path):
    canary, home, project, output = (tmp_path / n for n in ("canary", "home", "project", "out"))
    for folder in (canary, home, output):
        folder.mkdir()
    (canary / "keep.txt").write_text("keep me")
    (canary / "keep-dir").mkdir()
    (canary / "keep-dir" / "inside.txt").write_text("keep me too")
    (home / ".profile").write_text("# the user's\n")
    shutil.copytree(CORPUS, project, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    listener = Listener()
    world = World(tmp_path, canary, home, project, output, listener)
    world.before = world.watched()
    try:
        yield world
    finally:
        listener.close()
