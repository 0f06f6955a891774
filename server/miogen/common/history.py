"""The CTG history: per unit its AST hash, its runs and its best suite, in one SQLite file.

The history is a cache (like Hypothesis's example database): everything in it can be rebuilt by
running again, so it is checked rather than trusted. Seeds are re-validated against the current
source when they are loaded (``seeding.still_valid_seeds``); measured coverage is reused only
while the module and its test file are byte-for-byte what was measured; a file that SQLite
cannot read, or one written by another schema version, is set aside (renamed, never deleted)
with a warning and a new one is started. Every write of a run is one transaction, so a run
that is killed half-way leaves the previous state, never a mix.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from miogen.common.atomic import set_aside
from miogen.common.errors import MiogenError
from miogen.common.records import TestData

SCHEMA_VERSION = 2
# Version 2: target ids are made from coverage.py's arcs and lines (analysis/targets.target_id),
# no longer counted over the module. A version-1 file keeps its units and runs (seeds are tests,
# runs are counts); its ``modules`` rows, target ids of version 1, are dropped and measured again.
MIGRATIONS = {1: "DELETE FROM modules;"}
DEFAULT_PATH = Path(".miogen") / "history.sqlite"

SCHEMA = """
CREATE TABLE units (
    key TEXT PRIMARY KEY,            -- "relative/path.py::Unit"
    ast_hash TEXT NOT NULL,          -- the version the seeds were made for
    seeds TEXT NOT NULL,             -- JSON list of tests (testcase.model.to_json): the best suite
    seeds_covered INTEGER NOT NULL   -- targets coverage.py measured for the seeds on that version
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    ast_hash TEXT NOT NULL,
    started REAL NOT NULL,           -- unix time
    budget REAL NOT NULL,            -- seconds allocated
    seconds REAL NOT NULL,           -- wall seconds of the job
    status TEXT NOT NULL,            -- ok | failed
    total INTEGER NOT NULL,          -- targets of the unit
    covered_before INTEGER NOT NULL, -- coverage.py on the test file before the run
    covered_after INTEGER NOT NULL,  -- ... and after the generated tests were merged
    tests_added INTEGER NOT NULL
);
CREATE INDEX runs_by_key ON runs (key, ast_hash, id);
CREATE TABLE modules (
    module TEXT PRIMARY KEY,         -- relative path of the module
    source_hash TEXT NOT NULL,       -- sha256 of the module's text when it was measured
    test_hash TEXT NOT NULL,         -- sha256 of its test file then ("" when there was none)
    coverage TEXT NOT NULL           -- JSON {unit: [covered target ids]} from coverage.py
);
"""


def content_hash(path: Path) -> str:
    """sha256 of a file's bytes; "" when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return ""


@dataclass(frozen=True)
class RunRecord:
    """One earlier run of a unit at its current version: coverage.py's counts before and after."""

    covered_before: int
    covered_after: int
    total: int
    ok: bool = True

    @property
    def improved(self) -> bool:
        return self.ok and self.covered_after > self.covered_before


@dataclass(frozen=True)
class StoredUnit:
    ast_hash: str
    seeds: list[TestData]
    seeds_covered: int


@dataclass(frozen=True)
class RunRow:
    """What the runner records for one unit's job."""

    key: str
    ast_hash: str
    budget: float
    seconds: float
    status: str
    total: int
    covered_before: int
    covered_after: int
    tests_added: int


