"""Parses take turns across threads (CPython 3.11's syntax-tree depth counter is shared)."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

from miogen.common import syntax

SERVER = Path(__file__).resolve().parents[2] / "server" / "miogen"


def test_a_parse_waits_while_another_thread_parses():
    done = threading.Event()

    def parse_now() -> None:
        syntax.parse("x = 1\n")
        done.set()

    with syntax._TURN:  # another thread's parse, under way
        worker = threading.Thread(target=parse_now)
        worker.start()
        assert not done.wait(0.2)
    worker.join(60)
    assert done.is_set()


def test_parsing_in_the_same_thread_again_goes_on():
    with syntax._TURN:  # a finalizer that parses during a parse of the same thread
        assert isinstance(syntax.parse("y = 2\n").body[0], ast.Assign)
        assert isinstance(syntax.parse_expression("[1]").body, ast.List)


def test_the_server_parses_only_through_it():
    """A direct ``ast.parse`` in the server's code could race another thread's parse."""
    direct = []
    for path in sorted(SERVER.rglob("*.py")):
        if path.name == "syntax.py" and path.parent.name == "common":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "parse"
                and isinstance(node.value, ast.Name)
                and node.value.id == "ast"
            ):
                direct.append(f"{path.relative_to(SERVER)}:{node.lineno}")
    assert direct == []
