"""Every module of the package imports when it is the first one imported.

An import cycle between two modules works or fails by which of them a process imports first: the
whole test suite can pass (some test imported the cycle's good end first) while a worker process,
which starts from another module, dies on ``ImportError: cannot import name ... partially
initialized module``. One fresh interpreter imports each module with no other miogen module loaded.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "miogen"

IMPORT_EACH_FIRST = """
import importlib, sys, traceback
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "miogen" or m.startswith("miogen.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failed.append(name + ": " + traceback.format_exc().strip().splitlines()[-1])
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    names = module_names()
    assert "miogen.analysis.bisects" in names and len(names) > 100
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_FIRST, *names],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
