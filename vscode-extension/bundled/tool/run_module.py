"""``python run_module.py MODULE ARGS...`` runs MODULE as ``python -m MODULE ARGS...`` would, with
the extension's bundle (``bundled/libs``) appended to ``sys.path``: the interpreter's own packages
come first (its pytest, coverage.py and plugins, where it has them), the bundle's fill the gaps.
The Testing view runs the generated tests through it under ``miogen.importStrategy`` useBundled,
so that an interpreter with nothing installed runs them too.
"""

import os
import runpy
import sys

LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: run_module.py MODULE [ARGS...]\n")
        sys.exit(2)
    sys.path[0] = os.getcwd()  # as -m has it: the working folder, not this script's
    sys.path.append(LIBS)
    del sys.argv[0]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
