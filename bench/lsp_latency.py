"""Language-server latency on a big module: requests at typing speed, and how soon a save shows.

Run: ``.venv/bin/python -m bench.lsp_latency [--subject argparse] [--runs 3] [--budget 5]``.
Copies the subject (default: CPython 3.11's argparse.py, 2,632 lines, bench/subjects/) into a
temporary workspace, starts ``miogen serve`` over stdio as a client that shows work-done progress
and resolves code actions, and measures:

* ``textDocument/codeLens``, ``codeAction`` and ``hover`` round trips (p50, p95, max), one after
  the other with 20 ms between them: idle (the file analysed), while typing (a ``didChange``
  every 100 ms into the unit) and while a job runs;
* ``textDocument/codeLens`` after opening the file (issue 26, part 5): each of ``--opens`` opens
  of a fresh copy sends didOpen and at once codeLens, timed to its answer (before the analysis is
  done the lenses come from a parse, without counts), to the server's
  ``workspace/codeLens/refresh`` (the analysis arrived) and to the answer of the codeLens asked
  then; on a quiet machine and with a CPU hog (a busy loop process) on the other core; medians;
* per save of a code change inside the unit (typed, then saved at once, as a user does):
  didSave -> the job is visible (work-done progress begin or ``miogen/jobStatus`` queued),
  -> the first streamed coverage (``miogen/coverage`` with the unit running and branches covered),
  -> the final, coverage.py-verified result (``miogen/jobStatus`` done).

Writes bench/results/lsp_latency.md (or ``--out``). The machine's load average is recorded before
each phase: the machine is shared, so the figures are one run's, under that load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "lsp_latency.md"
GAP = 0.02  # seconds between two requests
TYPING_INTERVAL = 0.1  # seconds between two didChange while typing
KINDS = ("codeLens", "codeAction", "hover")


@dataclass(frozen=True)
class Subject:
    name: str
    path: Path
    unit: str  # the unit whose code the saves change
    anchor: str  # a line inside the unit: edits go right before it, with its indentation
    origin: str


SUBJECTS = {
    "argparse": Subject(
        "argparse",
        HERE / "subjects" / "stdlib_argparse.py",
        "HelpFormatter",
        "        self._prog = prog\n",
        "CPython 3.11.7 Lib/argparse.py, copied verbatim into bench/subjects/stdlib_argparse.py",
    ),
    "triangle": Subject(
        "triangle",
        HERE.parent / "corpus" / "classic" / "triangle.py",
        "classify",
        "    if a <= 0 or b <= 0 or c <= 0:\n",
        "corpus/classic/triangle.py (Myers' triangle)",
    ),
}


@dataclass
class Save:
    """One save of a code change inside the unit, seen from the client."""

    visible: float = float("nan")  # progress begin or jobStatus queued
    running: float = float("nan")  # jobStatus running: the saved text analysed, the job started
    streamed: float = float("nan")  # first coverage with covered branches while running
    final: float = float("nan")  # jobStatus done (or failed)
    state: str = ""
    account: str = ""  # the server's log line: worker, search and verification seconds


@dataclass
class Phase:
    name: str
    load: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})

    def all(self) -> list[float]:
        return [x for values in self.latencies.values() for x in values]


class Probe:
    """An LSP client that timestamps what the server sends about one file."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.client = LanguageClient("miogen-bench", "1")
        self.events: list[tuple[float, str, object]] = []
        self.logs: list[str] = []
        client = self.client
        client.feature("miogen/coverage")(lambda p: self._record("coverage", p))
        client.feature("miogen/jobStatus")(lambda p: self._record("status", p))
        client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda p: None)
        client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda p: None)
        client.feature(types.PROGRESS)(lambda p: self.events.append((time.perf_counter(), "progress", p)))  # fmt: skip
        client.feature(types.WINDOW_LOG_MESSAGE)(lambda p: self.logs.append(p.message))
        client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(lambda p: self.refreshes.append(time.perf_counter()))  # fmt: skip
        self.refreshes: list[float] = []

    def _record(self, kind: str, params: object) -> None:
        if getattr(params, "uri", None) == self.uri:
            self.events.append((time.perf_counter(), kind, params))

    def since(self, start: float) -> list[tuple[float, str, object]]:
        return [event for event in self.events if event[0] >= start]


