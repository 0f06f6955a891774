"""Attributes set through a class's own ``__setattr__``; a method reached through an alias."""


class Label(str):
    """A str that remembers whether it is bold."""

    bold: bool

    def __new__(cls, text: str = "", *, bold: bool = False) -> "Label":
        label = str.__new__(cls, text)
        label.bold = bold
        return label


class Palette:
    """Labels set as attributes are rendered (upper case), or emptied while muted."""

    def __init__(self) -> None:
        self.muted = False

    def __setattr__(self, name: str, value: Label) -> None:
        if isinstance(value, Label):
            if self.muted:
                value = Label("", bold=value.bold)
            else:
                value = Label(value.upper(), bold=value.bold)
        super().__setattr__(name, value)

    def mute(self) -> None:
        self.muted = True

    def labels(self) -> dict[str, str]:
        found = {}
        for name, value in vars(self).items():
            if isinstance(value, Label):
                found[name] = str(value)
        return found


class Settings(dict):
    """Keys looked up inside an optional section: ``lookup(key, section=...)``."""

    def __getitem__(self, key: str, section: str = "") -> object:
        if section:
            key = section + "." + key
        return dict.get(self, key)

    lookup = __getitem__
