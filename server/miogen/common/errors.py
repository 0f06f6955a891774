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

    def __init__(self, name: str, available: list[str], private: list[str] | None = None) -> None:
        listing = ", ".join(available) if available else "(none)"
        hidden = (
            f"; private units (name them to test them): {', '.join(private)}" if private else ""
        )
        super().__init__(f"no unit named {name!r}; available units: {listing}{hidden}")
        self.name = name
        self.available = available
        self.private = private or []


class NoPublicUnitError(MiogenError):
    """The module has no public class or function with code, so there is nothing to test by
    default; private ones are listed, since naming one (``file.py::_name``) tests it."""

    def __init__(self, path: str, private: list[str]) -> None:
        if private:
            names = ", ".join(f"{path}::{name}" for name in private)
            message = f"{path} has no public class or function to test; name a private one: {names}"
        else:
            message = f"{path} has no class or function with code to test"
        super().__init__(message)
        self.path = path
        self.private = private


class ModuleImportError(MiogenError):
    """The module under test raised while it was imported (in the worker)."""

    def __init__(self, module: str, exception: str, line: int | None = None) -> None:
        super().__init__(f"importing {module} raised {exception}")
        self.module = module
        self.exception = exception
        self.line = line