CAPABILITIES = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    workspace=types.WorkspaceClientCapabilities(
        apply_edit=True, code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
    ),
    text_document=types.TextDocumentClientCapabilities(
        code_action=types.CodeActionClientCapabilities(
            data_support=True,
            resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]),
        ),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
    ),
)


class Session:
    """The client's side: the buffer, its version, and the requests a user's editor sends."""

    def __init__(self, probe: Probe, path: Path, subject: Subject, text: str) -> None:
        self.probe, self.path, self.subject, self.text = probe, path, subject, text
        self.version = 1
        self.document = types.TextDocumentIdentifier(uri=probe.uri)

    def line_of(self, needle: str) -> int:
        return next(
            i for i, line in enumerate(self.text.splitlines(keepends=True)) if needle in line
        )

    def replace(self, text: str) -> None:
        self.text, self.version = text, self.version + 1
        self.probe.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.probe.uri, version=self.version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )  # fmt: skip

    def type_at_end_of(self, line: int, characters: str) -> None:
        """An incremental change: ``characters`` typed at the end of ``line``."""
        lines = self.text.splitlines(keepends=True)
        body = lines[line].rstrip("\n")
        at = types.Position(line=line, character=len(body.encode("utf-16-le")) // 2)
        lines[line] = body + characters + "\n"
        self.text, self.version = "".join(lines), self.version + 1
        self.probe.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.probe.uri, version=self.version),
                content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=characters)],
            )
        )  # fmt: skip

    def save(self) -> float:
        self.path.write_text(self.text, "utf-8")
        sent = time.perf_counter()
        self.probe.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=self.document)
        )
        return sent

    def request(self, kind: str) -> Awaitable[object]:
        client = self.probe.client
        unit_line = self.line_of(f"class {self.subject.unit}") if f"class {self.subject.unit}" in self.text else self.line_of(f"def {self.subject.unit}")  # fmt: skip
        inside = self.line_of(self.subject.anchor.strip())
        if kind == "codeLens":
            return client.text_document_code_lens_async(
                types.CodeLensParams(text_document=self.document)
            )
        if kind == "codeAction":
            here = types.Range(
                start=types.Position(line=inside, character=8),
                end=types.Position(line=inside, character=8),
            )
            return client.text_document_code_action_async(
                types.CodeActionParams(text_document=self.document, range=here, context=types.CodeActionContext(diagnostics=[]))
            )  # fmt: skip
        at = types.Position(line=unit_line, character=7)
        return client.text_document_hover_async(
            types.HoverParams(text_document=self.document, position=at)
        )

    async def requests(self, phase: Phase, until: Callable[[], bool]) -> None:
        """codeLens, codeAction and hover in turn, each timed, until ``until()``."""
        turn = 0
        while not until():
            kind = KINDS[turn % len(KINDS)]
            sent = time.perf_counter()
            await self.request(kind)
            phase.latencies[kind].append(time.perf_counter() - sent)
            turn += 1
            await asyncio.sleep(GAP)


async def _settle(probe: Probe, quiet: float = 1.0) -> None:
    """Wait until the server has sent nothing about the file for ``quiet`` seconds."""
    while True:
        count = len(probe.events)
        await asyncio.sleep(quiet)
        if len(probe.events) == count:
            return


def _timer(seconds: float) -> Callable[[], bool]:
    deadline = time.perf_counter() + seconds
    return lambda: time.perf_counter() >= deadline


async def _typing(session: Session, seconds: float) -> None:
    """A comment line inside the unit, then one character every TYPING_INTERVAL."""
    anchor = session.line_of(session.subject.anchor.strip())
    indent = session.subject.anchor[
        : len(session.subject.anchor) - len(session.subject.anchor.lstrip())
    ]
    session.replace(
        session.text.replace(
            session.subject.anchor, f"{indent}# typing:\n{session.subject.anchor}", 1
        )
    )
    deadline = time.perf_counter() + seconds
    letters = "the quick brown fox jumps over the lazy dog "
    count = 0
    while time.perf_counter() < deadline:
        await asyncio.sleep(TYPING_INTERVAL)
        session.type_at_end_of(anchor, letters[count % len(letters)])
        count += 1


