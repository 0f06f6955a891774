"""The package's layout is its process layout, and imports point down (ARCHITECTURE.md).

Each folder of ``server/miogen`` holds the code of one kind of process: ``worker/`` the worker
process, ``host/`` the front end's process around it, ``plugins/`` the pytest processes that
verify tests; ``cli``, ``ctg`` and ``lsp`` are the front ends; the pipeline-stage libraries and
``common/`` are below them all. Two checks over every import (also those inside functions and
under ``TYPE_CHECKING``):

- layers: each part imports only from its own layer or the layers below it; the search and the
  analysis import nothing above them (the search knows only its Problem protocol, the analysis
  only the source text);
- processes: front ends do not import each other, the worker imports nothing of the host's, and
  nothing outside the worker imports the worker's code, but for the pytest plugins' guard.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "miogen"
ARCHITECTURE = ROOT / "ARCHITECTURE.md"

SPLIT = {"common", "worker"}  # packages whose modules are parts of their own (worker.engine)
LAYERS = [
    {
        "common.errors", "common.atomic", "common.confine", "common.records", "common.sharing",
        "common.project", "common.platform_support", "common.history", "common.preparation",
        "common.syntax", "common.waits", "common.environment",
    },  # leaves, shared by every process
    {"analysis"},
    {"instrument", "testcase", "worker.search"},
    {
        "minimize", "common.heartbeat", "worker.executor", "worker.sandbox", "worker.world",
        "worker.entropy", "worker.tracer", "worker.special",
    },  # running one test inside the worker
    {"assertions"},
    {"criteria"},  # the coverage criteria's goals, over the trace and the mutants
    {"emit"},
    {"host", "plugins"},  # starting and watching workers and pytest runs; inside those pytest runs
    {"worker.problem", "worker.objectives", "worker.phases", "worker.engine", "worker.main"},
    {"pipeline", "run"},  # the front ends' shared steps: job, verify, write
    {"ctg", "lsp"},  # front ends
    {"cli", "__main__"},  # the command line: `miogen generate`, and hands `serve`, `ctg` over
]  # fmt: skip
ONLY = {  # parts held to a stricter rule than their layer's
    "worker.search": {"worker.search"},
    "analysis": {"analysis", "common.errors", "common.syntax"},
    "common.errors": {"common.errors"},
    "common.records": {"common.records"},
    "common.sharing": {"common.sharing"},
    "common.project": {"common.project"},
    "common.preparation": {"common.preparation"},
    "common.syntax": {"common.syntax"},
    "common.waits": {"common.waits"},
    "common.environment": {"common.environment"},
    "plugins": {"plugins", "worker.sandbox"},  # inside the user's pytest: the worker's guard only
}
FRONT_ENDS = {"cli", "ctg", "lsp", "__main__"}
DISPATCH = {  # the modules a front end may import from another: the command line's subcommands
    "__main__": {"miogen.cli"},
    "cli": {"miogen.ctg.cli", "miogen.lsp.server"},
}
HOST = {
    "host",
    "pipeline",
    "run",
    "plugins",
}  # code that runs outside the worker, below the front ends
SHARED_WITH_PLUGINS = {"miogen.worker.sandbox"}  # the guard the verification's pytest runs under


def part_of(name: str) -> str:
    """``miogen.worker.engine.generate`` -> ``worker.engine``; ``miogen.lsp.jobs`` -> ``lsp``."""
    pieces = name.split(".")[1:]
    return ".".join(pieces[:2]) if pieces[0] in SPLIT and len(pieces) > 1 else pieces[0]


def imports(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Part of miogen (``lsp``, ``worker.engine``...) -> the miogen names its modules import."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in package.rglob("*.py"):
        pieces = path.relative_to(package).with_suffix("").parts
        if pieces[-1] == "__init__":
            pieces = pieces[:-1]
            if not pieces or (len(pieces) == 1 and pieces[0] in SPLIT):
                continue  # the (empty) package module of miogen, common/ or worker/
        part = part_of(".".join(("miogen", *pieces)))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            found[part].update(name for name in names if name.startswith("miogen."))
        found.setdefault(part, set())
    return found


def _in(name: str, modules: set[str] | None) -> bool:
    """``name`` is one of ``modules`` or something in one."""
    return any(name == module or name.startswith(f"{module}.") for module in modules or ())


def violations(graph: dict[str, set[str]]) -> list[str]:
    layer_of = {part: index for index, layer in enumerate(LAYERS) for part in layer}
    found = set()
    for part, names in sorted(graph.items()):
        if part not in layer_of:
            found.add(f"{part} is in no layer: add it to LAYERS")
            continue
        allowed = ONLY.get(part)
        for name in sorted(names):
            other = part_of(name)
            if other == part or other not in layer_of:
                continue  # its own part, or a name from a package's (empty) __init__
            if allowed is not None and other not in allowed:
                found.add(f"{part} imports {other}: it may import only {sorted(allowed)}")
            elif layer_of[other] > layer_of[part]:
                found.add(f"{part} imports {other}, a layer above it")
            if part in FRONT_ENDS and other in FRONT_ENDS and not _in(name, DISPATCH.get(part)):
                found.add(f"{part} imports {other}: front ends do not import each other")
            if part.startswith("worker.") and (other in HOST or other in FRONT_ENDS):
                found.add(f"{part} imports {other}: the worker runs none of the host's code")
            outside = part in HOST or part in FRONT_ENDS or part.startswith("common.")
            if outside and other.startswith("worker.") and not _in(name, SHARED_WITH_PLUGINS):
                found.add(f"{part} imports {other}: only the worker process runs the worker's code")
    return sorted(found)


def test_imports_point_down_and_stay_in_their_process():
    assert violations(imports()) == []


def test_the_check_finds_an_import_that_points_up():
    graph = imports()
    graph["worker.search"].add("miogen.worker.executor")
    graph["worker.executor"].add("miogen.worker.engine.generate")
    graph["new_part"] = set()
    assert violations(graph) == [
        "new_part is in no layer: add it to LAYERS",
        "worker.executor imports worker.engine, a layer above it",
        "worker.search imports worker.executor: it may import only ['worker.search']",
    ]


def test_the_check_finds_a_front_end_importing_another():
    graph = imports()
    graph["lsp"].add("miogen.ctg.runner")
    graph["ctg"].add("miogen.lsp.server.serve")  # cli may: it hands `miogen serve` over
    assert violations(graph) == [
        "ctg imports lsp: front ends do not import each other",
        "lsp imports ctg: front ends do not import each other",
    ]


def test_the_check_keeps_the_worker_code_in_the_worker_process():
    graph = imports()
    graph["worker.main"].add("miogen.host.spare")
    graph["lsp"].add("miogen.worker.phases")
    graph["host"].add("miogen.worker.executor")
    graph["plugins"].add("miogen.worker.world")
    assert violations(graph) == [
        "host imports worker.executor: only the worker process runs the worker's code",
        "lsp imports worker.phases: only the worker process runs the worker's code",
        "plugins imports worker.world: it may import only ['plugins', 'worker.sandbox']",
        "plugins imports worker.world: only the worker process runs the worker's code",
        "worker.main imports host: the worker runs none of the host's code",
    ]


def _parts_on_disk() -> set[str]:
    """The package's modules and subpackages; a folder left holding only ``__pycache__`` (a
    package moved away in an older checkout) is none."""
    return {
        entry.name.removesuffix(".py")
        for entry in PACKAGE.iterdir()
        if entry.suffix == ".py" or (entry.is_dir() and any(entry.glob("*.py")))
    }


def test_architecture_md_names_every_folder_and_module_of_the_package():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    for entry in sorted(_parts_on_disk() - {"__init__"}):
        assert re.search(rf"\b{re.escape(entry)}\b", text), f"ARCHITECTURE.md: say what {entry} is"


def test_the_tests_architecture_md_names_for_its_invariants_exist():
    cited = re.findall(
        r"`(tests/[\w/]+\.py)(?:::(\w+))?`", ARCHITECTURE.read_text(encoding="utf-8")
    )
    assert cited
    for path, name in cited:
        file = ROOT / path
        assert file.is_file(), f"ARCHITECTURE.md cites {path}, which does not exist"
        if name:
            defined = rf"^(?:(?:async )?def {name}\b|{name} = )"
            assert re.search(defined, file.read_text("utf-8"), re.M), (
                f"ARCHITECTURE.md cites {path}::{name}, which does not exist"
            )
