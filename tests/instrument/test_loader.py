"""The instrumented module is the one its package and siblings see, whatever the package's shape.

Each test builds a real package on disk and loads one of its modules as the worker does; the
module must be instrumented (its branches record hits) and be the very object that
``sys.modules``, the package's re-exports and the siblings' imports name.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from miogen.assertions.mutants import MutantFactory
from miogen.common.errors import ModuleImportError
from miogen.instrument import runtime
from miogen.instrument.loader import load_instrumented
from miogen.instrument.rewrite import PROBE

SIGN = """
def sign(x):
    if x > 0:
        return 1
    return -1
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch):
    """tree({"pkg/__init__.py": "...", ...}) writes the files and puts their root on sys.path;
    the modules imported meanwhile are forgotten afterwards."""
    before = set(sys.modules)
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(files: dict[str, str]) -> Path:
        for name, source in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
        return tmp_path

    yield write
    for name in set(sys.modules) - before:
        del sys.modules[name]


def instrumented(function) -> bool:
    """Calling ``function(1)`` records a branch hit: its code is the instrumented one."""
    runtime.reset()
    function(1)
    return bool(runtime.HITS)


def load(root: Path, relative: str, module_name: str):
    return load_instrumented(root / relative, module_name)


def test_star_reexport_from_init_sees_the_instrumented_module(tree):
    root = tree({
        "pkg/__init__.py": "from .validation import *\nfrom .errors import *\n",
        "pkg/errors.py": "class InvalidInput(ValueError):\n    pass\n",
        "pkg/validation.py": "from .errors import InvalidInput\n__all__ = ['sign']\n" + SIGN
        + "\ndef _private():\n    return 0\n",
    })  # fmt: skip
    module = load(root, "pkg/validation.py", "pkg.validation")
    package = sys.modules["pkg"]
    assert sys.modules["pkg.validation"] is module and package.validation is module
    assert package.sign is module.sign and instrumented(package.sign)
    assert not hasattr(package, "_private")  # __all__ still decides what * exports


def test_named_reexport_and_sibling_that_imports_it(tree):
    root = tree({
        "pkg/__init__.py": "from .mod import Thing\nfrom .user import use\n",
        "pkg/mod.py": "from pkg.helpers import double\n\nclass Thing:\n    def grow(self, x):\n"
                      "        if x > 0:\n            return double(x)\n        return 0\n",
        "pkg/helpers.py": "def double(x):\n    return 2 * x\n",
        "pkg/user.py": "from pkg.mod import Thing\n\ndef use():\n    return Thing()\n",
    })  # fmt: skip
    module = load(root, "pkg/mod.py", "pkg.mod")
    package = sys.modules["pkg"]
    assert package.Thing is module.Thing
    assert type(package.use()) is module.Thing
    assert instrumented(module.Thing().grow)


def test_circular_sibling_imports(tree):
    root = tree({
        "pkg/__init__.py": "from . import first\n",
        "pkg/first.py": "from . import second\n" + SIGN + "\ndef twice(x):\n"
                        "    return second.again(x)\n",
        "pkg/second.py": "from . import first\n\ndef again(x):\n    return first.sign(x)\n",
    })  # fmt: skip
    module = load(root, "pkg/second.py", "pkg.second")
    first = sys.modules["pkg.first"]
    assert first.second is module and module.first is first
    assert first.twice(3) == 1 and instrumented(module.again)


def test_relative_imports_from_a_subpackage(tree):
    root = tree({
        "pkg/__init__.py": "",
        "pkg/util.py": "LIMIT = 10\n",
        "pkg/sub/__init__.py": "from .leaf import sign\n",
        "pkg/sub/leaf.py": "from ..util import LIMIT\n" + SIGN,
    })  # fmt: skip
    module = load(root, "pkg/sub/leaf.py", "pkg.sub.leaf")
    assert module.LIMIT == 10 and sys.modules["pkg.sub"].sign is module.sign
    assert instrumented(module.sign)


def test_module_getattr_of_a_lazy_package(tree):
    root = tree({
        "pkg/__init__.py": "import importlib\n\ndef __getattr__(name):\n"
                           "    if name in ('mod',):\n"
                           "        return importlib.import_module('.' + name, __name__)\n"
                           "    raise AttributeError(name)\n",
        "pkg/mod.py": SIGN,
        "pkg/caller.py": "import pkg\n\ndef call(x):\n    return pkg.mod.sign(x)\n",
    })  # fmt: skip
    module = load(root, "pkg/mod.py", "pkg.mod")
    import pkg.caller  # type: ignore[import-not-found]

    assert pkg.caller.call(-2) == -1 and sys.modules["pkg"].mod is module
    assert instrumented(module.sign)