def _unit_events(
    events: list, unit: str
) -> tuple[list[float], list[float], list[tuple[float, object]], list[float]]:
    visible, streamed, final, running = [], [], [], []
    for at, kind, params in events:
        if kind == "status" and params.unit == unit:
            if params.state in ("queued", "running"):
                visible.append(at)
            if params.state == "running":
                running.append(at)
            elif params.state in ("done", "failed"):
                final.append((at, params))
        elif kind == "progress" and getattr(params.value, "kind", None) == "begin":
            if getattr(params.value, "title", "") == f"miogen: {unit}":
                visible.append(at)
        elif kind == "coverage":
            if any(u.name == unit and u.state == "running" and u.covered > 0 for u in params.units):
                streamed.append(at)
    return visible, streamed, final, running


async def _one_save(session: Session, index: int, phase: Phase, timeout: float) -> Save:
    subject, probe = session.subject, session.probe
    indent = subject.anchor[: len(subject.anchor) - len(subject.anchor.lstrip())]
    session.replace(
        session.text.replace(subject.anchor, f"{indent}_bench = {index}\n{subject.anchor}", 1)
    )
    start = session.save()

    def finished() -> bool:
        done = _unit_events(probe.since(start), subject.unit)[2]
        return bool(done) or time.perf_counter() > start + timeout

    await session.requests(phase, finished)
    visible, streamed, final, running = _unit_events(probe.since(start), subject.unit)
    run = Save()
    run.visible = min(visible) - start if visible else float("nan")
    run.running = min(running) - start if running else float("nan")
    run.streamed = min(streamed) - start if streamed else float("nan")
    if final:
        run.final, run.state = final[0][0] - start, final[0][1].state
    await asyncio.sleep(0.3)  # the log line follows the status
    run.account = next((m.split("; ", 1)[1] for m in reversed(probe.logs) if m.startswith(f"miogen: {subject.unit}: ") and "; " in m), "")  # fmt: skip
    return run


async def measure(
    subject: Subject, runs: int, budget: float, seconds: float
) -> tuple[list[Phase], list[Save]]:
    workspace = Path(tempfile.mkdtemp(prefix="miogen-bench-lsp-"))
    try:
        (workspace / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n')
        path = workspace / subject.path.name
        original = subject.path.read_text("utf-8")
        path.write_text(original, "utf-8")
        probe = Probe(path.as_uri())
        await probe.client.start_io(sys.executable, "-m", "miogen", "serve")
        await probe.client.initialize_async(
            types.InitializeParams(
                capabilities=CAPABILITIES,
                root_uri=workspace.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="bench")],
                initialization_options={"budgetSeconds": budget, "generateOnSave": "changed"},
            )
        )
        probe.client.initialized(types.InitializedParams())
        session = Session(probe, path, subject, original)
        probe.client.text_document_did_open(
            types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=probe.uri, language_id="python", version=1, text=original))
        )  # fmt: skip
        await session.request("codeLens")  # the first analysis of a file just opened
        await _settle(probe)

        idle = Phase("idle", os.getloadavg()[0])
        await session.requests(idle, _timer(seconds))
        typing = Phase("while typing", os.getloadavg()[0])
        await asyncio.gather(_typing(session, seconds), session.requests(typing, _timer(seconds)))
        await _settle(probe)
        during = Phase("during a job", os.getloadavg()[0])
        saves = []
        for index in range(runs):
            saves.append(await _one_save(session, index, during, timeout=budget + 120))
            await _settle(probe)
        await probe.client.shutdown_async(None)
        probe.client.exit(None)
        await probe.client.stop()
        return [idle, typing, during], saves
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


# --- the lens after opening the file -------------------------------------------------------------


@dataclass
class Open:
    """One open of a fresh copy of the subject, seen from the client (seconds after didOpen)."""

    lens: float  # the codeLens sent with the didOpen answered
    parsed: bool  # that answer came from a parse (a refresh followed when the analysis arrived)
    refresh: float  # workspace/codeLens/refresh arrived (the analysis is done)
    refined: float  # the codeLens asked on the refresh answered
    units: int  # lenses in the first answer


@dataclass
class Opens:
    name: str
    load: float
    opens: list[Open] = field(default_factory=list)


def _hog() -> subprocess.Popen[bytes]:
    """A busy loop in a process of its own: the other core kept busy."""
    return subprocess.Popen([sys.executable, "-c", "while True:\n    pass\n"])


