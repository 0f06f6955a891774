"""``miogen.generateTestsForPaths``: the project-wide generation (``miogen ctg``) over the files
and folders the user picked in the editor.

The server does not orchestrate anything here: it starts ``python -m miogen ctg PATHS --json``
(the CLI over ``ctg.runner.run_ctg``) in a process of its own with the editor's settings as
flags, shows the run's per-unit lines as work-done progress, and answers with the run's report.
Cancelling (``$/cancelRequest``, or Cancel on the progress) sends the run SIGTERM: the CLI
unwinds, stops its workers and pytest runs, and exits; every test file it writes is written
atomically (``atomic.write_atomically``), so none is left half written. A run that does not end
within ``STOP_GRACE`` is killed with its process group.

Every file the run may write is inside its project root (``ctg`` confines them there), and the
root given to it is inside the workspace folder of the paths (``Locator.project_root``): the
paths must all be in one workspace folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from miogen.common.confine import resolved
from miogen.common.errors import MiogenError
from miogen.common.project import module_files
from miogen.host.config import MAX_BUDGET_SECONDS
from miogen.host.interpreter import OWN
from miogen.lsp.client import Client
from miogen.lsp.locator import Locator
from miogen.lsp.protocol import CommandError, PathsResult
from miogen.lsp.settings import Settings

STOP_GRACE = 30.0  # seconds a cancelled run has to stop its workers before it is killed
# The CLI's line per unit whose job ended: "src/m.py::Stack: ok in 1.2 s (search claims 3/4)"
UNIT_LINE = re.compile(r"^(?P<key>\S.*?::\S+): (?P<status>\w+) in [\d.]+ s")
CANCELLED = "cancelled"


@dataclass
class PathRun:
    """One run under way: its process, whether the user cancelled it, what it said so far."""

    paths: list[Path]
    process: asyncio.subprocess.Process | None = None
    cancelled: bool = False
    units_done: int = 0
    stderr: list[str] = field(default_factory=list)


class PathRuns:
    """At most one run at a time per server (runs over overlapping paths would share test files
    and the history)."""

    def __init__(self, locator: Locator, client: Client) -> None:
        self.locator, self.client = locator, client
        self.current: PathRun | None = None

    async def generate(self, uris: list[str]) -> PathsResult:
        paths = [self._path(uri) for uri in uris]
        folder = self._one_folder(paths)
        root = self.locator.project_root(paths[0])
        if not resolved(root).is_relative_to(resolved(folder)):  # never above the folder
            raise CommandError(f"miogen: the project root {root} is outside {folder}")
        if self.current is not None:
            raise CommandError(
                "miogen: tests are being generated for files or folders already; "
                "wait for that run or cancel it"
            )
        settings = self.locator.settings_for(paths[0])
        run = self.current = PathRun(paths)
        try:
            try:
                modules = await asyncio.to_thread(module_files, paths)
            except (MiogenError, FileNotFoundError) as error:
                raise CommandError(f"miogen: {error}") from None
            return await self._run(run, root, command(paths, root, settings, len(modules)))
        finally:
            self.current = None

    def cancel(self) -> bool:
        """Stop the run under way (the progress bar's Cancel); whether there was one."""
        run = self.current
        if run is None or run.process is None or run.process.returncode is not None:
            return False
        run.cancelled = True
        with contextlib.suppress(ProcessLookupError):
            run.process.terminate()  # at once: at shutdown the loop may not run again
        self.client.spawn(stop(run.process))
        return True

    def _cancelled(self) -> None:
        self.cancel()

    def close(self) -> None:
        """At shutdown: the run is stopped (it is in a session of its own, so nothing else
        would stop it)."""
        self.cancel()

    async def _run(self, run: PathRun, root: Path, argv: list[str]) -> PathsResult:
        names = ", ".join(p.name for p in run.paths[:3]) + (" …" if len(run.paths) > 3 else "")
        title = f"miogen: generating tests for {names}"
        run.process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=root,
            env=environment(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        self.client.log(f"miogen: {' '.join(argv[1:])}")
        token = None
        try:
            token = await self.client.begin_progress(
                title, lambda: None if run.process is None else (0, "started"), self._cancelled
            )
            output, _ = await asyncio.gather(
                _read_all(run.process.stdout), self._follow(run, token)
            )
            code = await run.process.wait()
        except asyncio.CancelledError:  # $/cancelRequest (or shutdown): stop it, then answer
            run.cancelled = True
            await asyncio.shield(stop(run.process))
            if token is not None:
                self.client.end_progress(token, CANCELLED)
            raise
        result = self._result(run, code, output)
        if token is not None:
            self.client.end_progress(token, result["message"])
        return result

    async def _follow(self, run: PathRun, token: str | None) -> None:
        """The CLI's stderr: each unit's line is a progress report; the rest goes to the log."""
        assert run.process is not None and run.process.stderr is not None
        while line := await run.process.stderr.readline():
            text = line.decode("utf-8", "replace").rstrip()
            run.stderr.append(text)
            found = UNIT_LINE.match(text)
            if found is None:
                self.client.log(text)
                continue
            run.units_done += 1
            unit = found["key"].rpartition("::")[2]
            message = f"{run.units_done} done; {unit}: {found['status']}"
            if token is not None:
                self.client.report_progress(token, None, message)

    def _result(self, run: PathRun, code: int, output: bytes) -> PathsResult:
        uris = [path.as_uri() for path in run.paths]
        try:
            report: Any = json.loads(output) if output.strip() else None
        except json.JSONDecodeError:
            report = None
        if not isinstance(report, dict):
            if run.cancelled:
                return empty(uris, CANCELLED, code, cancelled=True)
            why = next((line for line in reversed(run.stderr) if line.strip()), "no output")
            raise CommandError(f"miogen: generating tests for files failed (exit {code}): {why}")
        units = report.get("units", [])
        written = [Path(p).as_uri() for p in report.get("written", [])]
        added = sum(int(u.get("tests_added", 0)) for u in units)
        pooled = report.get("coverage") or {}
        message = (
            f"{added} tests added to {len(written)} files; "
            f"{pooled.get('covered', 0)}/{pooled.get('total', 0)} branches covered"
        )
        return {
            "uris": uris,
            "written": written,
            "units": len(units),
            "ran": sum(1 for u in units if u.get("status") == "ran"),
            "tests": added,
            "covered": int(pooled.get("covered", 0)),
            "total": int(pooled.get("total", 0)),
            "warnings": [str(w) for w in report.get("warnings", [])]
            + [f"{k}: {v}" for k, v in report.get("module_errors", {}).items()],
            "exitCode": code,
            "cancelled": False,
            "message": message,
        }

    def _path(self, uri: str) -> Path:
        fs_path = to_fs_path(uri) if uri.startswith("file:") else None
        if not fs_path:
            raise CommandError(f"miogen: not a file: {uri}")
        path = Path(fs_path)
        if not path.exists():
            raise CommandError(f"miogen: no such file or folder: {path}")
        return path

    def _one_folder(self, paths: list[Path]) -> Path:
        folders = {self.locator.folder_of(path) for path in paths}
        if None in folders:
            outside = next(p for p in paths if self.locator.folder_of(p) is None)
            raise CommandError(
                f"miogen: not running {outside}: it is outside the workspace folders"
            )
        if len(folders) > 1:
            raise CommandError("miogen: pick files and folders of one workspace folder at a time")
        folder = folders.pop()
        assert folder is not None
        return folder


def command(paths: list[Path], root: Path, settings: Settings, modules: int) -> list[str]:
    """``python -m miogen ctg`` with the editor's settings: ``budgetSeconds`` for each module
    (shared among ``maxParallelJobs`` job slots, as ``miogen ctg --budget`` shares its budget)."""
    jobs = settings.max_parallel_jobs
    budget = min(MAX_BUDGET_SECONDS, settings.budget_seconds * max(1, modules) / jobs)
    argv = [
        *OWN.command("miogen", "ctg", *(str(path) for path in paths)),
        "--json", "--project-root", str(root), "--python", sys.executable,
        "--budget", f"{budget:g}", "--jobs", str(jobs),
        "--seed", str(settings.seed), "--algorithm", str(settings.algorithm),
        "--criteria", settings.criteria, "--test-timeout", f"{settings.test_timeout:g}",
        "--mutation-share", f"{settings.mutation_share:g}",
        "--test-file-pattern", settings.test_file_pattern,
    ]  # fmt: skip
    if settings.tests_directory:
        argv += ["--tests-directory", settings.tests_directory]
    if settings.performance:
        argv.append("--performance")
    argv += ["--join-tests"] if settings.join_tests else []
    argv += ["--evaluations", str(settings.evaluations)] if settings.evaluations else []
    return argv


def environment() -> dict[str, str]:
    """The server's environment for the run, which starts as miogen's own processes do
    (``host.interpreter``): from the extension's bundle, the bundle goes on the END of
    ``sys.path``, so the interpreter's own packages (its pytest, its plugins) come first."""
    return OWN.environment(os.environ)


async def stop(process: asyncio.subprocess.Process, grace: float = STOP_GRACE) -> None:
    """SIGTERM (the CLI then stops its workers and exits), SIGKILL to its group after ``grace``."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    try:
        await asyncio.wait_for(process.wait(), grace)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


async def _read_all(stream: asyncio.StreamReader | None) -> bytes:
    return await stream.read() if stream is not None else b""


def empty(uris: list[str], message: str, code: int, *, cancelled: bool) -> PathsResult:
    return {
        "uris": uris, "written": [], "units": 0, "ran": 0, "tests": 0, "covered": 0,
        "total": 0, "warnings": [], "exitCode": code, "cancelled": cancelled, "message": message,
    }  # fmt: skip
