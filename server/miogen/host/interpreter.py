"""The project's Python: workers and verification runs use it, with miogen reachable, not installed.

The project's tests need its dependencies, pytest plugins and conftest files: the interpreter that
has them is the one the editor chose (the language server runs in it), on the command line
``--python PATH``, else the active virtual environment (``$VIRTUAL_ENV``), else the project's
own (``.venv``, ``venv`` or ``env`` under its root: ``common.environment``, where its tools
are looked up too), else miogen's own.

Nothing is installed into it. A process of miogen's in another interpreter starts as
``PYTHON -c BOOTSTRAP MODULE ARGS...``: the bootstrap appends a folder of miogen's (``shim``:
links to the ``miogen`` and ``coverage`` packages, nothing else) to the END of ``sys.path``, so
that the project's own packages (its coverage.py too, where it has one) come first, then runs the
module as ``-m`` would. The folder is named in the process's environment only.

The VS Code extension's bundled server (vscode-extension/bundled/tool/serve.py) runs miogen from
a folder of the extension's (``$MIOGEN_BUNDLE``: miogen and its pure-Python dependencies) in an
interpreter that need not have any of them. miogen's own processes then start with the same
bootstrap, the bundle appended to their ``sys.path``: what the interpreter has comes first.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from miogen.common.environment import project_environment
from miogen.common.errors import MiogenError

PATH_VARIABLE = "MIOGEN_SYS_PATH"
BOOTSTRAP = (
    "import os, runpy, sys; "
    f"sys.path.extend(p for p in os.environ.get({PATH_VARIABLE!r}, '').split(os.pathsep) if p); "
    "sys.argv.pop(0); runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)"
)
BUNDLE_VARIABLE = "MIOGEN_BUNDLE"  # set by the extension's launcher: where its bundle lies
MINIMUM_VERSION = (3, 11)  # miogen's requires-python
PROBE = (
    "import importlib.util as u, json, sys; print(json.dumps([list(sys.version_info[:2]), "
    "sys.prefix, u.find_spec('pytest') is not None, u.find_spec('coverage') is not None]))"
)
# What miogen's processes import besides the standard library: miogen, coverage.py, and cattrs
# with what it needs (the worker reads its JobSpec and writes its events through records.py).
LINKED = ("miogen", "coverage", "cattrs", "attrs", "attr", "typing_extensions")


class InterpreterError(MiogenError):
    """The project's interpreter cannot run miogen's worker or its verification."""


@dataclass(frozen=True)
class Interpreter:
    """A Python to run miogen's processes in; ``shim`` empty: miogen's own (``sys.executable``)."""

    executable: str = sys.executable
    shim: str = ""  # a folder appended to sys.path: links to miogen and coverage.py
    origin: str = "miogen's own"  # how it was chosen, for messages

    @property
    def own(self) -> bool:
        return not self.shim

    def command(self, module: str, *args: str) -> list[str]:
        """``python -m module args`` in this interpreter."""
        if self.own and not bundle():
            return [self.executable, "-m", module, *args]
        return [self.executable, "-c", BOOTSTRAP, module, *args]

    def environment(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` with the shim (or, for miogen's own interpreter, the extension's bundle)
        named for the bootstrap (nothing on PYTHONPATH)."""
        environment = dict(base)
        path = bundle() if self.own else self.shim
        if path:
            environment[PATH_VARIABLE] = path
        return environment


OWN = Interpreter()


def bundle() -> str:
    """The extension's bundle miogen runs from, or "" (miogen is installed where it runs)."""
    return os.environ.get(BUNDLE_VARIABLE, "")


