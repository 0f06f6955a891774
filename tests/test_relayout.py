"""scripts/relayout.py rewrites old names to new ones, and new ones never again."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "relayout.py"


@pytest.fixture(scope="module")
def relayout():
    spec = importlib.util.spec_from_file_location("relayout", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.FORMS[:] = module.path_forms(module._old_paths())
    return module


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("miogen.execution.spare", "miogen.host.spare"),
        ("miogen.execution.spare.Spares.close", "miogen.host.spare.Spares.close"),
        ("miogen.worker", "miogen.worker.main"),  # a module that became a package's main
        ("miogen.worker.run_job", "miogen.worker.main.run_job"),
        ("miogen.worker.engine", "miogen.worker.engine"),  # new already
        ("miogen.search.mio", "miogen.worker.search.mio"),
        ("miogen.worker.search.mio", "miogen.worker.search.mio"),
        ("miogen.lsp.jobs", "miogen.lsp.jobs"),
    ],
)
def test_dotted_names_move_once(relayout, old, new):
    assert relayout.resolve(old) == new
    assert relayout.resolve(new) == new


def test_every_new_name_stays_as_it_is(relayout):
    for new in relayout.MODULES.values():
        assert relayout.resolve(new) == new
        assert relayout.resolve(f"{new}.something") == f"{new}.something"


OLD_TEXT = """\
from miogen import worker
from miogen.execution import executor, supervisor  # both
from miogen.records import JobSpec as Spec

    from miogen import engine  # after the sandbox

COMMAND = ["-p", "miogen.verify.guard", "-m", "miogen.worker"]
# see ``execution.spare`` and server/miogen/execution/spare.py, or execution/spare.py
# tests/execution/test_spare.py::test_x and search/mio.py; `from miogen.config import KEYS`
"""
NEW_TEXT = """\
from miogen.worker import main as worker
from miogen.worker import executor
from miogen.host import supervisor  # both
from miogen.common.records import JobSpec as Spec

    from miogen.worker import engine  # after the sandbox

COMMAND = ["-p", "miogen.plugins.guard", "-m", "miogen.worker.main"]
# see ``host.spare`` and server/miogen/host/spare.py, or host/spare.py
# tests/host/test_spare.py::test_x and worker/search/mio.py; `from miogen.host.config import KEYS`
"""


def test_imports_strings_paths_and_prose_are_rewritten_once(relayout):
    warnings: list[str] = []
    assert relayout.rewrite_text(OLD_TEXT, "x.py", warnings) == NEW_TEXT
    assert relayout.rewrite_text(NEW_TEXT, "x.py", warnings) == NEW_TEXT
    assert warnings == []


def test_the_tests_own_imports_follow_their_files(relayout):
    text = "from execution.helpers import spec_for\nfrom search.search_toys import Counters\n"
    assert relayout.rewrite_text(text, "tests/host/test_a.py", []) == (
        "from worker.helpers import spec_for\nfrom worker.search.search_toys import Counters\n"
    )
