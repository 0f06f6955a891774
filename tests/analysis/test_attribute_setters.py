"""An attribute set through a class's ``__setattr__`` is given a value of the type type
checkers know it by: its first assignment's (analysis.enrich)."""

from __future__ import annotations

from miogen.analysis.module import analyze_source

SUBJECT = """
class Label(str):
    pass


class Palette:
    def __init__(self) -> None:
        self.muted = False
        self.call = lambda x: x
        self.count: int = 0

    def __setattr__(self, name: str, value: Label) -> None:
        if isinstance(value, Label) and not self.muted:
            value = Label(value.upper())
        super().__setattr__(name, value)

    def mute(self) -> None:
        self.muted = True
"""


def test_own_attributes_take_their_declared_type_and_a_fresh_one_the_hook_s():
    palette = analyze_source(SUBJECT).classes["Palette"]
    setters = {s.name: str(s.params[0].type) for s in palette.special if s.kind == "setter"}
    assert setters == {"extra": "Label", "muted": "bool", "count": "int"}