async def lens_after_open(subject: Subject, opens: int) -> list[Opens]:
    """``opens`` opens of fresh copies on a quiet machine, then as many with a CPU hog running."""
    workspace = Path(tempfile.mkdtemp(prefix="miogen-bench-open-"))
    original = subject.path.read_text("utf-8")
    probe = Probe(workspace.as_uri())
    try:
        (workspace / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n')
        await probe.client.start_io(sys.executable, "-m", "miogen", "serve")
        await probe.client.initialize_async(
            types.InitializeParams(
                capabilities=CAPABILITIES,
                root_uri=workspace.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="bench")],
                initialization_options={"onSave": False},
            )
        )
        probe.client.initialized(types.InitializedParams())
        await _open_once(probe, workspace / "warm_up.py", original)  # processes started, imports
        results = []
        for name in ("quiet", "other core busy"):
            hog = _hog() if name != "quiet" else None
            try:
                await asyncio.sleep(0.5)
                phase = Opens(name, os.getloadavg()[0])
                for index in range(opens):
                    path = workspace / f"{subject.path.stem}_{name[0]}{index}.py"
                    phase.opens.append(await _open_once(probe, path, original))
                results.append(phase)
            finally:
                if hog is not None:
                    hog.kill()
                    hog.wait()
        await probe.client.shutdown_async(None)
        probe.client.exit(None)
        await probe.client.stop()
        return results
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


async def _open_once(probe: Probe, path: Path, text: str) -> Open:
    path.write_text(text, "utf-8")
    uri, client = path.as_uri(), probe.client
    document = types.TextDocumentIdentifier(uri=uri)
    refreshes = len(probe.refreshes)
    start = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )  # fmt: skip
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=document))  # fmt: skip
    answered = time.perf_counter() - start
    units = len(lenses or [])
    refresh = refined = float("nan")
    deadline = time.perf_counter() + 60
    while len(probe.refreshes) == refreshes and time.perf_counter() < deadline:
        await asyncio.sleep(0.005)
    if len(probe.refreshes) > refreshes:
        refresh = probe.refreshes[refreshes] - start
        await client.text_document_code_lens_async(types.CodeLensParams(text_document=document))
        refined = time.perf_counter() - start
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=document))
    await asyncio.sleep(0.3)
    return Open(answered, len(probe.refreshes) > refreshes, refresh, refined, units)


def open_report(phases: list[Opens], subject: Subject) -> str:
    if not phases:
        return ""
    rows = []
    for phase in phases:
        lens = _median([o.lens for o in phase.opens])
        rows.append(
            f"| {phase.name} (load {phase.load:.2f}) | {_ms(lens)} | {_ms(max(o.lens for o in phase.opens))} "
            f"| {sum(o.parsed for o in phase.opens)}/{len(phase.opens)} | {phase.opens[0].units} "
            f"| {_ms(_median([o.refresh for o in phase.opens]))} | {_ms(_median([o.refined for o in phase.opens]))} "
            f"| {_verdict(lens < 0.3)} |"
        )  # fmt: skip
    each = "; ".join(f"{p.name}: " + ", ".join(_ms(o.lens) for o in p.opens) for p in phases)
    return f"""
## The lens after opening the file (median of {len(phases[0].opens)} opens; aim: < 300 ms)

Each open is of a fresh copy of the subject (never analysed before) in a server that has opened
one file already; codeLens is sent right after didOpen. Until the file's first analysis is done
(coverage.py's tokenizing dominates it) the lenses come from a parse of the text, without branch
counts; the server asks for a refresh when the analysis arrives. *Other core busy*: a process
running a busy loop for the whole phase. *From a parse*: answers followed by a refresh.

| machine | didOpen -> lens | max | from a parse | lenses | -> refresh asked | -> refined lens | < 300 ms |
|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Each open's lens: {each}.
"""


# --- the report ---------------------------------------------------------------------------------


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def _ms(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds * 1000:.0f} ms"


def _s(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds:.2f} s"


