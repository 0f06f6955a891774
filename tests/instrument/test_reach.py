"""Only the code a job's tests can run is instrumented; every goal of the unit still is."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tempfile
import textwrap
import types

from miogen.analysis.module import analyze_file, analyze_source
from miogen.common.records import JobSpec, UnitJob
from miogen.instrument.counting import TALLY
from miogen.instrument.reach import Scope, reachable
from miogen.instrument.rewrite import PROBE
from miogen.worker import phases
from miogen.worker.objectives import Objectives, job_scope

MODULE = """
import os

LIMIT = 10


def _helper(x: int) -> str:
    if x > LIMIT:
        return "big"
    return _deeper(x)


def _deeper(x: int) -> str:
    return "odd" if x % 2 else "even"


def label(x: int) -> str:
    if x < 0:
        return "negative"
    return _helper(x) + shout(str(x))


def shout(text: str) -> str:
    if text:
        return text.upper()
    return "!"


normalise = shout  # an alias: whoever names it runs ``shout``


def unrelated(x: int) -> int:
    if x > 3:
        return x - 3
    return 0


class Box:
    def __init__(self, size: int) -> None:
        self.size = size

    def grow(self, by: int) -> int:
        if by > 0:
            self.size += by
        return self.size


class Packer:
    def pack(self, box: Box, extra: int) -> int:
        if extra:
            return box.grow(extra)
        return normalise("x") and box.size


class Stranger:
    def speak(self) -> str:
        if os.sep == "/":
            return "posix"
        return "other"
"""


def names_reached(source: str, unit: str) -> set[str]:
    model = analyze_source(textwrap.dedent(source), "<m>", "m")
    tree = ast.parse(model.source)
    indices = reachable(tree, job_scope(model, [model.unit(unit)]))
    return {getattr(tree.body[i], "name", "") for i in indices} - {""}


def test_a_function_reaches_its_helpers_and_what_they_call_by_name():
    assert names_reached(MODULE, "label") == {"label", "_helper", "_deeper", "shout"}


def test_a_class_reaches_the_classes_its_parameters_ask_for_and_aliases_it_names():
    assert names_reached(MODULE, "Packer") == {"Packer", "Box", "shout"}


def test_a_scope_of_lines_and_names_starts_from_both():
    tree = ast.parse(textwrap.dedent(MODULE))
    stranger = next(s for s in tree.body if getattr(s, "name", "") == "Stranger")
    scope = Scope(((stranger.lineno, stranger.end_lineno or 0),), frozenset({"unrelated"}))
    assert {getattr(tree.body[i], "name", "") for i in reachable(tree, scope)} == {
        "Stranger",
        "unrelated",
    }


def loaded(tmp_path, unit: str, criteria: str = "smart") -> types.ModuleType:
    path = tmp_path / "reachmod.py"
    path.write_text(textwrap.dedent(MODULE), encoding="utf-8")
    spec = JobSpec(
        path=str(path), module_name="reachmod", import_root=str(tmp_path),
        units=(UnitJob(unit),), scratch=tempfile.mkdtemp(), criteria=criteria, performance=True,
    )  # fmt: skip
    sys.modules.pop("reachmod", None)
    model = analyze_file(path, "reachmod")
    return phases.load(spec, Objectives.of(spec, model))


def instrumented(function: types.FunctionType) -> bool:
    return PROBE in function.__code__.co_names or TALLY in function.__code__.co_names


def test_the_code_a_unit_cannot_reach_runs_uninstrumented(tmp_path):
    module = loaded(tmp_path, "label")
    assert all(
        instrumented(f) for f in (module.label, module._helper, module._deeper, module.shout)
    )
    assert not instrumented(module.unrelated)
    assert not instrumented(module.Stranger.speak) and not instrumented(module.Box.grow)
    assert module.unrelated(5) == 2 and module.Stranger().speak() in ("posix", "other")


def test_branch_only_jobs_are_scoped_too(tmp_path):
    module = loaded(tmp_path, "Packer", criteria="branch")
    assert instrumented(module.Packer.pack) and instrumented(module.Box.grow)
    assert not instrumented(module.label) and not instrumented(module.unrelated)


def test_a_units_goals_in_a_private_helper_are_covered_and_measured_alike(tmp_path):
    """The search covers ``label``'s targets in ``_helper`` and ``_deeper`` (its goals), and
    what it claims is what coverage.py measures on the emitted tests."""
    path = tmp_path / "reachcli.py"
    path.write_text(textwrap.dedent(MODULE), encoding="utf-8")
    output = tmp_path / "tests" / "test_reachcli.py"
    done = subprocess.run(
        [sys.executable, "-m", "miogen", "generate", f"{path}::label", "--evaluations", "1500",
         "--seed", "1", "--output", str(output), "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (unit,) = json.loads(done.stdout)["units"]
    model = analyze_file(path, "reachcli")
    helpers = {model.unit("_helper").line, model.unit("_deeper").end_line}
    in_helpers = [t for t in model.unit("label").targets if min(helpers) <= t.line <= max(helpers)]
    assert len(in_helpers) == 3, "the helpers' branches are among label's goals"
    assert unit["targets_covered"] == unit["coverage"]["total"] == len(model.unit("label").targets)
    assert "mismatch" not in unit and unit["coverage"]["covered"] == unit["targets_covered"]
