"""The world tests run in inside the worker, made like the one pytest gives them.

What a test sees besides its arguments must be what it will see under pytest, or a test that
passes here fails there (and the reverse): stdin that raises as pytest's output capture makes it
raise, the project root as working directory, the user's environment with pytest's variables,
pytest's argv, and pytest's warning filters with the project's ``filterwarnings``. A test that
reads stdin is never emitted (under ``pytest -s`` it would block); ``varied()`` is a second
world for the second observation run, so that a test whose outcome depends on argv or on
pytest's variables disagrees with itself and is not kept either.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import io
import os
import re
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from miogen.worker import entropy, sandbox

# pytest 9's message, from _pytest.capture.DontReadFromInput (copied: importing pytest's capture
# module costs the worker about a second).
STDIN_MESSAGE = "pytest: reading from stdin while output is captured!  Consider using `-s`."
STDIN_NOTE = "read from stdin (pytest captures it: the test would block under pytest -s)"
PYTEST_ARGV = ("pytest",)
# ``pytest`` and ``python -m pytest`` give other ``sys.argv[0]`` (argparse's default ``prog``):
# the varied world changes the program name too.
VARIED_ARGV = ("__main__.py", "-q", "--miogen-varied")
CURRENT_TEST = "PYTEST_CURRENT_TEST"


class CapturedStdin(TextIO):
    """``sys.stdin`` as pytest's capture leaves it: reading raises OSError (and is noted)."""

    @property
    def encoding(self) -> str:
        return "utf-8"

    def read(self, size: int = -1) -> str:
        sandbox.note(STDIN_NOTE)
        raise OSError(STDIN_MESSAGE)

    readline = read

    def readlines(self, hint: int | None = -1) -> list[str]:
        return [self.read()]

    def __next__(self) -> str:
        return self.read()

    def __iter__(self) -> Iterator[str]:
        return self

    def fileno(self) -> int:
        raise io.UnsupportedOperation("redirected stdin is pseudofile, has no fileno()")

    def flush(self) -> None:
        raise io.UnsupportedOperation("redirected stdin is pseudofile, has no flush()")

    def isatty(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def readable(self) -> bool:
        return False

    def seek(self, offset: int, whence: int = 0) -> int:
        raise io.UnsupportedOperation("redirected stdin is pseudofile, has no seek(int)")

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        raise io.UnsupportedOperation("redirected stdin is pseudofile, has no tell()")

    def truncate(self, size: int | None = None) -> int:
        raise io.UnsupportedOperation("cannot truncate stdin")

    def write(self, data: str) -> int:
        raise io.UnsupportedOperation("cannot write to stdin")

    def writelines(self, lines: Iterable[str]) -> None:
        raise io.UnsupportedOperation("Cannot write to stdin")

    def writable(self) -> bool:
        return False

    def __enter__(self) -> CapturedStdin:
        return self

    def __exit__(self, *exception: object) -> None:
        pass

    @property
    def buffer(self) -> BinaryIO:
        return self  # type: ignore[return-value]  # as pytest's: str or bytes does not matter


_filters: list[Any] = []  # the warning filters every test starts with


def enter_pytest_world(filters: Sequence[str], module_file: str = "test_module.py") -> None:
    """stdin, argv, environment and warning filters as pytest sets them for a test."""
    entropy.install()  # before the user's modules make their generators
    sys.stdin = CapturedStdin()
    sys.argv = list(PYTEST_ARGV)
    os.environ["PYTEST_VERSION"] = _pytest_version()
    os.environ[CURRENT_TEST] = f"{module_file}::test (call)"
    apply_warning_filters(filters)


def apply_warning_filters(filters: Sequence[str]) -> None:
    """pytest's per-test filters: deprecations always shown, then the project's, last wins."""
    warnings.filterwarnings("always", category=DeprecationWarning)
    warnings.filterwarnings("always", category=PendingDeprecationWarning)
    for text in filters:
        try:
            warnings.filterwarnings(*parse_warning_filter(text))
        except (ValueError, ImportError, AttributeError, TypeError):
            continue  # pytest refuses the run with such a filter; the verification will tell
    warnings.showwarning = _recorded  # pytest records warnings; none reaches the output here
    _filters[:] = list(warnings.filters)


def settle() -> None:
    """After a test: the warning filters every test starts with (a test may have changed them)."""
    if warnings.filters != _filters:
        current: list[Any] = warnings.filters  # type: ignore[assignment]  # a list at run time
        current[:] = _filters
        warnings._filters_mutated()  # type: ignore[attr-defined]


@contextmanager
def varied() -> Iterator[None]:
    """Another argv, another current-test name and other addresses: what a test must not
    depend on. Objects held through the run take the memory blocks the first run's objects
    were freed to, so that ``id()`` and default reprs differ between the runs."""
    padding = _padding()
    argv, current = sys.argv, os.environ.get(CURRENT_TEST)
    sys.argv = list(VARIED_ARGV)
    os.environ[CURRENT_TEST] = "tests/test_other.py::test_other (call)"
    try:
        yield
    finally:
        sys.argv = argv
        if current is None:
            os.environ.pop(CURRENT_TEST, None)
        else:
            os.environ[CURRENT_TEST] = current
        del padding


def _padding() -> list[object]:
    """A few free blocks of each small size class, and a few larger ones, taken."""
    blocks: list[object] = [object() for _ in range(16)]
    blocks += [bytearray(size) for size in range(0, 1024, 8) for _ in range(2)]
    blocks += (
        [[] for _ in range(16)] + [{} for _ in range(16)] + [bytearray(4096) for _ in range(4)]
    )
    return blocks


def parse_warning_filter(text: str) -> tuple[Any, str, type[Warning], str, int]:
    """``action:message:category:module:lineno`` as pytest reads ``filterwarnings`` (no escaping).

    >>> parse_warning_filter("error::DeprecationWarning")[:3]
    ('error', '', <class 'DeprecationWarning'>)
    """
    parts = text.split(":")
    if len(parts) > 5:
        raise ValueError(f"too many fields in warning filter {text!r}")
    parts += [""] * (5 - len(parts))
    action, message, category, module, lineno = (part.strip() for part in parts)
    resolved = warnings._getaction(action)  # type: ignore[attr-defined]
    return resolved, message, _category(category), module, int(lineno) if lineno else 0


def _category(name: str) -> type[Warning]:
    if not name:
        return Warning
    if "." in name:
        module, _, attribute = name.rpartition(".")
        found = getattr(importlib.import_module(module), attribute)
    else:
        found = getattr(builtins, name)
    if not (isinstance(found, type) and issubclass(found, Warning)):
        raise TypeError(f"{name} is not a Warning subclass")
    return found


def _pytest_version() -> str:
    """pytest's version, read from its ``_version.py`` (importlib.metadata costs 0.1 s)."""
    spec = importlib.util.find_spec("_pytest")
    folder = spec.submodule_search_locations if spec is not None else None
    for path in folder or []:
        try:
            text = Path(path, "_version.py").read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.search(r"""__version__ = version = ['"]([^'"]+)""", text)
        if found:
            return found.group(1)
    return "0"


def _recorded(*args: object, **kwargs: object) -> None:
    """Warnings are recorded by pytest, shown only in its summary: nothing to do here."""
