"""Jobs that carry what they need, for dask workers that share nothing with the client but
the job (no checkout, no path): only miogen and the project's dependencies are installed there.

On the client, ``pack`` turns a job into a job of relative paths (from the project root) and
the files it needs: the module, the ``__init__.py`` of its packages, and every file of the
project it imports, transitively (``import_closure``); the project's test files that name one
of its units (the search starts from their calls: ``testcase.examples``) and its root markers
(``pyproject.toml``...: without one no test file counts). Each file travels as a blob named by
its SHA-256: the dask pool scatters a blob once (``jobs.dask_pool``), and dask hands it to each
worker that runs a job needing it, once per worker.

On a worker, ``execute_remote`` checks that the job was sealed by the same miogen (and the
same record schema: ``records.sealed``), writes the blobs into a temporary folder of its own,
runs the job there in its own interpreter, verifies the tests it generated (pytest +
coverage.py, as the client would: ``run.verify``), and answers with a sealed outcome
that carries the verification (``records.VerifiedTests``). The client merges and writes.

What does not travel: files the module reads at run time (data, templates), compiled
extension modules of the project, and modules it imports by a computed name
(``importlib.import_module(name)``); a job that needs them fails to import or its tests fail
on the worker, and says so.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from miogen.analysis.module import analyze_file
from miogen.common.confine import inside
from miogen.common.errors import MiogenError
from miogen.common.project import ROOT_MARKERS, ModuleLocation
from miogen.common.records import (
    JobOutcome,
    JobSpec,
    TestRecord,
    VerifiedTests,
    from_json,
    mismatch_message,
    sealed,
    unsealed,
    versions,
)
from miogen.common.syntax import parse
from miogen.emit.module import unique_names
from miogen.host.measure import Measurement
from miogen.run.check import verify
from miogen.run.job import run
from miogen.run.result import Dropped, Verification
from miogen.testcase.examples import project_test_files

MAX_FILES = 2000  # files of the project one job carries, at the most
ROOT_FILES = tuple(name for name in ROOT_MARKERS if name != ".git")  # a folder: not carried


@dataclass(frozen=True)
class Packed:
    """A job with paths relative to the project root, and the files it carries."""

    spec: JobSpec
    files: dict[str, Path]  # relative path (with "/") -> the file on the client

    def blobs(self) -> dict[str, tuple[str, bytes]]:
        """Relative path -> (SHA-256 of the content, the content), read now."""
        found = {}
        for relative, path in self.files.items():
            data = path.read_bytes()
            found[relative] = (hashlib.sha256(data).hexdigest(), data)
        return found


ProjectTests = Sequence[tuple[Path, bytes]]  # a project's test files and their text


def job_root(spec: JobSpec) -> Path:
    """The project root of a job (its tests' working folder), which its paths are taken from."""
    return Path(spec.cwd or spec.import_root).resolve()


def pack(spec: JobSpec, tests: ProjectTests | None = None) -> Packed:
    """The job with paths relative to its project root (``job_root``) and the project files it
    needs; MiogenError when the module is outside that root. ``tests``: ``project_tests`` of
    the root, read once for many jobs (read here without it)."""
    root = job_root(spec)
    path, import_root = Path(spec.path).resolve(), Path(spec.import_root).resolve()
    for what, where in (("module", path), ("import root", import_root)):
        if where != root and not where.is_relative_to(root):
            raise MiogenError(f"the {what} {where} is outside the project root {root}")
    files = import_closure(path, spec.module_name, import_root)
    files |= {root / name for name in ROOT_FILES if (root / name).is_file()}
    tests = project_tests(root) if tests is None else tests
    files |= examples_of(tests, [unit.name for unit in spec.units])
    relative = {(p.relative_to(root).as_posix()): p for p in sorted(files)}
    moved = dataclasses.replace(
        spec,
        path=path.relative_to(root).as_posix(),
        import_root=import_root.relative_to(root).as_posix(),
        cwd=".",
        scratch="",
        python="",  # the client's interpreter does not exist there: the worker runs its own
        shim="",
    )
    return Packed(moved, relative)


def project_tests(root: Path) -> list[tuple[Path, bytes]]:
    """The project's test files as the search reads them (``testcase.examples``), with their
    text; those that resolve outside the root are left out."""
    found = []
    for path in project_test_files(str(root)):
        try:
            found.append((path.resolve(), path.read_bytes()))
        except OSError:
            continue
    return [(path, text) for path, text in found if path.is_relative_to(root)]


def examples_of(tests: ProjectTests, units: Iterable[str]) -> set[Path]:
    """The test files that name one of ``units`` (the search reads their calls of it)."""
    names = [name.encode() for name in units]
    return {path for path, text in tests if any(name in text for name in names)}


def import_closure(path: Path, module_name: str, import_root: Path) -> set[Path]:
    """The module file, the ``__init__.py`` of each package above it, and every file under
    ``import_root`` that any of them imports (statically, anywhere in its code), transitively.
    """
    found: dict[Path, str] = {}
    todo = [(path, module_name)]
    todo += _files(_prefixes(module_name.split(".")[:-1]), import_root)
    while todo:
        file, name = todo.pop()
        if file in found or not file.is_relative_to(import_root):
            continue
        found[file] = name
        if len(found) > MAX_FILES:
            raise MiogenError(f"{path} imports more than {MAX_FILES} files of the project")
        todo += _files(_imported(file, name), import_root)
    return set(found)


def _imported(file: Path, name: str) -> frozenset[str]:
    """Every dotted name the file may import, with their packages (``a.b`` gives a and a.b;
    ``from p import x`` gives p and p.x, x being perhaps a module)."""
    try:
        stat = file.stat()
    except OSError:
        return frozenset()
    return _imported_by(file, name, (stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=4096)
def _imported_by(file: Path, name: str, stamp: tuple[int, int]) -> frozenset[str]:
    """``_imported`` of the file as it is at ``stamp`` (parsed once for all the jobs)."""
    try:
        tree = parse(file.read_bytes(), str(file))
    except (SyntaxError, ValueError, OSError):
        return frozenset()  # it travels as it is; its import fails on the worker and says why
    package = name.split(".") if file.name == "__init__.py" else name.split(".")[:-1]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            start = ".".join([*base, *([node.module] if node.module else [])])
            names += [start] + [f"{start}.{a.name}" if start else a.name for a in node.names]
    return frozenset(prefix for name in names for prefix in _prefixes(name.split(".")))


def _prefixes(parts: list[str]) -> list[str]:
    parts = [part for part in parts if part]
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def _files(names: Iterable[str], import_root: Path) -> list[tuple[Path, str]]:
    """The project's file of each dotted name (a module or a package's ``__init__.py``)."""
    found = []
    for name in names:
        base = import_root.joinpath(*name.split("."))
        for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
            if candidate.is_file():
                found.append((candidate.resolve(), name))
    return found


# --- on the worker -------------------------------------------------------------------------


def worker_versions() -> dict[str, str]:
    """What ``client.run`` asks each worker at connect (``jobs.dask_pool``)."""
    return versions()


def mismatched(workers: Mapping[str, Mapping[str, str]]) -> str:
    """Why these workers (address -> their ``versions``) cannot work with this client; empty
    when every one runs this miogen with these records."""
    ours = versions()
    wrong = {address: dict(found) for address, found in workers.items() if dict(found) != ours}
    if not wrong:
        return ""
    address, theirs = sorted(wrong.items())[0]
    more = f" (and {len(wrong) - 1} more workers)" if len(wrong) > 1 else ""
    return mismatch_message(f"the dask worker {address}{more}", theirs)


def execute_remote(
    sealed_spec: dict[str, Any], manifest: dict[str, str], *blobs: bytes
) -> dict[str, Any]:
    """Run a packed job on this worker: ``manifest`` (relative path -> SHA-256) and ``blobs``
    in its order. A job sealed by another miogen is refused (``records.VersionMismatch``)."""
    spec = unsealed(JobSpec, sealed_spec, "the dask client")
    folder = Path(tempfile.mkdtemp(prefix="miogen-job-"))
    try:
        root = materialise(folder, manifest, blobs)
        here = dataclasses.replace(
            spec,
            path=str(root / spec.path),
            import_root=str(root / spec.import_root),
            cwd=str(root / spec.cwd),
        )
        outcome = run(here)
        if here.verify_runs > 0:
            outcome.verified = verify_job(here, outcome)
        return sealed(outcome)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def materialise(folder: Path, manifest: Mapping[str, str], blobs: Iterable[bytes]) -> Path:
    """Write each blob at its relative path under ``folder``, checking its hash and that it
    stays inside; the project root there."""
    root = (folder / "project").resolve()
    for (relative, digest), data in zip(manifest.items(), blobs, strict=True):
        if hashlib.sha256(data).hexdigest() != digest:
            raise MiogenError(f"{relative}: the blob received does not match its hash")
        target = inside(root, root / relative, "the job's files")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    root.mkdir(parents=True, exist_ok=True)
    return root


def verify_job(spec: JobSpec, outcome: JobOutcome) -> VerifiedTests:
    """Verify the job's tests here, as the client verifies a module's (``ctg.runner``): the
    units' tests in the job's order, names made unique, run by ``run.verify``."""
    location = ModuleLocation(
        Path(spec.path), Path(spec.cwd), Path(spec.import_root), spec.module_name
    )
    model = analyze_file(location.path, location.module_name)
    names = [u.name for u in spec.units] or [u.name for u in model.units]
    results = {u.unit: u.result for u in outcome.units}
    found = [list(r.tests) if (r := results.get(name)) else [] for name in names]
    tests = [t for group in unique_names(found) for t in group]
    if not tests:
        return VerifiedTests(())
    units = [model.unit(name) for name in names]
    verification = verify(
        location, model, units, tests, spec.test_timeout, runs=spec.verify_runs,
        warning_filters=spec.warning_filters,
    )  # fmt: skip
    return verified_tests(verification)


def verified_tests(verification: Verification) -> VerifiedTests:
    dropped = verification.dropped
    measurement = verification.measurement
    return VerifiedTests(
        kept=tuple(t.name for t in verification.tests),
        failing=tuple(dropped.failing),
        unstable=tuple(dropped.unstable),
        sandbox=tuple(dropped.sandbox),
        unimportable=dropped.unimportable,
        measurement=dataclasses.asdict(measurement) if measurement is not None else None,
        runs=verification.runs,
        runtimes=tuple(verification.runtimes),
        clock_ahead=verification.clock_ahead,
        seconds=verification.seconds,
        covers=(
            {name: tuple(sorted(ids)) for name, ids in verification.covers.items()}
            if verification.covers is not None
            else None
        ),
    )


def verification_of(verified: VerifiedTests, tests: Iterable[TestRecord]) -> Verification:
    """The client's ``Verification`` of the worker's answer, over the same ``tests`` (the
    job's, named as the worker named them)."""
    kept = set(verified.kept)
    measurement = verified.measurement
    return Verification(
        [t for t in tests if t.name in kept],
        from_json(Measurement, measurement) if measurement is not None else None,
        Dropped(
            list(verified.failing), list(verified.unstable), list(verified.sandbox),
            verified.unimportable,
        ),
        runs=verified.runs,
        clock_ahead=verified.clock_ahead,
        seconds=verified.seconds,
        runtimes=list(verified.runtimes),
        covers=(
            {name: set(ids) for name, ids in verified.covers.items()}
            if verified.covers is not None else None
        ),
    )  # fmt: skip