class HistoryStore:
    """Opens (or sets aside and rebuilds) the history file; reads and writes it.

    >>> import tempfile; folder = tempfile.mkdtemp()
    >>> store = HistoryStore.open(Path(folder) / "h.sqlite")
    >>> store.unit("m.py::A") is None, store.warnings
    (True, [])
    """

    def __init__(self, path: Path, connection: sqlite3.Connection, warnings: list[str]) -> None:
        self.path = path
        self.connection = connection
        self.warnings = warnings  # what the caller should tell the user (a file set aside)

    @classmethod
    def open(cls, path: str | Path) -> HistoryStore:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        warnings: list[str] = []
        try:
            connection = _connect_checked(path)
        except sqlite3.DatabaseError as error:
            if _is_busy(error):
                raise MiogenError(f"the history {path} is in use by another run: {error}") from None
            aside = set_aside(
                path, f"could not be read ({error})", "damaged", ("-journal", "-wal", "-shm")
            )
            warnings.append(
                f"the history {path} could not be read ({error}); it was moved to {aside.name} "
                "and a new one was started"
            )
            connection = _connect_checked(path)
        return cls(path, connection, warnings)

    def close(self) -> None:
        self.connection.close()

    # -- units ---------------------------------------------------------------------------
    def unit(self, key: str) -> StoredUnit | None:
        row = self.connection.execute(
            "SELECT ast_hash, seeds, seeds_covered FROM units WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        try:
            seeds = json.loads(row[1])
        except ValueError:
            seeds = []
        return StoredUnit(row[0], seeds if isinstance(seeds, list) else [], row[2])

    def runs(self, key: str, ast_hash: str) -> tuple[RunRecord, ...]:
        """The unit's runs at this version, oldest first."""
        rows = self.connection.execute(
            "SELECT covered_before, covered_after, total, status FROM runs "
            "WHERE key = ? AND ast_hash = ? ORDER BY id",
            (key, ast_hash),
        ).fetchall()
        return tuple(RunRecord(b, a, t, s == "ok") for b, a, t, s in rows)

    # -- modules -------------------------------------------------------------------------
    def module_coverage(
        self, module: str, source_hash: str, test_hash: str
    ) -> dict[str, list[int]] | None:
        """Coverage measured earlier, if the module and its test file have not changed since."""
        row = self.connection.execute(
            "SELECT coverage FROM modules WHERE module = ? AND source_hash = ? AND test_hash = ?",
            (module, source_hash, test_hash),
        ).fetchone()
        if row is None:
            return None
        try:
            coverage = json.loads(row[0])
        except ValueError:
            return None
        return coverage if isinstance(coverage, dict) else None

    # -- one transaction per run -----------------------------------------------------------
    def record(
        self,
        runs: list[RunRow],
        suites: dict[str, tuple[str, list[TestData], int]],
        modules: dict[str, tuple[str, str, dict[str, list[int]]]],
        forget: Sequence[str] = (),
    ) -> None:
        """Write a run's rows, new best suites (key -> hash, seeds, covered) and measured module
        coverage (module -> source hash, test hash, coverage) at once; drop ``forget`` keys."""
        now = time.time()
        with self.connection:  # commits, or rolls back on any error
            self.connection.executemany(
                "INSERT INTO runs (key, ast_hash, started, budget, seconds, status, total, "
                "covered_before, covered_after, tests_added) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (r.key, r.ast_hash, now, r.budget, r.seconds, r.status, r.total,
                     r.covered_before, r.covered_after, r.tests_added)
                    for r in runs
                ],
            )  # fmt: skip
            self.connection.executemany(
                "INSERT OR REPLACE INTO units (key, ast_hash, seeds, seeds_covered) "
                "VALUES (?,?,?,?)",
                [(k, h, json.dumps(s), c) for k, (h, s, c) in suites.items()],
            )
            self.connection.executemany(
                "INSERT OR REPLACE INTO modules (module, source_hash, test_hash, coverage) "
                "VALUES (?,?,?,?)",
                [(m, s, t, json.dumps(c)) for m, (s, t, c) in modules.items()],
            )
            self.connection.executemany(
                "DELETE FROM units WHERE key = ?", [(key,) for key in forget]
            )

    def keys(self) -> list[str]:
        return [row[0] for row in self.connection.execute("SELECT key FROM units")]


def recorded_units(path: Path, module: str) -> set[str]:
    """Names of the units of ``module`` (its key's path part) that have runs or a suite in the
    history at ``path``; read only: a missing or unreadable history is an empty one."""
    if not path.is_file():
        return set()
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
        try:
            rows = connection.execute("SELECT key FROM units UNION SELECT key FROM runs").fetchall()
        finally:
            connection.close()
    except sqlite3.Error:
        return set()
    prefix = f"{module}::"
    return {key[len(prefix) :] for (key,) in rows if key.startswith(prefix)}


def _connect_checked(path: Path) -> sqlite3.Connection:
    """Connect, create the schema in a new file, and check an existing one; raise when damaged."""
    connection = sqlite3.connect(path, timeout=30.0, isolation_level="DEFERRED")
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master")}
        if not tables:
            with connection:
                connection.executescript(SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION};")
        elif version in MIGRATIONS and {"units", "runs", "modules"} <= tables:
            with connection:
                connection.executescript(
                    MIGRATIONS[version] + f"PRAGMA user_version = {SCHEMA_VERSION};"
                )
        elif version != SCHEMA_VERSION or not {"units", "runs", "modules"} <= tables:
            raise sqlite3.DatabaseError(f"schema version {version}, expected {SCHEMA_VERSION}")
        verdict = connection.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise sqlite3.DatabaseError(f"integrity check: {verdict}")
    except BaseException:
        connection.close()
        raise
    return connection


def _is_busy(error: sqlite3.DatabaseError) -> bool:
    return "locked" in str(error) or "busy" in str(error)