def test_namespace_package_without_init(tree):
    root = tree({
        "space/mod.py": SIGN,
        "space/other.py": "from space.mod import sign\n",
    })  # fmt: skip
    module = load(root, "space/mod.py", "space.mod")
    import space.other  # type: ignore[import-not-found]

    assert space.other.sign is module.sign and instrumented(module.sign)


def test_package_init_as_the_module_under_test(tree):
    root = tree({
        "pkg/__init__.py": "from .part import PART\n" + SIGN,
        "pkg/part.py": "PART = 'p'\n",
    })  # fmt: skip
    module = load(root, "pkg/__init__.py", "pkg")
    assert sys.modules["pkg"] is module and module.PART == "p"
    assert module.__path__ == [str(root / "pkg")] and instrumented(module.sign)


def test_module_imported_before_loading_is_replaced_in_its_package(tree):
    root = tree({
        "pkg/__init__.py": "from .mod import sign\n",
        "pkg/mod.py": SIGN,
        "pkg/sibling.py": "from pkg.mod import sign\n",
    })  # fmt: skip
    importlib.import_module("pkg.sibling")  # as a plugin would, earlier
    earlier = sys.modules["pkg.mod"]
    module = load(root, "pkg/mod.py", "pkg.mod")
    assert module is not earlier and getattr(module, PROBE) is runtime
    assert sys.modules["pkg"].sign is module.sign
    assert importlib.import_module("pkg.sibling").sign is module.sign  # the fresh package's


def test_module_imported_by_a_pth_file(tmp_path: Path):
    """A site folder's .pth imports the package at interpreter start-up (a real .pth run)."""
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("from .mod import sign\n")
    (site / "pkg" / "mod.py").write_text(textwrap.dedent(SIGN))
    (site / "preload.pth").write_text("import pkg\n")
    script = textwrap.dedent(f"""
        import site, sys
        site.addsitedir({str(site)!r})
        assert "pkg.mod" in sys.modules
        from miogen.instrument import runtime
        from miogen.instrument.loader import load_instrumented
        module = load_instrumented({str(site / "pkg" / "mod.py")!r}, "pkg.mod")
        assert sys.modules["pkg"].sign is module.sign
        runtime.reset()
        sys.modules["pkg"].sign(5)
        print("hit", bool(runtime.HITS))
    """)
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    assert "hit True" in completed.stdout


def test_module_whose_packages_are_not_importable_loads_alone(tmp_path: Path):
    path = tmp_path / "sign.py"
    path.write_text(textwrap.dedent(SIGN))
    try:
        module = load_instrumented(path, "nowhere.to.be.found.sign")
        assert instrumented(module.sign)
    finally:
        sys.modules.pop("nowhere.to.be.found.sign", None)


def test_errors_in_the_package_init_are_named(tree):
    root = tree({
        "pkg/__init__.py": "from .mod import sign\nraise RuntimeError('init broke')\n",
        "pkg/mod.py": SIGN,
    })  # fmt: skip
    with pytest.raises(ModuleImportError, match="RuntimeError: init broke"):
        load(root, "pkg/mod.py", "pkg.mod")
    with pytest.raises(ModuleImportError, match="ModuleNotFoundError"):
        load_instrumented(tree({"other/mod.py": "import not_there_at_all\n"}) / "other/mod.py",
                          "other.mod")  # fmt: skip


def test_mutants_of_a_package_module_run_their_relative_imports(tree):
    from miogen.analysis.module import analyze_file

    source = "def sign(x):\n    from .part import ZERO\n    if x > ZERO:\n        return 1\n" \
             "    return -1\n"  # fmt: skip
    root = tree({"pkg/__init__.py": source, "pkg/part.py": "ZERO = 0\n"})
    module = load(root, "pkg/__init__.py", "pkg")
    unit = analyze_file(root / "pkg/__init__.py", "pkg").unit("sign")
    for base in (module, None):
        factory = MutantFactory(source, str(root / "pkg/__init__.py"), unit, "pkg", base)
        flipped = next(m for m in factory.mutants if m.description == "Gt -> GtE")
        assert factory.load(flipped.index).sign(0) == 1  # the mutant's >= runs


def test_types_made_at_run_time_are_not_named_in_assertions(tree):
    """A namedtuple class built inside a function has the module's name but is no attribute of
    it: an emitted `isinstance(x, Name)` would need an import that fails."""
    from miogen.assertions.observe import _type_of

    root = tree({
        "pkg/__init__.py": "",
        "pkg/shapes.py": "from collections import namedtuple\n\nclass Box:\n    pass\n\n"
                         "def pair():\n    return namedtuple('Pair', 'a b')(1, 2)\n",
    })  # fmt: skip
    module = load(root, "pkg/shapes.py", "pkg.shapes")
    assert _type_of(0, module.pair(), "pkg.shapes") is None
    assert _type_of(0, module.Box(), "pkg.shapes").value == "Box"
