"""Starts miogen's language server from the extension's bundle (``miogen.importStrategy``: useBundled).

``bundled/libs`` holds miogen and its pure-Python dependencies, and ruff's binary for the VSIX's
platform, installed there when the extension is packaged (scripts/bundle-server.sh, pinned with
hashes in bundled/requirements.txt). Nothing is installed into the interpreter that runs this:
the bundle goes FIRST on ``sys.path`` (the server is the extension's own version whatever the
interpreter has), and ``$MIOGEN_BUNDLE`` names it for miogen's own processes (workers,
verification), which append it at the END of theirs, so that the project's packages come first
there (miogen.host.interpreter). numpy is not bundled (compiled, per Python version): the
genetic algorithms take it from the interpreter.

Runs on any Python to say clearly when it is too old: no syntax newer than Python 2.7/3.0 here.
"""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = os.path.join(os.path.dirname(HERE), "libs")
MINIMUM = (3, 11)


def main():
    if sys.version_info[:2] < MINIMUM:
        sys.stderr.write(
            "miogen needs Python %d.%d or newer; %s is Python %d.%d\n"
            % (MINIMUM + (sys.executable,) + tuple(sys.version_info[:2]))
        )
        sys.exit(2)
    if not os.path.isfile(os.path.join(LIBS, "miogen", "__main__.py")):
        sys.stderr.write("miogen's bundle is missing from the extension (%s)\n" % LIBS)
        sys.exit(2)
    # Not this script's folder (Python puts it first), the bundle instead.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
    sys.path.insert(0, LIBS)
    os.environ["MIOGEN_BUNDLE"] = LIBS
    sys.argv[:] = ["miogen", "serve"] + sys.argv[1:]
    runpy.run_module("miogen", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
