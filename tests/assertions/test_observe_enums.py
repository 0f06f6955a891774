"""A member of an enum made by the functional API (``Enum("Mode", {...})``: no ``class``
statement) is written ``Mode["GRID"]``: mypy does not see its members as attributes
("has no attribute"), as isort.wrap_modes' ``WrapModes.GRID``; a ``class`` statement's stay
``Color.RED``."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from emit.strict_checks import strict_mypy
from miogen.assertions.observe import enum_member

MODES = """
import enum

NAMES = {name: index for index, name in enumerate(["GRID", "VERTICAL"])}
Mode = enum.Enum("Mode", NAMES)


class Color(enum.Enum):
    RED = 1


def first() -> "Mode":
    return Mode(0)
"""


def test_a_functional_enum_s_member_is_looked_up_by_name(tmp_path: Path, monkeypatch):
    (tmp_path / "modes.py").write_text(MODES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "modes", raising=False)
    modes = importlib.import_module("modes")
    assert enum_member(modes.first()) == 'Mode["GRID"]'
    assert enum_member(modes.Color.RED) == "Color.RED"
    test_file = tmp_path / "test_modes.py"
    test_file.write_text(
        "from modes import Color, Mode, first\n\n\ndef test_first():\n"
        f"    assert first() == {enum_member(modes.first())}\n"
        f"    assert Color(1) == {enum_member(modes.Color.RED)}\n"
    )
    assert strict_mypy(test_file) == []
    # as written before: mypy does not know the member
    test_file.write_text(
        "from modes import Mode, first\n\n\ndef test_first():\n    assert first() == Mode.GRID\n"
    )
    assert any("has no attribute" in error for error in strict_mypy(test_file))