def _median(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def _verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def report(subject: Subject, phases: list[Phase], saves: list[Save], budget: float, command: str, loads: tuple[float, float], seconds: float, opened: list[Opens] | None = None) -> str:  # fmt: skip
    lines = subject.path.read_text("utf-8").count("\n")
    rows = []
    for phase in phases:
        for kind in KINDS:
            values = phase.latencies[kind]
            p95 = _percentile(values, 0.95)
            rows.append(f"| {phase.name} | {kind} | {_ms(_percentile(values, 0.5))} | {_ms(p95)} | {_ms(max(values, default=float('nan')))} | {len(values)} | {_verdict(p95 < 0.05)} |")  # fmt: skip
    visible = _median([s.visible for s in saves])
    streamed = _median([s.streamed for s in saves])
    final = _median([s.final for s in saves])
    aims = [
        f"| save -> job visible (progress begin or `queued`) < 0.5 s | {_s(visible)} | {_verdict(visible < 0.5)} |",
        f"| save -> first streamed coverage < 1.5 s | {_s(streamed)} | {_verdict(streamed < 1.5)} |",
        f"| save -> final result <= budget + 2 s = {budget + 2:g} s | {_s(final)} | {_verdict(final <= budget + 2)} |",
    ]  # fmt: skip
    runs = "\n".join(
        f"| {i + 1} | {_s(s.visible)} | {_s(s.running)} | {_s(s.streamed)} | {_s(s.final)} ({s.state or 'none'}) | {s.account} |"
        for i, s in enumerate(saves)
    )  # fmt: skip
    phase_loads = ", ".join(f"{p.name} {p.load:.2f}" for p in phases)
    machine = f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    return f"""# Language-server latency on a big module ({subject.name})

Command: `{command}` ({datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")})
Machine: {machine}; load average (1 min) before {loads[0]:.2f}, at the phases' start {phase_loads},
after {loads[1]:.2f}. The machine is shared by several engineers: one run's figures, under that load.
Subject: {subject.origin} ({lines} lines); the saves change the code of `{subject.unit}`;
budgetSeconds = {budget:g}, generateOnSave = changed. Whole benchmark: {seconds:.0f} s.

## Requests (round trip seen by the client; aim: p95 < 50 ms)

Requests go one after the other, 20 ms apart. *While typing*: a character is typed into a comment
line inside `{subject.unit}` every 100 ms (each keystroke a new text to analyse). *During a job*:
from each save below until its result.

| phase | request | p50 | p95 | max | requests | p95 < 50 ms |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

## Saves (median of {len(saves)} saves of a code change, typed and saved at once)

| aim | measured | |
|---|---|---|
{chr(10).join(aims)}

| save | job visible | job running | first streamed coverage | final result | the server's account of the job |
|---|---|---|---|---|---|
{runs}

The server analyses each text once, in a process of its own, and answers requests from the latest
finished analysis after waiting at most 50 ms for a newer one; a save reuses the analysis of the
text that was typed. A job's time after the save: the save debounce (0.1 s) and the analysis of
the saved text if it is still running (*job running* ends there), the worker's start (a worker
started ahead of the job, past Python's start and miogen's imports, gets the job spec: *start*
is its analysis and import of the module, the import instrumenting only the code the unit's
tests can run; the analysis is done already when the spare was given the saved text while it
waited, as the server does once typing pauses and at each save; without a spare, the
interpreter's start too), the unit's search and post-processing within the budget (the
engine's budget covers these, from the end of the module's import), then coverage.py's
verification of the emitted
tests in fresh pytest processes (started during the search, importing pytest, coverage.py and
the project's installed pytest plugins while they wait): a coverage run in the file's order and a
run backwards, then, when keeping what adds left tests out (here: the tests kept for exception
goals, which add no branch), the kept tests once more alone, in a process started when the
verification began. The server's account names the
worker's pid ("started ahead" when it was a spare, "the saved text analysed ahead" when the
spare had analysed it) and splits its wall time into the start and the unit's phases, then the
verification.
{open_report(opened or [], subject)}"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lsp_latency", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--subject", choices=sorted(SUBJECTS), default="argparse")
    parser.add_argument("--runs", type=int, default=3, help="saves of a code change (default 3)")
    parser.add_argument("--budget", type=float, default=5.0, help="budgetSeconds (default 5)")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="length of the idle and typing phases"
    )
    parser.add_argument(
        "--opens", type=int, default=7, help="opens per machine state for the lens (default 7)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    command = " ".join(
        [".venv/bin/python -m bench.lsp_latency", *(argv if argv is not None else sys.argv[1:])]
    )
    subject = SUBJECTS[args.subject]
    before, started = os.getloadavg()[0], time.perf_counter()
    phases, saves = asyncio.run(measure(subject, args.runs, args.budget, args.seconds))
    opened = asyncio.run(lens_after_open(subject, args.opens)) if args.opens > 0 else []
    loads = (before, os.getloadavg()[0])
    text = report(
        subject, phases, saves, args.budget, command, loads, time.perf_counter() - started, opened
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
