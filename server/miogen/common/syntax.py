"""Parsing Python source in a process with threads: one parse at a time.

CPython 3.11 checks the depth of the syntax tree it builds with a counter kept in the
interpreter's state, which its threads share. When a thread switches in the middle of a parse
(a finalizer run by the collector calls Python code), another thread's parse moves that
counter, and one of the two fails with ``SystemError: AST constructor recursion depth mismatch``
(python/cpython#106905). ``miogen ctg`` verifies modules in threads, and the language server
analyses and verifies in threads: its verification failed that way once in CI. The parses
here take turns (a reentrant lock: a finalizer that parses in the same thread goes on).
"""

from __future__ import annotations

import ast
import threading

_TURN = threading.RLock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, one thread at a time."""
    with _TURN:
        return ast.parse(source, filename)


def parse_expression(source: str) -> ast.Expression:
    """``ast.parse(source, mode="eval")``, one thread at a time."""
    with _TURN:
        return ast.parse(source, mode="eval")
