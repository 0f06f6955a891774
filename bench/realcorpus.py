"""The real-code corpus: modules of pinned PyPI packages and copies of stdlib modules.

The packages come from the projects of the published Python test-generation studies
(Pynguin's SSBSE 2020 study and its EMSE extension, CodaMOSA); bench/requirements-real.txt pins
them and every dependency, and ``ensure_venv`` installs exactly that file into the git-ignored
``bench/.venv-real``. Their modules are measured where pip put them, imported from that venv's
site-packages. The stdlib modules are copies in bench/subjects/ (CPython 3.11.7), so that
coverage.py measures them as user code.

``HELD_OUT`` modules come from packages the development corpus does not use: nobody tunes on
them; later work runs them to show that it did not overfit.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
VENV = BENCH / ".venv-real"
REQUIREMENTS = BENCH / "requirements-real.txt"
SUBJECTS = BENCH / "subjects"
STDLIB = "CPython 3.11.7"


@dataclass(frozen=True)
class RealModule:
    """One module of the corpus: where it comes from and how it is imported."""

    module: str  # dotted name from its import root
    distribution: str  # "name==version" from requirements-real.txt, or STDLIB
    package_imports_it: bool  # the package's __init__ imports it (directly or through siblings)
    held_out: bool = False
    copy: str = ""  # stdlib: the file in bench/subjects/

    @property
    def name(self) -> str:
        return self.copy.removesuffix(".py") if self.copy else self.module

    @property
    def project(self) -> str:
        """The package a module belongs to (held-out modules share none with the others)."""
        return self.distribution.partition("==")[0] if self.copy == "" else self.name

    def locate(self, site: Path, folder: Path) -> tuple[Path, Path]:
        """(module file, import root): a stdlib copy goes into ``folder``; a package's module is
        measured in ``site`` (the venv's site-packages) where pip installed it."""
        if self.copy:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / self.copy
            shutil.copyfile(SUBJECTS / self.copy, target)
            return target, folder
        base = site.joinpath(*self.module.split("."))
        path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        return path, site


def _pypi(module: str, distribution: str, imported: bool, held_out: bool = False) -> RealModule:
    return RealModule(module, distribution, imported, held_out)


def _stdlib(module: str, imported: bool = False, held_out: bool = False) -> RealModule:
    copy = "stdlib_" + module.replace(".", "_") + ".py"
    return RealModule(module, STDLIB, imported, held_out, copy)


CORPUS: tuple[RealModule, ...] = (
    _pypi("flutes.iterator", "flutes==0.3.0", True),  # `from .iterator import *`
    _pypi("string_utils.validation", "python-string-utils==1.0.0", True),  # `import *`
    _pypi("codetiming._timer", "codetiming==1.4.0", True),  # private module, a dataclass
    _pypi("docstring_parser.google", "docstring-parser==0.15", True),  # through .parser
    _pypi("sty.primitive", "sty==1.0.6", True),
    _pypi("typesystem.fields", "typesystem==0.4.1", True),
    _pypi("apimd.parser", "apimd==2.1.1", True),  # through .loader
    _pypi("mimesis.random", "mimesis==4.1.3", True),  # through .providers
    _pypi("pytutils.trees", "pytutils==0.4.1", False),  # (.mappings needs Python < 3.10)
    _pypi("flutils.strutils", "flutils==0.7", False),
    _pypi("pypara.dcc", "pypara==0.1.1", False),
    _stdlib("urllib.parse"),
    _stdlib("calendar"),
    _stdlib("statistics"),
    _stdlib("configparser"),
    _stdlib("email.utils"),
    _stdlib("argparse"),
    _pypi("dataclasses_json.core", "dataclasses-json==0.5.7", True, held_out=True),
    _pypi("isort.wrap_modes", "isort==5.13.2", True, held_out=True),
    _stdlib("fractions", held_out=True),
    _stdlib("shlex", held_out=True),
)
# A smoke subset: a re-exported package module, a private module with a dataclass, a stdlib copy.
QUICK = ("string_utils.validation", "codetiming._timer", "stdlib_calendar")


def select(names: list[str] | None, which: str = "dev", quick: bool = False) -> list[RealModule]:
    """Modules by name, or the quick subset, or the dev / held-out / all set, in corpus order."""
    known = {m.name: m for m in CORPUS}
    if names:
        unknown = [n for n in names if n not in known]
        if unknown:
            raise SystemExit(f"unknown modules {unknown}; known: {', '.join(known)}")
        return [m for m in CORPUS if m.name in names]
    if quick:
        return [known[name] for name in QUICK]
    return [m for m in CORPUS if which == "all" or m.held_out == (which == "held-out")]


def requirement_pins(text: str) -> dict[str, str]:
    """``name==version`` lines of a requirements file, by normalised name.

    >>> requirement_pins("# pins\\nFlutes==0.3.0\\npython_string-utils==1.0.0  # x\\n")
    {'flutes': '0.3.0', 'python-string-utils': '1.0.0'}
    """
    pins = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        name, separator, version = line.partition("==")
        if separator:
            pins[_normalise(name)] = version.strip()
    return pins


def _normalise(name: str) -> str:
    return name.strip().lower().replace("_", "-").replace(".", "-")


def ensure_venv(venv: Path = VENV, requirements: Path = REQUIREMENTS, log=print) -> Path:
    """Install ``requirements`` into ``venv`` unless that exact file was installed there;
    return the venv's site-packages."""
    python = venv / "bin" / "python"
    stamp = venv / "requirements.sha256"
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if not python.exists() or not stamp.exists() or stamp.read_text() != digest:
        log(f"installing {requirements.name} into {venv} (once; about a minute)")
        if venv.exists():
            shutil.rmtree(venv)
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--no-deps", "-r", str(requirements)],
            check=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        stamp.write_text(digest)
    completed = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(completed.stdout.strip())
