"""Loads a module from its instrumented AST under its real name, so tests and tracebacks look normal."""

from __future__ import annotations

import ast
import sys
import traceback
import types
from collections.abc import Callable, Sequence
from pathlib import Path

from miogen.errors import ModuleImportError
from miogen.instrument import runtime, tally
from miogen.instrument.counting import TALLY
from miogen.instrument.rewrite import PROBE, instrument_tree

Transform = Callable[[ast.Module], ast.Module]


def compile_instrumented(
    source: str, path: str, transforms: Sequence[Transform] = ()
) -> types.CodeType:
    """The module's code with condition probes; ``transforms`` run first, on the plain tree."""
    tree = ast.parse(source, filename=path)
    for transform in transforms:
        tree = transform(tree)
    return compile(instrument_tree(tree), path, "exec", dont_inherit=True)


def load_instrumented(
    path: str | Path,
    module_name: str,
    instrument: bool = True,
    transforms: Sequence[Transform] = (),
) -> types.ModuleType:
    """Execute the module's (instrumented) code in a fresh module registered as ``module_name``.

    ``transforms`` (such as ``counting.Counting``) rewrite the parsed tree before the condition
    probes are added. Raises ModuleImportError naming the exception when the module's own code
    raises.
    """
    path = str(Path(path).resolve())
    source = Path(path).read_text(encoding="utf-8")
    if instrument:
        code = compile_instrumented(source, path, transforms)
    else:
        code = compile(source, path, "exec")
    module = types.ModuleType(module_name)
    module.__file__ = path
    module.__package__ = module_name.rpartition(".")[0]
    setattr(module, PROBE, runtime)
    setattr(module, TALLY, tally)
    previous = sys.modules.get(module_name)
    sys.modules[module_name] = module
    try:
        exec(code, module.__dict__)
    except BaseException as error:  # noqa: BLE001 - SystemExit and friends are user errors here
        if previous is None:
            sys.modules.pop(module_name, None)
        else:
            sys.modules[module_name] = previous
        raise ModuleImportError(module_name, _describe(error), _line_in(error, path)) from None
    return module


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _line_in(error: BaseException, path: str) -> int | None:
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    return lines[-1] if lines else None
