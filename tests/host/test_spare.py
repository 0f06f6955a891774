"""Workers started ahead of their job: used once, never stale, replaced when dead, gone with their parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from miogen.common.records import JobSpec, WorkerStart
from miogen.host import spare as spare_module
from miogen.host.spare import Spare, Spares
from miogen.host.supervisor import run_job
from worker.helpers import spec_for as module_spec

SIGN = "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    return 0\n"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def spec_for(path, unit, **options) -> JobSpec:
    return module_spec(path, unit, **{"budget_seconds": 0.5, "test_timeout": 0.3, **options})


def gone(pid: int, within: float = 30.0) -> bool:
    """Whether process ``pid`` ended (or is a zombie nobody reaped yet) within ``within`` s."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def spares():
    pool = Spares()
    yield pool
    pool.close()


def waiting(pool: Spares) -> Spare:
    spare = pool.current
    assert spare is not None and spare.alive()
    return spare


def test_the_job_runs_in_the_spare_started_before_it_and_another_waits_after(spares, write_module):
    spares.refill("settings")
    before = waiting(spares).pid
    path = write_module("sign_module", SIGN)  # written after the spare started
    outcome = run_job(spec_for(path, "sign"), spares=spares.keyed("settings"))
    assert outcome.status == "ok" and outcome.units[0].result is not None
    assert outcome.workers == [WorkerStart(before, spare=True)]
    assert waiting(spares).pid != before
    assert gone(before)


def test_a_spare_runs_the_module_as_it_is_when_the_job_starts(spares, write_module):
    path = write_module("changing", SIGN)
    spares.refill("settings")
    outcome = run_job(spec_for(path, "sign"), spares=spares.keyed("settings"))
    assert outcome.units[0].result is not None and outcome.workers[0].spare
    assert waiting(spares).alive()  # launched while the first version was on disk
    path.write_text(SIGN + "\n\ndef twice(x: int) -> int:\n    return 2 * x\n", "utf-8")
    outcome = run_job(spec_for(path, "twice"), spares=spares.keyed("settings"))
    assert outcome.status == "ok" and outcome.workers[0].spare
    assert outcome.units[0].result is not None and outcome.units[0].result.tests


def test_a_dead_spare_is_replaced_not_waited_on(spares, write_module):
    spares.refill("settings")
    dead = waiting(spares).pid
    os.kill(dead, signal.SIGKILL)
    assert gone(dead)
    outcome = run_job(spec_for(write_module("m", SIGN), "sign"), spares=spares.keyed("settings"))
    assert outcome.status == "ok" and not outcome.crashes
    assert [worker.spare for worker in outcome.workers] == [False]
    assert waiting(spares).pid != dead


class KilledOnTake:
    """A source whose spare dies between the take and the job spec (the worst moment)."""

    def __init__(self, spares: Spares) -> None:
        self.spares = spares
        self.killed: list[int] = []

    def take(self) -> Spare | None:
        spare = self.spares.take("settings")
        assert spare is not None
        os.kill(spare.pid, signal.SIGKILL)
        spare.process.wait()
        self.killed.append(spare.pid)
        return spare

    def refill(self) -> None:
        self.spares.refill("settings")


def test_a_spare_killed_before_its_spec_costs_no_crash(spares, write_module):
    spares.refill("settings")
    source = KilledOnTake(spares)
    outcome = run_job(spec_for(write_module("m", SIGN), "sign"), spares=source)
    assert outcome.status == "ok" and not outcome.crashes
    assert outcome.workers[0] == WorkerStart(source.killed[0], spare=True)
    assert [worker.spare for worker in outcome.workers[1:]] == [False]


def test_a_module_that_kills_every_worker_fails_as_without_spares(spares, write_module):
    path = write_module("exits", "import os\nos._exit(3)\n\ndef f(x: int) -> int:\n    return x\n")
    alone = run_job(spec_for(path, "f"))
    spares.refill("settings")
    outcome = run_job(spec_for(path, "f"), spares=spares.keyed("settings"))
    assert outcome.units[0].status == alone.units[0].status == "failed"
    assert outcome.units[0].message == alone.units[0].message
    assert len(outcome.crashes) == len(alone.crashes)
    spared = [worker.spare for worker in outcome.workers]
    assert spared == [True] + [False] * len(alone.workers)  # one spare lost, then as alone


def test_a_spare_for_other_settings_or_another_environment_is_discarded(
    spares, tmp_path, monkeypatch
):
    spares.refill("old settings")
    old = waiting(spares).pid
    assert spares.take("new settings") is None
    assert gone(old)
    site_folder = tmp_path / "site-packages"
    site_folder.mkdir()
    monkeypatch.setattr(spare_module.site, "getsitepackages", lambda: [str(site_folder)])
    spares.refill("settings")
    launched = waiting(spares).pid
    (site_folder / "installed.pth").write_text("", "utf-8")  # a package installed meanwhile
    os.utime(site_folder, (time.time() + 5, time.time() + 5))
    assert spares.take("settings") is None
    assert gone(launched)


def test_refill_keeps_a_live_spare_and_discard_kills_it(spares):
    spares.refill("settings")
    first = waiting(spares).pid
    spares.refill("settings")
    assert waiting(spares).pid == first and spares.launched == 1
    spares.discard()
    assert spares.current is None and gone(first)
    spares.close()
    spares.refill("settings")
    assert spares.current is None  # closed: no more spares


PARENT = textwrap.dedent(
    """
    import os, sys, time
    from miogen.host.spare import Spares
    spares = Spares()
    spares.refill("settings")
    print(spares.current.pid, flush=True)
    time.sleep(60)
    """
)


def test_a_spare_ends_when_its_parent_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        time.sleep(0.5)  # the spare is on its way to waiting for its spec
        assert not gone(pid, within=0.1)
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()
    assert gone(pid)


def test_the_sandbox_holds_in_a_spare(spares, write_module, tmp_path):
    marker = tmp_path / "outside" / "written.txt"
    marker.parent.mkdir()
    source = f"""
    def touch(x: int) -> int:
        if x > 0:
            with open({str(marker)!r}, "w") as out:
                out.write("harm")
        return x
    """
    spares.refill("settings")
    outcome = run_job(
        spec_for(write_module("toucher", source), "touch"), spares=spares.keyed("settings")
    )
    assert outcome.status == "ok" and outcome.workers[0].spare
    assert not marker.exists()
