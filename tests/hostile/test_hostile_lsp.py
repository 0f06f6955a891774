"""Hostile code through the language server: one session saves every corpus module.

The session must survive all of them (and still answer afterwards), each job must end within its
budget plus a bounded margin, nothing outside the workers' scratch folders may change, the tests
it inserts must pass every time, and a file outside the workspace folders must never run.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from hostile_world import UNITS
from pytest_lsp import ClientServerConfig

sys.path.insert(0, str(Path(__file__).parents[1] / "lsp"))
from lsp_support import SERVER, Editor, start  # noqa: E402 - beside the LSP tests, not a package

BUDGET = 1.0
# From "running" to "done"/"failed" as the client sees it: a job (start-up, search, post-processing,
# restarts after crashes) plus the server's coverage.py verification, two jobs at a time, on a
# loaded two-core machine.
MARGIN_SECONDS = 30.0
ALL_JOBS_SECONDS = 180.0  # every job of the session; a bound, not an expectation
TERMINAL = ("done", "failed")


async def start_server(world) -> Editor:
    """``miogen serve`` with the world's environment, its project as the one workspace folder."""
    config = ClientServerConfig(
        server_command=SERVER.server_command, client_factory=SERVER.client_factory,
        server_env=world.env(),
    )  # fmt: skip
    client = await config.start()
    await start(client, "visual-studio-code", [world.project])
    editor = Editor(client, world.project)
    editor.configure(budgetSeconds=BUDGET, maxParallelJobs=2)  # the project's pyproject.toml
    return editor


def durations(editor: Editor) -> dict[str, float]:
    """Per unit: seconds from "running" to "done"/"failed", as the client received them."""
    first: dict[tuple[str, str], float] = {}
    for status in editor.statuses:
        first.setdefault((status["unit"], status["state"]), status["_at"])
    found = {}
    for unit in UNITS.values():
        ends = [first[(unit, state)] for state in TERMINAL if (unit, state) in first]
        if ends and (unit, "running") in first:
            found[unit] = round(min(ends) - first[(unit, "running")], 1)
    return found


async def test_one_session_survives_the_whole_corpus(world):
    outside = world.root / "elsewhere" / "outside_writer.py"
    outside.parent.mkdir()
    outside.write_text((world.project / "write_outside.py").read_text())
    editor = await start_server(world)
    world.before = world.watched()
    try:
        await check_session(editor, world, outside)
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


async def check_session(editor: Editor, world, outside: Path) -> None:
    paths = {module: world.project / f"{module}.py" for module in UNITS}
    for path in paths.values():
        editor.open(path)
    # The editor's "Generate tests" on every unit at once: the server queues them, runs two at a
    # time, and inserts each unit's tests into tests/test_<module>.py through workspace/applyEdit.
    answers = await asyncio.wait_for(
        asyncio.gather(
            *(editor.command("miogen.generateTests", paths[m], UNITS[m]) for m in UNITS)
        ),
        ALL_JOBS_SECONDS,
    )
    seconds = durations(editor)
    assert len(seconds) == len(UNITS), seconds
    assert max(seconds.values()) <= BUDGET + MARGIN_SECONDS, seconds
    assert editor.client.error is None

    units = await editor.units(paths["kill_parent"])  # the server is alive and answers
    assert [u["name"] for u in units] == ["betray"]
    assert world.damage(ignore="project: created tests") == []
    failed = {s["unit"]: s["message"] for s in editor.statuses if s["state"] == "failed"}
    assert set(failed) <= {"vanish", "crash"}, failed  # only workers that died every time

    inserted = [Path(a["testFile"]) for a in answers if a["applied"]]
    assert len(inserted) >= len(UNITS) // 3, answers
    assert {path.parent for path in inserted} == {world.project / "tests"}
    for seed in (1, 2):  # all inserted files in one pytest process per hash seed
        run = world.run_emitted(world.project / "tests", seed)
        assert run.returncode == 0, f"unstable with PYTHONHASHSEED={seed}:\n{run.stdout[-3000:]}"
    assert world.damage(ignore="project: created tests") == []

    editor.open(outside)
    editor.save(outside)
    await editor.wait(lambda: editor.logs("outside the workspace folders"), "a refusal")
    with pytest.raises(Exception, match="outside the workspace folders"):
        await editor.command("miogen.generateTests", outside, "save")
    outside_jobs = [s for s in editor.recorder.statuses if s["uri"] == editor.uri(outside)]
    assert outside_jobs == [], "a file outside the workspace folders never runs"
    assert world.damage(ignore="project: created tests") == []
