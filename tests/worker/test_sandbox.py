"""The worker's sandbox: what the audit guard allows and refuses, and the limits a worker runs under.

The guard's verdicts are checked in this process without installing it (an audit hook can never be
removed); everything that needs the hook installed runs in a child process.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from miogen.worker.sandbox import FILE_SIZE_REASON, Guard, Noted, _is_open, limit_effect

OUT = "/var/miogen-outside"  # never touched: the guard only judges paths


@pytest.fixture
def guard(tmp_path: Path) -> Guard:
    """The worker's: free under scratch/tmp, noted elsewhere in scratch, refused outside."""
    scratch = tmp_path / "scratch"
    for name in ("work", "home", "tmp"):
        (scratch / name).mkdir(parents=True)
    guard = Guard(free=[str(scratch / "tmp"), os.devnull], noted=str(scratch))
    guard.scratch = str(scratch.resolve())
    guard.tmp = str(scratch.resolve() / "tmp")
    return guard


def allowed(guard: Guard, event: str, *args) -> bool:
    """Allowed without a note."""
    return guard.verdict(event, args) == ""


def noted(guard: Guard, event: str, *args) -> bool:
    """Allowed, but the test is not emitted."""
    return isinstance(guard.verdict(event, args), Noted)


WRITE, READ = os.O_WRONLY | os.O_CREAT | os.O_TRUNC, os.O_RDONLY


def test_tmp_is_free_the_rest_of_scratch_noted_and_outside_only_readable(guard, monkeypatch):
    monkeypatch.chdir(os.path.join(guard.scratch, "work"))
    assert allowed(guard, "open", os.path.join(guard.tmp, "data.txt"), "w", WRITE)
    assert allowed(guard, "open", os.devnull, "w", WRITE)
    # As emitted tests these would write into the user's project or HOME: allowed but noted.
    assert noted(guard, "open", "relative.txt", "w", WRITE)
    assert noted(guard, "open", os.path.join(guard.scratch, "home", ".config"), "w", WRITE)
    assert noted(guard, "os.remove", "relative.txt", -1)
    assert allowed(guard, "open", f"{OUT}/f", "r", READ)
    assert not allowed(guard, "open", f"{OUT}/f", "w", WRITE)
    assert not allowed(guard, "open", f"{OUT}/f", None, os.O_RDWR)
    assert not allowed(guard, "open", f"{OUT}/f", "a", os.O_WRONLY | os.O_APPEND)
    assert not allowed(guard, "open", "../escape.txt", "w", WRITE)
    assert not allowed(guard, "open", os.path.expanduser("~root/x"), "w", WRITE)


def test_a_link_inside_scratch_does_not_lead_outside(guard, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, os.path.join(guard.scratch, "door"))
    assert not allowed(guard, "open", os.path.join(guard.scratch, "door", "f"), "w", WRITE)
    assert not allowed(guard, "os.remove", os.path.join(guard.scratch, "door", "f"), -1)


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("os.remove", (f"{OUT}/f", -1)),
        ("os.rmdir", (f"{OUT}/d", -1)),
        ("os.mkdir", (f"{OUT}/d", 0o777, -1)),
        ("os.rename", (f"{OUT}/a", "{scratch}/b", -1, -1)),  # moving out of the user's folder
        ("os.rename", ("{scratch}/a", f"{OUT}/b", -1, -1)),
        ("os.link", (f"{OUT}/a", "{scratch}/b", -1, -1)),  # a hard link would write through
        ("os.symlink", ("{scratch}/a", f"{OUT}/b", -1)),
        ("os.truncate", (f"{OUT}/f", 0)),
        ("os.chmod", (f"{OUT}/f", 0o777, -1)),
        ("os.utime", (f"{OUT}/f", None, None, -1)),
        ("shutil.rmtree", (f"{OUT}/d", None)),
        ("shutil.copyfile", ("{scratch}/a", f"{OUT}/b")),
        ("sqlite3.connect", (f"{OUT}/db.sqlite",)),
        ("subprocess.Popen", ("ls", ["ls"], None, None)),
        ("os.system", ("ls",)),
        ("os.exec", ("/bin/ls", ["ls"], None)),
        ("os.posix_spawn", ("/bin/ls", ["ls"], {})),
        ("os.spawn", (0, "/bin/ls", ["ls"], None)),
        ("os.fork", ()),
        ("os.forkpty", ()),
        ("os.kill", (1, 9)),
        ("os.killpg", (1, 9)),
        ("resource.setrlimit", (9, (-1, -1))),
    ],
)
def test_harm_outside_scratch_is_refused(guard, event, args):
    args = tuple(a.format(scratch=guard.scratch) if isinstance(a, str) else a for a in args)
    assert not allowed(guard, event, *args)


