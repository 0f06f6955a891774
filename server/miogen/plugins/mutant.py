"""pytest plugin (``-p miogen.plugins.mutant``): the project's tests run against a mutant.

``$MIOGEN_MUTANT`` names a JSON file: ``{"module": dotted name, "path": its file, "source": the
mutated text}``. The plugin puts a finder first on ``sys.meta_path`` that loads that module from
the mutated text under its own file name (tracebacks and ``__file__`` stay the file's): the file
on disk is never changed, and no cached bytecode is read for it. Loaded by ``-p``, it is in
place before the project's conftest files and tests import anything. Without the variable it
does nothing.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import sys
import types
from collections.abc import Sequence

VARIABLE = "MIOGEN_MUTANT"


class _MutantLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, source: str) -> None:
        super().__init__(fullname, path)
        self.source = source

    def get_source(self, fullname: str) -> str:
        return self.source

    def get_code(self, fullname: str) -> types.CodeType:
        return compile(self.source, self.path, "exec", dont_inherit=True)


class _MutantFinder:
    def __init__(self, module: str, path: str, source: str) -> None:
        self.module, self.path, self.source = module, path, source

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.module:
            return None
        loader = _MutantLoader(fullname, self.path, self.source)
        return importlib.util.spec_from_file_location(fullname, self.path, loader=loader)


def _install() -> None:
    named = os.environ.get(VARIABLE)
    if not named:
        return
    with open(named, encoding="utf-8") as handle:
        mutant = json.load(handle)
    sys.modules.pop(mutant["module"], None)
    sys.meta_path.insert(0, _MutantFinder(mutant["module"], mutant["path"], mutant["source"]))


_install()
