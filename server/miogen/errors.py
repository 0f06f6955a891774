"""Errors that reach the user: each says what went wrong and where."""

from __future__ import annotations


class MiogenError(Exception):
    """Base class for errors reported to the user with exit code 2."""


class SourceSyntaxError(MiogenError):
    """The file under test does not parse."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: syntax error: {message}")
        self.path = path
        self.line = line


class UnknownUnitError(MiogenError):
    """The requested class or function is not a unit of the module."""

    def __init__(self, name: str, available: list[str]) -> None:
        listing = ", ".join(available) if available else "(none)"
        super().__init__(f"no unit named {name!r}; available units: {listing}")
        self.name = name
        self.available = available


class ModuleImportError(MiogenError):
    """The module under test raised while it was imported (in the worker)."""

    def __init__(self, module: str, exception: str, line: int | None = None) -> None:
        super().__init__(f"importing {module} raised {exception}")
        self.module = module
        self.exception = exception
        self.line = line
