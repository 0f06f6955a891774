"""The worker's supervisor: user code that hangs, dies or fails to import costs a job, never the caller."""

from __future__ import annotations

from miogen.common.records import ErrorKind, JobSpec
from miogen.host.supervisor import run_job
from worker.helpers import spec_for as module_spec


def spec_for(path, unit, **options) -> JobSpec:
    return module_spec(path, unit, **{"budget_seconds": 1.0, "test_timeout": 0.3, **options})


def result(outcome):
    """The one unit's result."""
    return outcome.units[0].result


def test_a_good_unit_is_generated_and_streams_progress(write_module):
    path = write_module(
        "good", "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    return 0\n"
    )
    events = []
    outcome = run_job(spec_for(path, "sign"), on_event=events.append)
    assert outcome.status == "ok"
    assert len(result(outcome).covered) == result(outcome).total == 2
    assert any(e.event == "progress" for e in events)


def test_python_infinite_loop_is_stopped_by_the_per_test_timeout(write_module):
    path = write_module(
        "spin",
        """
        def spin(x: int) -> int:
            if x > 100:
                while True:
                    pass
            return x
        """,
    )
    spec = spec_for(path, "spin", budget_seconds=1.5)
    outcome = run_job(spec)
    # Not killed (no crash) and within the supervisor's deadline: the worker's own alarm ended
    # each hanging test.
    assert outcome.status == "ok" and not outcome.crashes
    assert outcome.wall_seconds < spec.attempt_seconds()


def test_code_stuck_in_c_gets_the_worker_killed_and_the_job_goes_on(write_module):
    path = write_module(
        "regex",
        """
        import hashlib

        def slow(n: int) -> bool:
            if n > 3:  # hashing in C never checks for signals: only a kill stops it
                return len(hashlib.pbkdf2_hmac("sha256", b"x", b"y", 10**9)) > 0
            return False
        """,
    )
    outcome = run_job(spec_for(path, "slow", budget_seconds=2.0))
    assert outcome.crashes, "the hung worker should have been killed"
    assert "longer than" in outcome.crashes[0].reason
    assert outcome.crashes[0].test, "the test that hung is recorded"
    assert outcome.status == "ok"
    assert outcome.wall_seconds < 90  # the hash alone runs for many minutes


def test_a_worker_that_exits_is_restarted_and_the_killer_recorded(write_module):
    path = write_module(
        "exits",
        """
        import os

        def die(x: int) -> int:
            if x > 5:
                os._exit(3)
            return x
        """,
    )
    outcome = run_job(spec_for(path, "die", budget_seconds=1.5))
    assert outcome.crashes and "exited with status 3" in outcome.crashes[0].reason
    assert len(outcome.crashes) <= 5, "never retried endlessly"
    assert outcome.status == "ok", outcome.message
    assert result(outcome).tests, "what was found before the crashes is kept"


def test_sys_exit_is_an_ordinary_outcome(write_module):
    path = write_module(
        "quits", "import sys\n\ndef quit_now(code: int) -> None:\n    sys.exit(code)\n"
    )
    outcome = run_job(spec_for(path, "quit_now"))
    assert outcome.status == "ok" and not outcome.crashes
    assert "SystemExit" in result(outcome).tests[0].source


def test_import_error_is_named(write_module):
    path = write_module(
        "broken", "import os\nraise RuntimeError('no database')\n\ndef f(x):\n    return x\n"
    )
    outcome = run_job(spec_for(path, "f"))
    assert outcome.status == "failed"
    assert outcome.error.kind == ErrorKind.IMPORT
    assert "RuntimeError: no database" in outcome.error.message
    assert outcome.error.line == 2


def test_prints_and_fd_writes_never_reach_the_protocol(write_module):
    path = write_module(
        "noisy",
        """
        import os, sys

        def shout(x: int) -> int:
            print("{not json")
            os.write(1, b"garbage\\n")
            sys.stderr.write("err")
            return x
        """,
    )
    outcome = run_job(spec_for(path, "shout"))
    assert outcome.status == "ok" and result(outcome).covered


def test_cancellation_is_prompt(write_module):
    path = write_module(
        "slowsearch",
        "def f(x: int) -> int:\n    if x == 1 and x == 2:\n        return 1\n    return 0\n",
    )
    import time

    start = time.monotonic()
    outcome = run_job(
        spec_for(path, "f", budget_seconds=30), should_cancel=lambda: time.monotonic() - start > 1.0
    )
    assert outcome.status == "cancelled"
    assert outcome.wall_seconds < 15  # the budget is 30 s; what the stop takes is benchmarked


def test_a_unit_shrinks_after_a_crash_but_not_on_its_last_chance():
    """A unit whose worker died is careful (no mutants) and still shrinks; once one more death
    would fail it, it runs nothing new (raw: no shrinking) and only replays."""
    from miogen.common.records import Crash, UnitJob, UnitOutcome
    from miogen.host.supervisor import MAX_RESTARTS, _UnitState

    state = _UnitState(UnitJob("sign"), UnitOutcome("sign"), careful=True)
    state.outcome.crashes.append(Crash("sign", "killed", None))
    after_one = state.next_job(1.0)
    assert after_one.careful and not after_one.raw and not after_one.replay_only
    state.outcome.crashes += [Crash("sign", "killed", None)] * MAX_RESTARTS
    last = state.next_job(1.0)
    assert last.careful and last.raw and last.replay_only


def test_a_call_that_killed_the_worker_is_blocked_in_every_test(write_module):
    """The search of the next attempt (the same seed) puts the killing call in other tests
    again; blocked as a whole test, ``slow(4242)`` killed the worker four times, after which
    the unit is raw (unshrunk). Blocked as the call with its values, once."""
    path = write_module(
        "hasher",
        """
        import hashlib

        def slow(n: int) -> bool:
            if n == 4242:  # hashing in C never checks for signals: only a kill stops it
                return len(hashlib.pbkdf2_hmac("sha256", b"x", b"y", 10**9)) > 0
            return n > 7
        """,
    )
    outcome = run_job(spec_for(path, "slow", evaluations=300))
    assert outcome.status == "ok"
    assert len(outcome.crashes) == 1, [crash.test for crash in outcome.crashes]
    assert result(outcome).tests
