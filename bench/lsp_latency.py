"""Language-server latency on the classic triangle subject: from didSave to results, and requests.

Run: ``.venv/bin/python -m bench.lsp_latency [--runs 5] [--budget 5]``. Copies
corpus/classic/triangle.py into a temporary workspace, starts ``miogen serve`` over stdio,
and per run changes the code of ``classify``, saves, and measures

* didSave -> the first ``textDocument/publishDiagnostics`` or ``miogen/coverage`` notification,
* didSave -> the first notification carrying search results (covered branches),
* didSave -> the final, coverage.py-verified result (``miogen/jobStatus`` done),
* the latency of ``textDocument/codeLens`` and ``textDocument/codeAction`` requests sent back to
  back while the job runs (p50, p95, max).

Writes bench/results/lsp_latency.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
SUBJECT = HERE.parent / "corpus" / "classic" / "triangle.py"
RESULTS = HERE / "results" / "lsp_latency.md"
UNIT = "classify"
ANCHOR = "    if a <= 0 or b <= 0 or c <= 0:\n"


@dataclass
class Run:
    first_notification: float = float("nan")
    first_results: float = float("nan")
    final: float = float("nan")
    latencies: list[float] = field(default_factory=list)
    timing: str = ""  # the server's own account: worker and verification seconds


class Probe:
    """An LSP client that timestamps what the server sends about one file."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.client = LanguageClient("miogen-bench", "1")
        self.events: list[tuple[float, str, object]] = []
        self.logs: list[str] = []
        client = self.client
        client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda p: self._diagnostics(p))
        client.feature("miogen/coverage")(lambda p: self._record("coverage", p))
        client.feature("miogen/jobStatus")(lambda p: self._record("status", p))
        client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda p: None)
        client.feature(types.PROGRESS)(lambda p: None)
        client.feature(types.WINDOW_LOG_MESSAGE)(lambda p: self.logs.append(p.message))

    def _diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        if params.uri == self.uri:
            self.events.append((time.perf_counter(), "diagnostics", params))

    def _record(self, kind: str, params) -> None:
        if params.uri == self.uri:
            self.events.append((time.perf_counter(), kind, params))

    def since(self, start: float) -> list[tuple[float, str, object]]:
        return [event for event in self.events if event[0] >= start]


def _has_results(kind: str, params) -> bool:
    if kind == "diagnostics":
        return bool(params.diagnostics)
    if kind == "coverage":
        return any(u.name == UNIT and u.covered > 0 for u in params.units)
    return False


def _final(kind: str, params) -> bool:
    return kind == "status" and params.unit == UNIT and params.state in ("done", "failed")


async def _settle(probe: Probe) -> None:
    """Wait until the server has sent nothing for 0.5 s."""
    while True:
        count = len(probe.events)
        await asyncio.sleep(0.5)
        if len(probe.events) == count:
            return


async def _run_once(probe: Probe, path: Path, text: str, version: int) -> Run:
    client, uri, run = probe.client, probe.uri, Run()
    path.write_text(text, "utf-8")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await _settle(probe)  # the edit's own update (the unit goes stale) is not the save's
    start = time.perf_counter()
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    document = types.TextDocumentIdentifier(uri=uri)
    line = text.splitlines().index(ANCHOR.rstrip("\n"))
    here = types.Range(start=types.Position(line=line, character=8), end=types.Position(line=line, character=8))  # fmt: skip
    deadline = start + 120
    while time.perf_counter() < deadline:
        events = probe.since(start)
        if any(_final(kind, params) for _, kind, params in events):
            break
        sent = time.perf_counter()
        if len(run.latencies) % 2:
            await client.text_document_code_lens_async(types.CodeLensParams(text_document=document))
        else:
            await client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=document, range=here, context=types.CodeActionContext(diagnostics=[])
                )
            )  # fmt: skip
        run.latencies.append(time.perf_counter() - sent)
        await asyncio.sleep(0.01)
    events = probe.since(start)
    notified = [t for t, kind, _ in events if kind in ("diagnostics", "coverage")]
    with_results = [t for t, kind, p in events if _has_results(kind, p)]
    final = [t for t, kind, p in events if _final(kind, p)]
    run.first_notification = (notified[0] - start) if notified else float("nan")
    run.first_results = (with_results[0] - start) if with_results else float("nan")
    run.final = (final[0] - start) if final else float("nan")
    await asyncio.sleep(0.2)
    run.timing = next(
        (m.split("; ", 1)[1] for m in reversed(probe.logs) if f"{UNIT}: " in m and "; " in m), ""
    )
    return run


