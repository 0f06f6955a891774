"""Nothing lost: a writer killed at any point leaves the previous state; untrusted files are set aside."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from miogen.common.atomic import ReadOnlyFile, read_or_set_aside, set_aside, write_atomically

# The writer dies (SIGKILL, as from the OOM killer or a closed laptop lid) at the ``kill_at``-th
# call of one of the functions a write goes through: inside a chunked write, before or after the
# fsync, just before or after the rename.
WRITER = """
import os, signal, sys
from miogen.common.atomic import write_atomically

path, kill_at = sys.argv[1:]
payloads = sys.stdin.read().split()
calls = 0

def dying(function):
    def call(*args, **kwargs):
        global calls
        calls += 1
        if calls == int(kill_at):
            os.kill(os.getpid(), signal.SIGKILL)
        return function(*args, **kwargs)
    return call

for name in ("open", "write", "fchmod", "fsync", "close", "replace"):
    setattr(os, name, dying(getattr(os, name)))
for index, payload in enumerate(payloads):
    write_atomically(path, bytes.fromhex(payload.strip("-")))
    sys.stdout.write(f"{index}\\n")
    sys.stdout.flush()
"""

# (head, n): the payload head + n bytes, so that large payloads take several chunked writes.
payloads = st.lists(
    st.tuples(st.binary(max_size=32), st.integers(0, 200_000)), min_size=1, max_size=3
)


def payload(head: bytes, n: int) -> bytes:
    return head + b"x" * n


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(initial=st.binary(max_size=64), states=payloads, kill_at=st.integers(1, 24))
@example(initial=b"old", states=[(b"new", 0)], kill_at=2)  # what a plain open(path, "w") loses
def test_a_killed_writer_leaves_the_previous_state_or_the_next(tmp_path, initial, states, kill_at):
    path = tmp_path / "history.json"
    path.write_bytes(initial)
    states = [payload(*state) for state in states]
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(WRITER), str(path), str(kill_at)],
        input=" ".join(state.hex() or "-" for state in states),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    completed = [int(line) for line in done.stdout.split()]
    history = [initial, *states]
    last = len(completed)  # history[last] was written; history[last + 1] may have been too
    assert path.read_bytes() in history[last : last + 2]
    if done.returncode == 0:
        assert path.read_bytes() == states[-1]
    else:
        assert done.returncode == -9, done.stderr


def test_an_error_during_the_write_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "cache.json"
    write_atomically(path, "old")
    path.chmod(0o600)

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.fsync", full_disk)
    try:
        write_atomically(path, "new")
    except OSError:
        pass
    monkeypatch.undo()
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["cache.json"], "no temporary file left"
    write_atomically(path, "new")
    assert path.read_text() == "new" and path.stat().st_mode & 0o777 == 0o600


def test_a_corrupted_file_is_set_aside_with_a_warning_never_deleted(tmp_path, caplog):
    path = tmp_path / "history.json"
    path.write_bytes(b"\x00garbage{")
    with caplog.at_level(logging.WARNING):
        assert read_or_set_aside(path, json.loads) is None
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("history.json.corrupt-")]
    assert aside.read_bytes() == b"\x00garbage{", "kept byte for byte"
    assert not path.exists()
    assert "set aside as history.json.corrupt-" in caplog.text

    path.write_text("{also bad")
    second = set_aside(path, "is foreign")
    assert second != aside and aside.exists() and second.read_text() == "{also bad"


def test_a_good_file_is_read_and_a_missing_one_is_none(tmp_path: Path):
    path = tmp_path / "h.json"
    assert read_or_set_aside(path, json.loads) is None
    write_atomically(path, json.dumps({"runs": 2}))
    assert read_or_set_aside(path, json.loads) == {"runs": 2}


def test_a_read_only_file_is_not_replaced_by_the_rename(tmp_path):
    """The rename needs only the folder's permission: it would replace a file that an append
    could not write. The file is refused instead, as the append would be (also for root)."""
    path = tmp_path / "test_m.py"
    path.write_text("# mine\n")
    path.chmod(0o444)
    with pytest.raises(ReadOnlyFile, match="read-only") as refused:
        write_atomically(path, "# replaced\n")
    assert isinstance(refused.value, PermissionError)  # callers that catch OSError go on
    assert path.read_text() == "# mine\n" and sorted(tmp_path.iterdir()) == [path]


def test_replace_if_unchanged_writes_only_over_the_bytes_expected(tmp_path: Path) -> None:
    """The compare-and-replace reads the file itself, just before the rename: a writer hands
    the bytes it read, not a function to call back into it."""
    from miogen.common.atomic import replace_if_unchanged

    path = tmp_path / "test_x.py"
    assert not replace_if_unchanged(path, b"new\n", expected=b"old\n")  # absent, not "old"
    assert not path.exists() and list(tmp_path.iterdir()) == []
    assert replace_if_unchanged(path, b"new\n", expected=None)
    assert not replace_if_unchanged(path, b"newer\n", expected=None)  # it exists now
    assert replace_if_unchanged(path, b"newer\n", expected=b"new\n")
    assert path.read_bytes() == b"newer\n" and [p.name for p in tmp_path.iterdir()] == [path.name]
