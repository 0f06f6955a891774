"""Loads a module from its instrumented AST under its real name, through Python's import system.

The module is imported as ``import module_name`` would import it, with one difference: a
meta-path finder hands the import system the instrumented code for that one name. So the
parent packages run their ``__init__`` first, in their usual order, and whatever they or the
module's siblings import (``from .mod import *``, ``from pkg.mod import Thing``, circular
imports between siblings, a module ``__getattr__``) is the instrumented module itself: the
package, its siblings and the tests see one module, never a half-run copy.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import traceback
import types
from collections.abc import Callable, Sequence
from pathlib import Path

from miogen.common.errors import ModuleImportError
from miogen.common.syntax import parse
from miogen.instrument import runtime, tally
from miogen.instrument.counting import TALLY
from miogen.instrument.reach import Scope, part, reachable
from miogen.instrument.rewrite import PROBE, instrument_tree

# The worker's own package is never imported afresh, even when the module under test is in it.
ENGINE_PACKAGE = __name__.partition(".")[0]

Transform = Callable[[ast.Module], ast.Module]


def compile_instrumented(
    source: str, path: str, transforms: Sequence[Transform] = (), scope: Scope | None = None
) -> types.CodeType:
    """The module's code with condition probes; ``transforms`` run first, on the plain tree.

    ``scope``: only the top-level statements it reaches are rewritten (``reach``), the rest of
    the module compiles as written; None rewrites every function.
    """
    tree = parse(source, path)
    indices = range(len(tree.body)) if scope is None else reachable(tree, scope)
    rewritten = part(tree, indices)
    for transform in transforms:
        rewritten = transform(rewritten)
    rewritten = instrument_tree(rewritten)
    for index, statement in zip(indices, rewritten.body, strict=True):
        tree.body[index] = statement
    return compile(tree, path, "exec", dont_inherit=True)


class InstrumentedLoader(importlib.machinery.SourceFileLoader):
    """A source loader whose code is the instrumented tree (never read from or written to a .pyc)."""

    def __init__(
        self,
        fullname: str,
        path: str,
        instrument: bool = True,
        transforms: Sequence[Transform] = (),
        scope: Scope | None = None,
    ) -> None:
        super().__init__(fullname, path)
        self.instrument, self.transforms, self.scope = instrument, transforms, scope
        self.module: types.ModuleType | None = None  # the module this loader executed

    def get_code(self, fullname: str) -> types.CodeType:
        source = importlib.util.decode_source(self.get_data(self.path))
        if self.instrument:
            return compile_instrumented(source, self.path, self.transforms, self.scope)
        return compile(source, self.path, "exec", dont_inherit=True)

    def exec_module(self, module: types.ModuleType) -> None:
        if self.instrument:
            setattr(module, PROBE, runtime)
            setattr(module, TALLY, tally)
        self.module = module
        super().exec_module(module)


class InstrumentingFinder(importlib.abc.MetaPathFinder):
    """Finds exactly one module name, at one path, with an InstrumentedLoader."""

    def __init__(
        self,
        module_name: str,
        path: str,
        instrument: bool = True,
        transforms: Sequence[Transform] = (),
        scope: Scope | None = None,
    ) -> None:
        self.module_name, self.path = module_name, path
        self.loader = InstrumentedLoader(module_name, path, instrument, transforms, scope)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.module_name:
            return None
        package = Path(self.path).name == "__init__.py"
        return importlib.util.spec_from_file_location(
            fullname,
            self.path,
            loader=self.loader,
            submodule_search_locations=[str(Path(self.path).parent)] if package else None,
        )


def load_instrumented(
    path: str | Path,
    module_name: str,
    instrument: bool = True,
    transforms: Sequence[Transform] = (),
    scope: Scope | None = None,
) -> types.ModuleType:
    """Import ``module_name`` from ``path`` with its code instrumented, packages first.

    A copy imported earlier (by a ``.pth`` file, a plugin, an earlier load) is forgotten with
    the rest of its top-level package, so that the package is imported again around the
    instrumented module. When the parent packages cannot be found on ``sys.path`` the module is
    loaded on its own. ``transforms`` (such as ``counting.Counting``) rewrite the parsed tree
    before the condition probes are added; ``scope`` limits both to what a job's tests can run
    (``compile_instrumented``). Raises ModuleImportError naming the exception when user code
    raises.
    """
    path = str(Path(path).resolve())
    forget_package(module_name)
    finder = InstrumentingFinder(module_name, path, instrument, transforms, scope)
    sys.meta_path.insert(0, finder)
    try:
        importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if not _is_parent(error.name, module_name):
            raise ModuleImportError(module_name, _describe(error), _line_in(error, path)) from None
        return _load_alone(finder, module_name, path)
    except BaseException as error:  # noqa: BLE001 - SystemExit and friends are user errors here
        raise ModuleImportError(module_name, _describe(error), _line_in(error, path)) from None
    finally:
        sys.meta_path.remove(finder)
    module = finder.loader.module
    assert module is not None, f"{module_name} was imported without its instrumented loader"
    return module


def forget_package(module_name: str) -> list[str]:
    """Drop ``module_name``'s top-level package and its submodules from ``sys.modules`` when the
    module itself was imported already; return the names dropped (nothing otherwise).

    The package is imported again from its files: its ``__init__`` and the siblings then bind the
    instrumented module's objects instead of the earlier copy's.
    """
    if module_name not in sys.modules:
        return []
    top = module_name.partition(".")[0]
    if top == ENGINE_PACKAGE:
        names = [module_name]
    else:
        names = [name for name in sys.modules if name == top or name.startswith(top + ".")]
    for name in names:
        del sys.modules[name]
    importlib.invalidate_caches()
    return names


def _load_alone(finder: InstrumentingFinder, module_name: str, path: str) -> types.ModuleType:
    """The module without its packages (they are not importable from here): run it registered
    under its name, as a plain script would be."""
    spec = finder.find_spec(module_name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as error:  # noqa: BLE001
        sys.modules.pop(module_name, None)
        raise ModuleImportError(module_name, _describe(error), _line_in(error, path)) from None
    return module


def _is_parent(missing: str | None, module_name: str) -> bool:
    return bool(missing) and module_name.startswith(f"{missing}.")


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _line_in(error: BaseException, path: str) -> int | None:
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    return lines[-1] if lines else None