async def measure(runs: int, budget: float) -> tuple[list[Run], dict]:
    workspace = Path(tempfile.mkdtemp(prefix="miogen-bench-lsp-"))
    try:
        (workspace / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n')
        path = workspace / "triangle.py"
        original = SUBJECT.read_text("utf-8")
        path.write_text(original, "utf-8")
        uri = path.as_uri()
        probe = Probe(uri)
        await probe.client.start_io(sys.executable, "-m", "miogen", "serve")
        capabilities = types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            workspace=types.WorkspaceClientCapabilities(apply_edit=True),
        )
        await probe.client.initialize_async(
            types.InitializeParams(
                capabilities=capabilities,
                root_uri=workspace.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="bench")],
                initialization_options={"budgetSeconds": budget},
            )
        )
        probe.client.initialized(types.InitializedParams())
        probe.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=original)
            )
        )  # fmt: skip
        results = []
        for index in range(runs):
            text = original.replace(ANCHOR, f"    _run = {index}\n{ANCHOR}")  # a code change
            results.append(await _run_once(probe, path, text, version=index + 2))
        await probe.client.shutdown_async(None)
        probe.client.exit(None)
        await probe.client.stop()
        return results, {"workspace": str(workspace)}
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def report(runs: list[Run], budget: float, command: str, load: tuple, seconds: float) -> str:
    latencies = [x for r in runs for x in r.latencies]
    median = statistics.median
    rows = "\n".join(
        f"| {i + 1} | {_ms(r.first_notification)} | {_ms(r.first_results)} | {_ms(r.final)} | "
        f"{len(r.latencies)} | {_ms(_percentile(r.latencies, 0.95)) if r.latencies else '-'} | "
        f"{r.timing} |"
        for i, r in enumerate(runs)
    )
    machine = (
        f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average before {load[0]:.2f}, after {load[1]:.2f}"
    )
    return f"""# Language-server latency (triangle)

Command: `{command}`
Machine: {machine}
Subject: corpus/classic/triangle.py, unit `{UNIT}` changed and saved {len(runs)} times;
budgetSeconds = {budget:g}. Whole benchmark: {seconds:.1f} s.

| aim | measured (median of runs) |
|---|---|
| didSave -> first diagnostics/coverage notification < 1 s | {_ms(median([r.first_notification for r in runs]))} |
| didSave -> first streamed results (covered branches) | {_ms(median([r.first_results for r in runs]))} |
| didSave -> final verified result < budget + 1 s | {_ms(median([r.final for r in runs]))} |
| codeLens/codeAction p95 while a job runs < 50 ms | {_ms(_percentile(latencies, 0.95))} (p50 {_ms(_percentile(latencies, 0.5))}, max {_ms(max(latencies))}, {len(latencies)} requests) |

The first notification is the `queued` state of the unit (sent once the 0.25 s save debounce has
passed and the saved file is analysed); streamed results need the worker process to start and
import the engine; the final result includes coverage.py's verification of the emitted tests in
a fresh pytest process. The search itself covers all 12 branches of `classify` in well under a
second, so the search budget is not the bottleneck here.

| run | first notification | first results | final | requests | p95 | server's account of the job |
|---|---|---|---|---|---|---|
{rows}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lsp_latency", description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--budget", type=float, default=5.0)
    args = parser.parse_args(argv)
    command = " ".join([".venv/bin/python -m bench.lsp_latency", *(argv or sys.argv[1:])])
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    runs, _ = asyncio.run(measure(args.runs, args.budget))
    text = report(
        runs, args.budget, command, (load_before, os.getloadavg()[0]), time.perf_counter() - started
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
