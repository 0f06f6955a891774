"""The language server runs the CLI's pipeline: same verification, same test file."""

from __future__ import annotations

import shutil
import subprocess
import sys

from lsp_support import E2E

pytestmark = E2E

STATEFUL = '''\
"""A module that keeps state at module level."""

_log: list[int] = []


def record(x: int) -> int:
    if x > 3:
        _log.append(x)
    return len(_log)
'''

HASH_ORDER = '''\
"""A value that depends on the hash seed (set order of strings)."""


def letters() -> str:
    return ",".join({"alpha", "beta", "gamma", "delta"})
'''


async def test_inserted_tests_get_the_module_state_fixture(editor):
    path = editor.write("stateful.py", STATEFUL)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "record")
    assert answer["applied"] and answer["tests"] > 0, answer
    written = (editor.project / "tests" / "test_stateful_miogen.py").read_text()
    assert "def _miogen_fresh_module_state" in written
    assert "import stateful as _miogen_module" in written


async def test_tests_that_fail_under_other_hash_seeds_are_not_offered(editor):
    """The worker (hash seed 0) sees one order; the verification's runs (hash seeds 1 and 2)
    do not: the test is dropped, as the CLI drops it."""
    path = editor.write("words.py", HASH_ORDER)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "letters")
    assert answer["tests"] == 0 and not answer["applied"], answer
    assert editor.logs("left out tests: 1 failing"), editor.logs("letters")


async def test_the_cli_and_the_server_write_the_same_test_file(editor, tmp_path):
    # The same settings: the server's default has ``performance`` on (cheap tests on save).
    # An evaluation budget, and a test timeout no run of ``record`` comes near on a busy
    # machine: the two runs have nothing that depends on the clock.
    editor.configure(evaluations=300, seed=7, testTimeout=30.0)
    path = editor.write("stateful.py", STATEFUL)
    cli_project = tmp_path / "cli"
    shutil.copytree(editor.project, cli_project)
    editor.open(path)
    answer = await editor.command("miogen.generateTests", path, "record")
    assert answer["applied"], answer
    server_file = editor.project / "tests" / "test_stateful_miogen.py"

    cli_file = cli_project / "tests" / "test_stateful_miogen.py"
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", str(cli_project / "stateful.py") + "::record",
         "--evaluations", "300", "--seed", "7", "--performance", "--test-timeout", "30",
         "--output", str(cli_file)],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert cli_file.read_text() == server_file.read_text()