def project_interpreter(
    project_root: Path, explicit: str | None = None, environ: Mapping[str, str] = os.environ
) -> Interpreter:
    """The interpreter for a project (see the module docstring), checked: a Python that miogen
    supports, with pytest. Raises ``InterpreterError`` saying what is missing and how to fix it."""
    executable, origin = _choose(project_root, explicit, environ)
    if executable is None:
        return OWN
    version, prefix, has_pytest, _ = _probe(executable, origin)
    if os.path.realpath(prefix) == os.path.realpath(sys.prefix):
        return Interpreter(sys.executable, "", origin)
    if tuple(version) < MINIMUM_VERSION:
        raise InterpreterError(
            f"{executable} ({origin}) is Python {version[0]}.{version[1]}; miogen runs the "
            f"project's code in it and needs {MINIMUM_VERSION[0]}.{MINIMUM_VERSION[1]} or newer: "
            "choose another with --python"
        )
    if not has_pytest:
        raise InterpreterError(
            f"{executable} ({origin}) has no pytest, which runs and verifies the tests: install "
            f"it there ({executable} -m pip install pytest) or choose another with --python"
        )
    return Interpreter(executable, str(shim_folder()), origin)


def _choose(
    project_root: Path, explicit: str | None, environ: Mapping[str, str]
) -> tuple[str | None, str]:
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise InterpreterError(f"--python {explicit}: no such interpreter")
        return str(path.absolute()), "--python"
    candidates = []
    if environ.get("VIRTUAL_ENV"):
        candidates.append((Path(environ["VIRTUAL_ENV"]) / "bin" / "python", "$VIRTUAL_ENV"))
    environment = project_environment(project_root)
    if environment is not None:
        candidates.append((environment / "bin" / "python", f"the project's {environment.name}"))
    for path, origin in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path.absolute()), origin
    return None, "miogen's own"


def _probe(executable: str, origin: str) -> tuple[list[int], str, bool, bool]:
    """Version, prefix, and whether pytest and coverage.py are there (no project code runs:
    ``-I`` isolates it from the working folder and the environment's variables)."""
    try:
        done = subprocess.run(
            [executable, "-I", "-c", PROBE], capture_output=True, text=True, timeout=60,
            stdin=subprocess.DEVNULL, cwd=tempfile.gettempdir(),
        )  # fmt: skip
        version, prefix, has_pytest, has_coverage = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError) as error:
        raise InterpreterError(f"{executable} ({origin}) does not run as Python: {error}") from None
    return version, prefix, has_pytest, has_coverage


FIND = (
    "import importlib.util as u, json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
    "s = u.find_spec(sys.argv[2]); "
    "print(json.dumps(s and (s.origin or next(iter(s.submodule_search_locations or []), None))))"
)


def import_origin(
    interpreter: Interpreter, top_level: str, first_paths: list[Path], cwd: Path
) -> str | None:
    """Where ``import top_level`` finds it in ``interpreter`` with ``first_paths`` first on
    sys.path and no script folder (``-P``), as the ``pytest`` command would; None: nowhere.
    A top-level name only: finding it runs none of the project's code."""
    command = [interpreter.executable, "-P", "-c", FIND, json.dumps([str(p) for p in first_paths]),
               top_level]  # fmt: skip
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=cwd
        )
        found = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    return found if isinstance(found, str) else None


def shim_folder() -> Path:
    """A folder holding links to the packages miogen's processes import (``LINKED``: made once
    per install). It comes last on the project interpreter's ``sys.path``: where the project
    has a package of the same name, the project's is the one its code and miogen's use."""
    sources = {name: _origin(name) for name in LINKED}
    key = hashlib.sha256(json.dumps({k: str(v) for k, v in sources.items()}).encode()).hexdigest()
    folder = Path(tempfile.gettempdir()) / f"miogen-shim-{key[:16]}"
    folder.mkdir(exist_ok=True)
    for name, source in sources.items():
        link = folder / (source.name if source.is_file() else name)  # typing_extensions.py
        if not link.is_symlink() or link.resolve() != source:
            temporary = folder / f".{name}.{os.getpid()}"
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(source, target_is_directory=source.is_dir())
            os.replace(temporary, link)
    return folder


def _origin(name: str) -> Path:
    """The package's folder (or a one-file module's file) in miogen's own interpreter."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise InterpreterError(f"miogen's own interpreter has no {name}: reinstall miogen")
    origin = Path(spec.origin).resolve()
    return origin.parent if origin.name == "__init__.py" else origin