def test_the_same_actions_in_the_temporary_folder_are_allowed(guard):
    s = guard.tmp
    assert allowed(guard, "os.remove", f"{s}/f", -1)
    assert allowed(guard, "os.rename", f"{s}/a", f"{s}/b", -1, -1)
    assert allowed(guard, "shutil.rmtree", f"{s}/d", None)
    assert allowed(guard, "sqlite3.connect", ":memory:")
    assert allowed(guard, "sqlite3.connect", f"{s}/db.sqlite")
    assert allowed(guard, "os.kill", os.getpid(), 15), "the worker may signal itself"
    assert allowed(guard, "os.kill", 12345, 0), "signal 0 only asks whether a process exists"


def test_dir_fd_paths_are_resolved_against_their_folder(guard, tmp_path):
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        assert not allowed(guard, "os.remove", "victim.txt", folder)
        inside = os.open(guard.tmp, os.O_RDONLY)
        assert allowed(guard, "os.remove", "victim.txt", inside)
        os.close(inside)
    finally:
        os.close(folder)


def test_network_is_refused_except_unix_sockets_in_scratch(guard):
    with socket.socket() as tcp, socket.socket(socket.AF_UNIX) as unix:
        assert not allowed(guard, "socket.connect", tcp, ("127.0.0.1", 80))
        assert not allowed(guard, "socket.bind", tcp, ("127.0.0.1", 0))
        assert not allowed(guard, "socket.sendto", tcp, ("8.8.8.8", 53))
        assert allowed(guard, "socket.connect", unix, os.path.join(guard.tmp, "s.sock"))
        assert not allowed(guard, "socket.connect", unix, "/var/run/docker.sock")
        assert not allowed(guard, "socket.connect", unix, "\0abstract")


def test_other_events_pass_untouched(guard):
    assert allowed(guard, "import", "json", None, [], [], [])
    assert allowed(guard, "exec", None)


SANDBOXED = """
import json, os, subprocess, sys, threading, time, resource
from types import SimpleNamespace
from miogen.worker import sandbox

spec = SimpleNamespace(scratch=sys.argv[1], cwd="", memory_limit_mb=512, attempt_seconds=lambda: 20.0)
sandbox.enter_sandbox(spec)
report = {"cwd": os.getcwd(), "home": os.environ["HOME"]}

def attempt(name, action):
    try:
        action()
        report[name] = "done"
    except sandbox.SandboxRefusal as refusal:
        report[name] = "refused: " + str(refusal)
    report[name + "_recorded"] = sandbox.after_test()

def swallow(action):
    try:
        action()
    except OSError:
        pass

attempt("write", lambda: open(sys.argv[2], "w"))
attempt("popen", lambda: subprocess.run(["true"]))
attempt("tmp_write", lambda: open(os.path.join(os.environ["TMPDIR"], "t.txt"), "w").close())
attempt("work_write", lambda: open("inside.txt", "w").close())
attempt("caught", lambda: swallow(lambda: os.remove(sys.argv[2])))

def past_the_file_size_limit():  # the code catches the EFBIG: the sandbox still noted it
    path = os.path.join(os.environ["TMPDIR"], "big.bin")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT)
    chunk = b"x" * (1 << 20)
    swallow(lambda: [os.write(descriptor, chunk) for _ in range(sandbox.FILE_SIZE_LIMIT // len(chunk) + 1)])
    os.close(descriptor)
    os.remove(path)
attempt("file_size", past_the_file_size_limit)
report["limits"] = {
    name: list(resource.getrlimit(getattr(resource, name)))
    for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_NPROC")
}

stopped = threading.Event()
def spin():
    try:
        while True:
            time.sleep(0.001)
    finally:
        stopped.set()
threading.Thread(target=spin).start()
report["thread"] = sandbox.after_test()
report["thread_stopped"] = stopped.wait(2)

def forever():
    while True:
        time.sleep(0.001)
verdicts = []
for _ in range(10):  # a new thread often reuses the ident of the one stopped just before
    threading.Thread(target=forever).start()
    verdicts.append(sandbox.after_test())
    time.sleep(0.02)
report["each_leftover"] = verdicts

def sleeper():
    try:
        time.sleep(0.3)
    except sandbox.ThreadStopped:  # code that swallows everything goes on, but refused
        pass
    try:
        open(os.path.join(os.environ["TMPDIR"], "late.txt"), "w")
        report["late_write"] = "done"
    except BaseException as error:
        report["late_write"] = type(error).__name__
threading.Thread(target=sleeper, daemon=True).start()
sandbox.after_test()
time.sleep(0.6)
report["after_stale_write"] = sandbox.after_test()

os.chdir("/")
sandbox.after_test()
report["cwd_after_chdir"] = os.getcwd()

os.write(1, b"x" * (sandbox.OUTPUT_LIMIT + 10))
sandbox.after_test()
report["output_offset"] = os.lseek(1, 0, os.SEEK_CUR)
with open(os.path.join(os.environ["TMPDIR"], "report.json"), "w") as handle:
    json.dump(report, handle)
os._exit(0)  # as the worker does: a thread left running cannot hold the process
"""


