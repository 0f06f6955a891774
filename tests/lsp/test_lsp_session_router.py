"""The session is a router (issue 25, part 5): fewer than 15 methods, and its parts get what
they use when they are made, never the session itself nor one of its methods, so no part calls
back up into it."""

from __future__ import annotations

import ast
from pathlib import Path

LSP = Path(__file__).resolve().parents[2] / "server" / "miogen" / "lsp"
MAX_METHODS = 14


def _session(source: str) -> ast.ClassDef:
    tree = ast.parse(source)
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Session")


def _methods(session: ast.ClassDef) -> list[str]:
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    return [node.name for node in session.body if isinstance(node, kinds)]


def back_references(source: str) -> list[str]:
    """Where the session hands itself, or one of its own methods, to anything it calls or keeps:
    ``Part(self)``, ``Part(self.publish)``, ``part.hook = self._method``, a lambda calling one."""
    session = _session(source)
    own = set(_methods(session))

    def up(node: ast.AST) -> bool:
        if isinstance(node, ast.Name) and node.id == "self":
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return node.value.id == "self" and node.attr in own
        if isinstance(node, ast.Lambda):
            return any(isinstance(call, ast.Call) and up(call.func) for call in ast.walk(node.body))
        return False

    found = []
    for node in ast.walk(session):
        handed: list[ast.AST] = []
        if isinstance(node, ast.Call):
            handed = [*node.args, *(keyword.value for keyword in node.keywords)]
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            handed = [node.value]
        found += [f"line {node.lineno}: {ast.unparse(node)}" for arg in handed if up(arg)]
    return found


def test_the_session_has_fewer_than_15_methods():
    methods = _methods(_session((LSP / "session.py").read_text("utf-8")))
    assert len(methods) <= MAX_METHODS, methods


def test_no_part_is_handed_the_session_or_its_methods():
    assert back_references((LSP / "session.py").read_text("utf-8")) == []


def test_the_check_finds_a_back_reference():
    source = """
class Session:
    def __init__(self, ls):
        self.commands = Commands(store, self)
        self.watcher = Watcher(store, self.publish)
        self.store.refreshed = self._analysed
        self.scheduler.cancel_where(lambda job: self.publish(job.uri), "x")
        self.scheduler.cancel_where(lambda job: self.locator.place(job.uri), "fine")

    def publish(self, uri):
        pass

    def _analysed(self, uri):
        pass
"""
    assert sorted(line.split(":")[0] for line in back_references(source)) == [
        "line 4",
        "line 5",
        "line 6",
        "line 7",
    ]
