"""Imports point down: each package imports only from its own layer or the layers below it.

The layers read as the pipeline does (ARCHITECTURE.md); every import counts, also those inside
functions and under ``TYPE_CHECKING``. The search and the analysis import nothing above them:
the search knows only its Problem protocol, the analysis only the source text.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "miogen"

LAYERS = [
    {"errors", "atomic", "confine", "records", "sharing", "project", "platform_support"},  # leaves
    {"analysis"},
    {"instrument", "testcase", "search"},
    {"execution", "minimize"},
    {"assertions"},
    {"criteria"},  # the coverage criteria's goals, over the trace and the mutants
    {"emit", "verify"},
    {"problem", "objectives", "phases", "engine", "worker"},  # the run inside a worker process
    {"run", "config"},  # the host's run of a job (worker, verification, file) and settings
    {"cli", "ctg", "lsp", "__main__"},  # front ends
]
ONLY = {  # packages held to a stricter rule than their layer's
    "search": {"search"},
    "analysis": {"analysis", "errors"},
    "records": {"records"},
    "sharing": {"sharing"},
    "project": {"project"},
}


def imports(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Top-level part of miogen (``lsp``, ``engine``...) -> the parts its modules import."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in package.rglob("*.py"):
        part = path.relative_to(package).parts[0].removesuffix(".py")
        if part == "__init__":
            continue  # the package's own (empty) docstring module
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                pieces = name.split(".")
                if pieces[0] == "miogen" and len(pieces) > 1 and pieces[1] != "__future__":
                    found[part].add(pieces[1])
        found.setdefault(part, set())
    return found


def violations(graph: dict[str, set[str]]) -> list[str]:
    layer_of = {part: index for index, layer in enumerate(LAYERS) for part in layer}
    found = []
    for part, used in sorted(graph.items()):
        if part not in layer_of:
            found.append(f"{part} is in no layer: add it to LAYERS")
            continue
        allowed = ONLY.get(part)
        for other in sorted(used - {part}):
            if other not in layer_of:
                continue  # a name imported from miogen's __init__, not a part
            if allowed is not None and other not in allowed:
                found.append(f"{part} imports {other}: it may import only {sorted(allowed)}")
            elif layer_of[other] > layer_of[part]:
                found.append(f"{part} imports {other}, a layer above it")
    return found


def test_imports_point_down():
    assert violations(imports()) == []


def test_the_check_finds_an_import_that_points_up():
    graph = imports()
    graph["search"].add("execution")
    graph["execution"].add("engine")
    graph["new_part"] = set()
    assert violations(graph) == [
        "execution imports engine, a layer above it",
        "new_part is in no layer: add it to LAYERS",
        "search imports execution: it may import only ['search']",
    ]
