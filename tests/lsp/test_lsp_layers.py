"""Inside lsp/, imports point one way: server -> features (handlers) -> session -> its parts.

Every import counts, also those inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

LSP = Path(__file__).resolve().parents[2] / "server" / "miogen" / "lsp"


def module_imports(folder: Path = LSP) -> dict[str, set[str]]:
    """``features.lenses`` -> the lsp modules it imports (``session``, ``convert``...)."""
    found: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        name = ".".join(path.relative_to(folder).with_suffix("").parts)
        if name.endswith("__init__"):
            continue
        used: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for imported in names:
                if imported.startswith("miogen.lsp."):
                    used.add(imported.removeprefix("miogen.lsp."))
        found[name] = {u for u in used if u in _modules(folder)} - {name}
    return found


def _modules(folder: Path) -> set[str]:
    return {
        ".".join(p.relative_to(folder).with_suffix("").parts)
        for p in folder.rglob("*.py")
        if p.name != "__init__.py"
    }


def cycles(graph: dict[str, set[str]]) -> list[str]:
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as error:
        return list(error.args[1])
    return []


def test_lsp_imports_have_no_cycles():
    assert cycles(module_imports()) == []


def test_handlers_are_the_only_ones_to_know_the_session_and_nothing_knows_the_server():
    graph = module_imports()
    for module, used in graph.items():
        if module != "server":
            assert "server" not in used, f"{module} imports the server"
        if not module.startswith("features.") and module != "server":
            assert not any(u.startswith("features.") for u in used), f"{module} imports a handler"
            if module != "session":
                assert "session" not in used, f"{module} imports the session"


def test_the_check_finds_a_cycle():
    graph = module_imports()
    graph["jobs"] = graph["jobs"] | {"reporting"}
    assert cycles(graph)
