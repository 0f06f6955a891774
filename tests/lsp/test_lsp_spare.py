"""A save runs its job in a worker started before it; a dead or stale one is replaced."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys

import pytest
from lsp_support import E2E, edited_sign
from lsprotocol import types
from process_support import gone, spares

pytestmark = [*E2E, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


def server_pid(editor) -> int:
    return editor.client._server.pid


async def settled_spares(editor, server: int) -> set[int]:
    """The workers started ahead once they stop changing: a spare started before the settings
    arrived is replaced by one for them (its key), on a loaded machine after the first look."""
    seen = await editor.wait(lambda: spares(server), "a worker started ahead")
    for _ in range(60):
        await asyncio.sleep(0.5)
        now = spares(server)
        if now == seen:
            return now
        seen = now or seen
    return seen


async def test_a_save_runs_its_job_in_the_worker_started_before_it(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    server = server_pid(editor)
    waiting = await settled_spares(editor, server)
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign")
    [account] = [m for m in editor.logs("sign: ") if " covered by " in m][-1:]
    pid = int(
        re.search(r"worker [\d.]+ s \(start [\d.]+ s, pid (\d+) started ahead", account).group(1)
    )
    assert pid in waiting, account
    assert "the saved text analysed ahead" in account  # the spare analysed it while it waited
    assert gone(pid)
    later = await editor.wait(lambda: spares(server) - waiting, "the next worker started ahead")
    assert pid not in later


async def test_a_killed_spare_is_replaced_and_the_save_still_succeeds(editor):
    path = editor.write("shapes.py")
    editor.open(path)
    server = server_pid(editor)
    killed = await editor.wait(lambda: spares(server), "a worker started ahead")
    for spare in killed:
        os.kill(spare, signal.SIGKILL)
    editor.save(path, edited_sign("return 2"))
    done = await editor.wait_job("sign")
    assert done["covered"] == 3
    account = [m for m in editor.logs("sign: ") if " covered by " in m][-1]
    assert (
        int(re.search(r"worker [\d.]+ s \(start [\d.]+ s, pid (\d+)", account).group(1))
        not in killed
    )
    await editor.wait(lambda: spares(server) - killed, "a new worker started ahead")


@pytest.mark.parametrize("fresh", ["visual-studio-code"], indirect=True)
async def test_a_settings_change_discards_the_spare(fresh, tmp_path):
    from lsp_support import Editor, start

    editor = Editor(fresh, tmp_path / "ws" / "project")
    await start(fresh, "visual-studio-code", [tmp_path / "ws"])
    path = editor.write("shapes.py")
    editor.open(path)
    server = server_pid(editor)
    [old] = await editor.wait(lambda: spares(server), "a worker started ahead")
    fresh.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"miogen": {"budgetSeconds": 0.7}})
    )
    await editor.wait(lambda: gone(old), "the old spare to be discarded")
    await editor.wait(lambda: spares(server), "a spare for the new settings")
    editor.save(path, edited_sign("return 2"))
    await editor.wait_job("sign")
    account = [m for m in editor.logs("sign: ") if " covered by " in m][-1]
    pid = int(
        re.search(r"worker [\d.]+ s \(start [\d.]+ s, pid (\d+) started ahead", account).group(1)
    )
    assert pid != old
    editor.close_all()