def test_a_sandboxed_process_is_refused_records_it_and_stops_leftover_threads(tmp_path):
    scratch, outside = tmp_path / "scratch", tmp_path / "outside.txt"
    scratch.mkdir()
    outside.write_text("keep")
    output = scratch / "output.log"
    with output.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(SANDBOXED), str(scratch), str(outside)],
            stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((scratch / "tmp" / "report.json").read_text())
    assert report["cwd"] == str(scratch / "work")
    assert report["home"] == os.environ["HOME"], "the user's HOME, as under pytest"
    assert report["write"].startswith("refused: miogen sandbox: refused to write")
    assert report["write_recorded"] == f"write {outside} outside the scratch folder"
    assert report["popen_recorded"] == "start a process (true)"
    assert report["tmp_write"] == "done" and report["tmp_write_recorded"] == ""
    assert report["work_write"] == "done", "allowed in the worker..."
    assert report["work_write_recorded"].startswith("write work/inside.txt outside the temporary")
    assert report["caught_recorded"].startswith("delete"), "recorded even when the code catches it"
    assert report["file_size"] == "done", "the write failed with EFBIG, which the code caught"
    assert report["file_size_recorded"] == FILE_SIZE_REASON, "the limit's effect is no behaviour"
    assert outside.read_text() == "keep"
    limits = report["limits"]
    assert limits["RLIMIT_AS"] == [512 * 1024 * 1024] * 2, "hard too: the code cannot lift it"
    assert limits["RLIMIT_CPU"] == [30, 35]
    assert limits["RLIMIT_CORE"] == [0, 0]
    assert limits["RLIMIT_NPROC"][0] != -1
    assert report["thread"] == "leave 1 thread(s) running"
    assert report["thread_stopped"], "the leftover thread was stopped"
    assert report["each_leftover"] == ["leave 1 thread(s) running"] * 10
    assert report["late_write"] == "SandboxRefusal", "a stale thread cannot write, even in scratch"
    assert report["after_stale_write"] == "", "nor is its refusal blamed on a later test"
    assert report["cwd_after_chdir"] == report["cwd"], "each test starts in the same folder"
    assert report["output_offset"] == 0 and output.stat().st_size == 0, "a flood is thrown away"


def test_a_descriptor_the_process_held_before_is_refused_one_the_test_made_is_not(guard, tmp_path):
    """``open(fd)`` closes ``fd`` when the file is closed: on pytest's capture file that failed
    every later test of the run (configparser's ``read(3)``). A descriptor the test made itself,
    as tempfile does, stays usable."""
    assert not allowed(guard, "open", 1, "r", READ)
    assert not allowed(guard, "open", 2, "w", WRITE)
    made = os.open(tmp_path / "made", WRITE)
    try:
        assert allowed(guard, "open", made, "w", WRITE)
    finally:
        os.close(made)


def test_a_descriptor_number_open_nowhere_here_is_refused(guard):
    """``RawConfigParser().read([6])``: fd 6 is closed in the worker, so the read fails quietly
    and ``== []`` was asserted; under the user's pytest fd 6 was a capture file, the read
    closed it and every later test of the file failed. A number the test did not open is
    refused, so such a run is never emitted."""
    free = next(fd for fd in range(3, 1000) if fd not in guard.held and not _is_open(fd))
    assert not allowed(guard, "open", free, "r", READ)
    assert "another test run" in guard.verdict("open", (free, "r", READ))


def test_verification_refuses_closing_pytests_descriptors(tmp_path):
    """End to end under ``-p miogen.plugins.guard``: the test that opens fd 1 fails with the
    sandbox's refusal; the test after it still runs and passes."""
    (tmp_path / "test_fd.py").write_text(
        "def test_closes_stdout():\n    open(1, 'w').close()\n\n\n"
        "def test_after():\n    print('still here')\n",
        encoding="utf-8",
    )
    free = tmp_path / "free"
    free.mkdir()
    env = {**os.environ, "MIOGEN_SANDBOX_FREE": str(free)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
         "miogen.plugins.guard", "test_fd.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "1 failed, 1 passed" in run.stdout, run.stdout
    assert "file descriptor 1" in run.stdout


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (OSError(27, "File too large"), FILE_SIZE_REASON),
        (MemoryError(), "exhaust memory"),
        (RuntimeError("can't start new thread"), "start more threads than the sandbox allows"),
        (OSError(2, "No such file or directory"), ""),
        (ValueError("File too large"), ""),
    ],
)
def test_what_the_limits_cause_is_told_apart_from_the_codes_own_errors(error, reason):
    assert limit_effect(error) == reason
