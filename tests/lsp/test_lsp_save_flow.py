"""The save flow goes down through the modules once (issue 25, part 5): ``Saves._saved`` is its
steps in order, each a call into the part that does it; it never calls back into its own
module between them, and nothing it calls imports it."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server" / "miogen"
ONSAVE = SERVER / "lsp" / "onsave.py"


def _flow(tree: ast.Module) -> tuple[ast.ClassDef, ast.AsyncFunctionDef]:
    saves = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Saves")
    flow = next(n for n in saves.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "_saved")
    return saves, flow


def own_references(source: str) -> list[str]:
    """The flow's uses of its own module: a function or class of it, or a method of ``Saves``
    (each would bring the flow back into onsave.py after a step left it)."""
    tree = ast.parse(source)
    defined = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    saves, flow = _flow(tree)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    methods = {node.name for node in saves.body if isinstance(node, kinds)}
    found = []
    for node in ast.walk(flow):
        if isinstance(node, ast.Name) and node.id in defined:
            found.append(f"line {node.lineno}: {node.id}")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and node.attr in methods
        ):
            found.append(f"line {node.lineno}: self.{node.attr}")
    return found


def importers(module: str, allowed: set[Path]) -> list[str]:
    """The files of the package, other than ``allowed``, that import ``module``."""
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        if path in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if module in names:
                found.append(str(path.relative_to(SERVER)))
    return found


def test_the_save_flow_never_comes_back_into_its_own_module():
    assert own_references(ONSAVE.read_text("utf-8")) == []


def test_nothing_below_the_save_flow_imports_it():
    assert importers("miogen.lsp.onsave", {SERVER / "lsp" / "session.py"}) == []


def test_the_check_finds_a_step_back_into_the_module():
    source = """
def plan(snapshot):
    return []


class Saves:
    async def _saved(self, doc):
        place = self.locator.place(doc.path)
        self._announce(doc)
        jobs = plan(doc.snapshot)
        self.scheduler.replace(jobs)
        self.emit(jobs)

    def _announce(self, doc):
        pass
"""
    assert own_references(source) == ["line 9: self._announce", "line 10: plan"]
