"""The test clock's deadline: the wall clock less the wait for a CPU, up to a wall-clock cap."""

from __future__ import annotations

import os

import pytest
from miogen.common.waits import (
    Deadline,
    ThreadWaits,
    elapsed_on_test_clock,
    parse_wait,
    process_waits,
)


class Machine:
    """A wall clock and a thread's run-queue wait (ns), moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waited: int | None = 5_000_000_000

    def clock(self) -> float:
        return self.now

    def waits(self) -> int | None:
        return self.waited

    def run(self, seconds: float) -> None:
        self.now += seconds

    def wait(self, seconds: float) -> None:
        self.now += seconds
        if self.waited is not None:
            self.waited += round(seconds * 1e9)


def deadline(machine: Machine, seconds: float = 1.0) -> Deadline:
    made = Deadline(seconds, machine.waits, machine.clock)
    made.start()
    return made


def test_on_a_quiet_machine_the_deadline_is_the_timeout():
    machine = Machine()
    due = deadline(machine)
    machine.run(0.4)
    assert due.left() == pytest.approx(0.6)
    machine.run(0.6)
    assert due.left() == pytest.approx(0.0)


def test_time_waited_for_a_cpu_moves_the_deadline_by_as_much():
    machine = Machine()
    due = deadline(machine)
    machine.run(0.3)
    machine.wait(0.5)
    machine.run(0.2)
    # 1 s by the wall clock, 0.5 s of it on a run queue: half the test's second is left
    assert due.left() == pytest.approx(0.5)
    assert due.waited_since() == pytest.approx(0.5)
    machine.run(0.5)
    assert due.left() == pytest.approx(0.0) and not due.capped


def test_time_asleep_counts():
    """A test that sleeps (or waits on I/O) is not waiting for a CPU: its time runs."""
    machine = Machine()
    due = deadline(machine)
    machine.run(1.2)  # asleep or running: neither moves the run-queue wait
    assert due.left() == pytest.approx(-0.2)


def test_a_machine_that_never_lets_the_test_run_ends_it_at_the_cap():
    machine = Machine()
    due = deadline(machine, seconds=0.5)
    machine.wait(4.0)
    assert due.left() == pytest.approx(0.5) and not due.capped
    machine.wait(1.0)  # 5 s by the wall clock: ten times the timeout
    assert due.left() == pytest.approx(0.0) and due.capped


def test_without_a_wait_to_read_it_is_the_wall_clock():
    machine = Machine()
    machine.waited = None
    due = deadline(machine)
    machine.wait(0.7)
    assert due.left() == pytest.approx(0.3) and due.waited_since() == 0.0


def test_a_reader_that_stops_answering_leaves_the_wall_clock():
    machine = Machine()
    due = deadline(machine)
    machine.wait(0.5)
    machine.waited = None  # the descriptor was closed under it
    assert due.left() == pytest.approx(0.5)


def test_elapsed_on_the_test_clock():
    assert elapsed_on_test_clock(2.0, 1_000_000_000, 1_500_000_000) == pytest.approx(1.5)
    assert elapsed_on_test_clock(2.0, None, 1_500_000_000) == 2.0
    assert elapsed_on_test_clock(2.0, 1_500_000_000, None) == 2.0


def test_schedstat_lines():
    assert parse_wait(b"162329797 393037781 46\n") == 393037781
    assert parse_wait(b"") is None
    assert parse_wait(b"12\n") is None


def test_a_missing_file_reads_as_unknown(tmp_path):
    assert ThreadWaits(str(tmp_path / "absent"))() is None
    assert process_waits(-1) is None


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc/self/fd")
def test_a_file_that_is_not_a_schedstat_line_is_read_as_unknown_and_closed(tmp_path):
    path = tmp_path / "schedstat"
    path.write_bytes(b"12\n")
    before = open_descriptors()
    assert ThreadWaits(str(path))() is None
    assert open_descriptors() == before  # the descriptor it opened is not left open


def test_the_reader_reads_a_line_as_parse_wait_does(tmp_path):
    path = tmp_path / "schedstat"
    path.write_bytes(b"1 2 3\n")
    reader = ThreadWaits(str(path))
    assert reader() == 2
    path.write_bytes(b"1 -2 3\n")  # int() takes it, a wait cannot be negative
    assert parse_wait(b"1 -2 3\n") is None and reader() is None
    path.write_bytes(b"1 2 3\n")
    assert reader() is None  # once not a schedstat line, the wall clock from then on


@pytest.mark.skipif(not os.path.exists("/proc/thread-self/schedstat"), reason="no schedstat")
def test_this_thread_and_process_waits_read_and_never_go_back():
    reader = ThreadWaits()
    first = reader()
    assert first is not None and reader() is not None and reader() >= first  # type: ignore[operator]
    assert process_waits(os.getpid()) is not None


def test_a_deadline_started_again_for_another_timeout_scales_its_cap():
    machine = Machine()
    due = deadline(machine, seconds=1.0)
    due.start(0.5)
    machine.wait(4.0)
    assert due.left() == pytest.approx(0.5) and not due.capped
    machine.wait(1.0)  # ten times the new timeout
    assert due.left() == pytest.approx(0.0) and due.capped
