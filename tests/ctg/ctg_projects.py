"""Small projects for the CTG tests, and compact ways to write stored tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from miogen.testcase.model import Statement, to_json

# Public attributes never change after construction (the state lives in _private ones), and one
# branch of audit() is infeasible, so Account cannot reach 100% and stays in the rotation.
BANK = """
class Account:
    def __init__(self, owner: str, limit: int = 100):
        self.owner = owner
        self._limit = limit
        self._balance = 0

    def deposit(self, amount: int) -> int:
        if amount <= 0:
            raise ValueError("amount must be positive")
        self._balance += amount
        return self._balance

    def withdraw(self, amount: int) -> int:
        if amount > self._balance + self._limit:
            raise ValueError("over the limit")
        self._balance -= amount
        return self._balance

    def audit(self) -> str:
        if self._balance < 0 and self._balance > 0:
            return "impossible"
        return "ok"


def classify(x: int, y: int) -> str:
    if x > y:
        return "greater"
    if x == y:
        return "equal"
    return "less"
"""


def make_project(root: Path, files: dict[str, str]) -> Path:
    """A project folder (with pyproject.toml) holding the given dedented files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'subject'\n", encoding="utf-8")
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return root


def value(v) -> Statement:
    return Statement("value", value=v)


def construct(name: str, *args: tuple[str, int]) -> Statement:
    return Statement("construct", name, tuple(args))


def method(name: str, receiver: int, *args: tuple[str, int]) -> Statement:
    return Statement("method", name, tuple(args), receiver=receiver)


def call(name: str, *args: tuple[str, int]) -> Statement:
    return Statement("call", name, tuple(args))


def stored(*statements: Statement) -> list:
    return to_json(tuple(statements))
